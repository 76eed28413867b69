/**
 * The QR encoder against the standard's own vectors (Reed-Solomon, format and version bits) and
 * an independent decoder (jsQR): every symbol it draws reads back as the text it was given, at
 * every version it makes and with each of the eight masks.
 */
import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';
import { formatBits, QR_MAX_VERSION, qrMatrix, qrSvg, reedSolomon, versionBits } from './qr.js';

/** the symbol as an RGBA image (4 px a module, a 4-module quiet zone), read by jsQR */
function decode(m: boolean[][]): string | null {
  const scale = 4;
  const n = (m.length + 8) * scale;
  const px = new Uint8ClampedArray(n * n * 4).fill(255);
  for (const [y, row] of m.entries())
    for (const [x, dark] of row.entries()) {
      if (!dark) continue;
      for (let dy = 0; dy < scale; dy++)
        for (let dx = 0; dx < scale; dx++) {
          const i = (((y + 4) * scale + dy) * n + (x + 4) * scale + dx) * 4;
          px[i] = px[i + 1] = px[i + 2] = 0;
        }
    }
  return jsQR(px, n, n)?.data ?? null;
}

describe('the QR encoder', () => {
  it("computes the standard's example error correction (ISO/IEC 18004 annex I: 01234567, 1-M)", () => {
    const data = [0x10, 0x20, 0x0c, 0x56, 0x61, 0x80, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11];
    expect(reedSolomon(data, 10)).toEqual([0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36, 0xc7, 0x87, 0x2c, 0x55]);
  });

  it("draws the standard's format bits of level M and version bits of versions 7 to 10", () => {
    const m = [
      '101010000010010',
      '101000100100101',
      '101111001111100',
      '101101101001011',
      '100010111111001',
      '100000011001110',
      '100111110010111',
      '100101010100000',
    ];
    expect(m.map((_, mask) => formatBits(mask).toString(2).padStart(15, '0'))).toEqual(m);
    expect([7, 8, 9, 10].map(versionBits)).toEqual([0x07c94, 0x085bc, 0x09a99, 0x0a4d3]);
  });

  it('every version from 1 to 10 reads back as its text (a decoder of its own, jsQR)', () => {
    // the longest text of each version at level M in byte mode
    const capacity = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213];
    for (let v = 1; v <= QR_MAX_VERSION; v++) {
      const text = `https://ce.example/r/${'AbC123xyZ0'.repeat(30)}`.slice(0, capacity[v - 1]);
      const m = qrMatrix(text);
      expect(m.length, `version ${v}`).toBe(17 + 4 * v);
      expect(decode(m), `version ${v}`).toBe(text);
    }
    expect(() => qrMatrix('x'.repeat(214))).toThrow(RangeError);
  });

  it('each of the eight masks reads back; UTF-8 text too', () => {
    for (let mask = 0; mask < 8; mask++)
      expect(decode(qrMatrix('https://ce.example/r/AbC123xyZ0', mask))).toBe('https://ce.example/r/AbC123xyZ0');
    expect(decode(qrMatrix('Grüße, 東京'))).toBe('Grüße, 東京');
  });

  it('as SVG: one path, a quiet zone, its accessible name escaped', () => {
    const svg = qrSvg('https://ce.example/r/AbC', 'QR code of "your" link');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 33 33" /);
    expect(svg).toContain('aria-label="QR code of &#34;your&#34; link"');
    expect(svg.match(/<path /g)).toHaveLength(1);
  });
});
