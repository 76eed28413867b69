/**
 * A QR code (ISO/IEC 18004) of a short text, drawn as SVG: byte mode, error correction level M
 * (15% of the symbol may be lost), versions 1 to 10 (up to 213 bytes of UTF-8: a link), the mask
 * with the lowest penalty. Small on purpose (the sign-up widget carries it): no other mode, level
 * or size. Checked by src/lib/qr.test.ts against an independent decoder and known symbols.
 */

/** error correction codewords per block, and blocks, at level M, for versions 1 to 10 */
const EC_PER_BLOCK = [10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
const BLOCKS = [1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
export const QR_MAX_VERSION = 10;

/** GF(256) product, modulo x^8 + x^4 + x^3 + x^2 + 1 */
function mul(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

/** the Reed-Solomon generator of `degree` (its coefficients, highest first, the leading 1 left out) */
function divisor(degree: number): number[] {
  const out = new Array<number>(degree).fill(0);
  out[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      out[j] = mul(out[j]!, root);
      if (j + 1 < degree) out[j]! ^= out[j + 1]!;
    }
    root = mul(root, 2);
  }
  return out;
}

function remainder(data: number[], div: number[]): number[] {
  const out = div.map(() => 0);
  for (const b of data) {
    const factor = b ^ out.shift()!;
    out.push(0);
    div.forEach((c, i) => {
      out[i]! ^= mul(c, factor);
    });
  }
  return out;
}

/** The error correction codewords of `data` (Reed-Solomon over GF(256), `n` of them). */
export function reedSolomon(data: number[], n: number): number[] {
  return remainder(data, divisor(n));
}

/** The 15 format bits of level M with `mask` (BCH code, then XOR 0x5412). */
export function formatBits(mask: number): number {
  let rem = mask; // level M: its two bits are 00
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((mask << 10) | rem) ^ 0x5412;
}

/** The 18 version bits of version `v` (7 and over; BCH code). */
export function versionBits(v: number): number {
  let rem = v;
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
  return (v << 12) | rem;
}

/** modules that carry data and error correction, in version `v` */
function rawModules(v: number): number {
  let n = (16 * v + 128) * v + 64;
  if (v >= 2) {
    const align = Math.floor(v / 7) + 2;
    n -= (25 * align - 10) * align - 55;
    if (v >= 7) n -= 36;
  }
  return n;
}

const dataCodewords = (v: number) => Math.floor(rawModules(v) / 8) - EC_PER_BLOCK[v - 1]! * BLOCKS[v - 1]!;

function alignmentCentres(v: number, size: number): number[] {
  if (v === 1) return [];
  const count = Math.floor(v / 7) + 2;
  const step = Math.ceil((v * 4 + 4) / (count * 2 - 2)) * 2;
  const out = [6];
  for (let pos = size - 7; out.length < count; pos -= step) out.splice(1, 0, pos);
  return out;
}

const MASKS: ((x: number, y: number) => boolean)[] = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** The code's modules (true: dark), row by row; `mask` forces one (0-7), else the best is chosen. */
export function qrMatrix(text: string, mask?: number): boolean[][] {
  const bytes = [...new TextEncoder().encode(text)];
  let v = 1;
  // mode (4 bits) + count (8 bits; 16 from version 10) + the bytes
  while (v <= QR_MAX_VERSION && 4 + (v < 10 ? 8 : 16) + bytes.length * 8 > dataCodewords(v) * 8) v++;
  if (v > QR_MAX_VERSION) throw new RangeError('text too long for a QR code of version 10');
  const capacity = dataCodewords(v) * 8;
  const bits: number[] = [];
  const put = (value: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, v < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));

  // blocks, each with its error correction, then interleaved column by column
  const ecLen = EC_PER_BLOCK[v - 1]!;
  const blockCount = BLOCKS[v - 1]!;
  const total = Math.floor(rawModules(v) / 8);
  const shortCount = blockCount - (total % blockCount);
  const shortLen = Math.floor(total / blockCount);
  const div = divisor(ecLen);
  const blocks: number[][] = [];
  for (let i = 0, k = 0; i < blockCount; i++) {
    const dat = data.slice(k, k + shortLen - ecLen + (i < shortCount ? 0 : 1));
    k += dat.length;
    const block = [...dat, ...remainder(dat, div)];
    if (i < shortCount) block.splice(shortLen - ecLen, 0, -1);
    blocks.push(block);
  }
  const codewords: number[] = [];
  for (let i = 0; i < blocks[0]!.length; i++) for (const b of blocks) if (b[i] !== -1) codewords.push(b[i]!);

  // the function patterns
  const size = v * 4 + 17;
  const m: boolean[][] = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const fixed: boolean[][] = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const set = (x: number, y: number, dark: boolean) => {
    m[y]![x] = dark;
    fixed[y]![x] = true;
  };
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [
    [3, 3],
    [size - 4, 3],
    [3, size - 4],
  ] as const)
    for (let dy = -4; dy <= 4; dy++)
      for (let dx = -4; dx <= 4; dx++) {
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, d !== 2 && d !== 4);
      }
  const centres = alignmentCentres(v, size);
  const last = centres.length - 1;
  for (const [i, cx] of centres.entries())
    for (const [j, cy] of centres.entries()) {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
  const format = (mk: number) => {
    const f = formatBits(mk);
    const bit = (i: number) => ((f >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) set(8, i, bit(i));
    set(8, 7, bit(6));
    set(8, 8, bit(7));
    set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
    set(8, size - 8, true);
  };
  format(0);
  if (v >= 7) {
    const bits18 = versionBits(v);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits18 >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(a, b, dark);
      set(b, a, dark);
    }
  }

  // the codewords, two columns at a time from the right, up then down
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++)
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
        if (!fixed[y]![x] && i < codewords.length * 8) {
          m[y]![x] = ((codewords[i >>> 3]! >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
  }

  const masked = (mk: number) => {
    const out = m.map((row, y) => row.map((d, x) => (fixed[y]![x] ? d : d !== MASKS[mk]!(x, y))));
    const keep = m.map((r) => [...r]);
    // the format bits of this mask, drawn on a copy
    for (let y = 0; y < size; y++) m[y] = out[y]!;
    format(mk);
    const result = m.map((r) => [...r]);
    for (let y = 0; y < size; y++) m[y] = keep[y]!;
    return result;
  };
  if (mask !== undefined) return masked(mask);
  let best = masked(0);
  let bestScore = penalty(best);
  for (let mk = 1; mk < 8; mk++) {
    const candidate = masked(mk);
    const score = penalty(candidate);
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return best;
}

/** The standard's penalty of a masked symbol (runs, 2x2 blocks, finder-like patterns, balance). */
function penalty(m: boolean[][]): number {
  const size = m.length;
  let score = 0;
  const lines = [...m, ...m.map((_, x) => m.map((row) => row[x]!))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += run - 2;
        run = 1;
      }
    }
    const s = line.map((d) => (d ? '1' : '0')).join('');
    for (const p of ['10111010000', '00001011101'])
      for (let k = s.indexOf(p); k >= 0; k = s.indexOf(p, k + 1)) score += 40;
  }
  let dark = 0;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      if (m[y]![x]) dark++;
      if (x < size - 1 && y < size - 1) {
        const c = m[y]![x];
        if (c === m[y]![x + 1] && c === m[y + 1]![x] && c === m[y + 1]![x + 1]) score += 3;
      }
    }
  score += Math.floor(Math.abs((dark * 20) / (size * size) - 10)) * 10;
  return score;
}

/** The code as an SVG document: dark modules as one path, a 4-module quiet zone, `label` as its accessible name. */
export function qrSvg(text: string, label: string): string {
  const m = qrMatrix(text);
  const size = m.length + 8;
  let d = '';
  for (const [y, row] of m.entries())
    for (const [x, dark] of row.entries()) if (dark) d += `M${x + 4} ${y + 4}h1v1h-1z`;
  const esc = label.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img" aria-label="${esc}"><rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
}
