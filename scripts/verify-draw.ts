/**
 * Re-checks a giveaway draw from public data only, with its own implementation of the published
 * algorithm (docs/fairness.md): it imports nothing of the server.
 *
 *   npx tsx scripts/verify-draw.ts <base-url> <drawId> [--key pk_...]     (or CONTEST_PUBLIC_KEY=pk_...)
 *
 * Downloads the draw and its snapshot, checks snapshotHash (SHA-256 of the CSV bytes) and, once
 * revealed, seedHash (SHA-256 of the seed bytes), then recomputes every winner and replacement
 * with a plain walk over the remaining entries. Prints OK, or the first difference (exit code 1).
 */
import { createHash, createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';

export interface VerifyOutcome {
  ok: boolean;
  /** what was checked, in order */
  log: string[];
  /** the first difference found, when not ok */
  difference?: string;
}

interface Draw {
  id: string;
  status: string;
  winners: number;
  eligibleCount: number;
  totalWeight: number;
  snapshotHash: string;
  seedHash: string;
  seed: string | null;
  publicRandomness: string | null;
  results: { position: number; entryId: string; replaced: boolean }[];
}

const TWO64 = 1n << 64n;

export async function verifyDraw(base: string, drawId: string, key: string): Promise<VerifyOutcome> {
  const log: string[] = [];
  const fail = (difference: string): VerifyOutcome => ({ ok: false, log, difference });
  const get = async (path: string) => {
    const res = await fetch(new URL(path, base), { headers: { 'x-api-key': key } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return res;
  };
  const draw = ((await (await get(`/api/v1/draws/${drawId}`)).json()) as { data: Draw }).data;
  log.push(`draw ${draw.id}: ${draw.status}, ${draw.eligibleCount} eligible entries, total weight ${draw.totalWeight}`);
  const csv = Buffer.from(await (await get(`/api/v1/draws/${drawId}/snapshot`)).arrayBuffer());
  const snapshotHash = createHash('sha256').update(csv).digest('hex');
  if (snapshotHash !== draw.snapshotHash)
    return fail(`snapshotHash: the snapshot's SHA-256 is ${snapshotHash}, the draw publishes ${draw.snapshotHash}`);
  log.push(`snapshotHash ${snapshotHash} matches the ${csv.length} snapshot bytes`);

  const lines = csv.toString('utf8').split('\n');
  if (lines.pop() !== '' || lines[0] !== 'entry_id,weight,email_sha256')
    return fail('snapshot: not in the published format');
  const ids: string[] = [];
  const weights: bigint[] = [];
  let total = 0n;
  for (let i = 1; i < lines.length; i++) {
    const [id, w, h] = lines[i]!.split(',');
    if (!id || !w || h === undefined || !/^\d+$/.test(w)) return fail(`snapshot line ${i + 1}: malformed`);
    if (ids.length && !(id > ids[ids.length - 1]!)) return fail(`snapshot line ${i + 1}: not in entry-id order`);
    ids.push(id);
    weights.push(BigInt(w));
    total += BigInt(w);
  }
  if (ids.length !== draw.eligibleCount)
    return fail(`eligibleCount: the snapshot has ${ids.length} entries, the draw says ${draw.eligibleCount}`);
  if (total !== BigInt(draw.totalWeight))
    return fail(`totalWeight: the snapshot sums to ${total}, the draw says ${draw.totalWeight}`);
  log.push(`snapshot: ${ids.length} entries, total weight ${total}`);

  if (draw.status !== 'revealed' || !draw.seed) {
    log.push(`not revealed yet: the seed is committed as ${draw.seedHash}`);
    return { ok: true, log };
  }
  const seed = Buffer.from(draw.seed, 'hex');
  const seedHash = createHash('sha256').update(seed).digest('hex');
  if (seedHash !== draw.seedHash)
    return fail(`seedHash: SHA-256 of the revealed seed is ${seedHash}, the commitment was ${draw.seedHash}`);
  log.push(`seedHash ${seedHash} matches the revealed seed`);

  const results = [...draw.results].sort((a, b) => a.position - b.position);
  const expectedCount = Math.min(draw.winners, draw.eligibleCount) + results.filter((r) => r.replaced).length;
  if (results.length !== expectedCount)
    return fail(`results: ${results.length}, expected ${expectedCount} (winners + replacements)`);
  const prefix = `${draw.snapshotHash}:${draw.publicRandomness ?? ''}:`;
  const picked = new Uint8Array(ids.length);
  let remaining = total;
  let i = 0;
  for (const r of results) {
    const limit = TWO64 - (TWO64 % remaining);
    let u: bigint;
    for (;;) {
      u = createHmac('sha256', seed).update(`${prefix}${i}`, 'utf8').digest().readBigUInt64BE(0);
      i++;
      if (u < limit) break;
      log.push(`u_${i - 1} rejected (>= 2^64 - (2^64 mod ${remaining}))`);
    }
    const x = u % remaining;
    let sum = 0n;
    let k = -1;
    for (let j = 0; j < ids.length; j++) {
      if (picked[j]) continue;
      sum += weights[j]!;
      if (sum > x) {
        k = j;
        break;
      }
    }
    if (ids[k] !== r.entryId)
      return fail(`position ${r.position}: the algorithm picks ${ids[k]}, the draw shows ${r.entryId}`);
    picked[k] = 1;
    remaining -= weights[k]!;
    log.push(`position ${r.position}: ${r.entryId}${r.replaced ? ' (replaced)' : ''} OK (u_${i - 1})`);
  }
  return { ok: true, log };
}

function parseArgs(argv: string[]) {
  const rest: string[] = [];
  let key = process.env.CONTEST_PUBLIC_KEY ?? process.env.CONTEST_API_KEY ?? '';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--key') key = argv[++i] ?? '';
    else rest.push(argv[i]!);
  }
  return { rest, key };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { rest, key } = parseArgs(process.argv.slice(2));
  if (rest.length !== 2 || !key) {
    console.error(
      'usage: npx tsx scripts/verify-draw.ts <base-url> <drawId> --key pk_...   (or CONTEST_PUBLIC_KEY=pk_...)',
    );
    process.exit(2);
  }
  verifyDraw(rest[0]!, rest[1]!, key).then(
    (out) => {
      for (const line of out.log) console.log(line);
      if (out.ok) console.log('OK');
      else console.log(`DIFFERENCE: ${out.difference}`);
      process.exit(out.ok ? 0 : 1);
    },
    (e) => {
      console.error(String(e));
      process.exit(2);
    },
  );
}
