/**
 * Re-checks the instant-win plays of one revealed server seed, with its own implementation of
 * the published number (docs/fairness.md): it imports nothing of the server.
 *
 *   npx tsx scripts/verify-plays.ts <base-url> <gameId> <seedId> [--key sk_...]   (or CONTEST_PRIVATE_KEY=sk_...)
 *
 * The plays log needs the team's private key. Checks seedHash (SHA-256 of the revealed seed),
 * that no device skipped a nonce (each numbers its plays 1, 2, 3...), and recomputes every play's
 * number and drawn tier from the seed's tiers. Prints OK, or the first difference (exit code 1).
 */
import { createHash, createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { VerifyOutcome } from './verify-draw.js';

interface Seed {
  seedId: string;
  seedHash: string;
  seed: string | null;
  plays: number;
  tiers: { id: string; name: string; oddsPercent: number }[];
}
interface Play {
  id: string;
  seedId: string | null;
  clientSeed: string | null;
  nonce: number | null;
  drawnTier: { id: string; name: string } | null;
  createdAt: string;
}

const TWO64 = 1n << 64n;
const LIMIT = TWO64 - (TWO64 % 100000000n);

/** r in [0, 100) of a play */
export function playNumber(seed: Buffer, gameId: string, clientSeed: string, nonce: number): number {
  for (let i = 0; ; i++) {
    const u = createHmac('sha256', seed)
      .update(`${gameId}:${clientSeed}:${nonce}:${i}`, 'utf8')
      .digest()
      .readBigUInt64BE(0);
    if (u < LIMIT) return Number(u % 100000000n) / 1000000;
  }
}

/** the tier r draws: the first whose running sum of oddsPercent exceeds r, else the last with positive odds */
export function drawnTier<T extends { oddsPercent: number }>(r: number, tiers: readonly T[]): T | undefined {
  let sum = 0;
  let lastPositive: T | undefined;
  for (const t of tiers) {
    sum += t.oddsPercent;
    if (t.oddsPercent > 0) lastPositive = t;
    if (r < sum) return t;
  }
  return lastPositive;
}

export async function verifyPlays(base: string, gameId: string, seedId: string, key: string): Promise<VerifyOutcome> {
  const log: string[] = [];
  const fail = (difference: string): VerifyOutcome => ({ ok: false, log, difference });
  const get = async (path: string) => {
    const res = await fetch(new URL(path, base), { headers: { 'x-api-key': key } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown; pagination?: { totalPages: number } };
  };
  const seeds = (await get(`/api/v1/instant-win-games/${gameId}/fairness/seeds`)).data as Seed[];
  const s = seeds.find((x) => x.seedId === seedId);
  if (!s) return fail(`seed ${seedId} is not a seed of game ${gameId}`);
  if (!s.seed) return fail(`seed ${seedId} is still the current one: rotate it to reveal it first`);
  const seed = Buffer.from(s.seed, 'hex');
  const hash = createHash('sha256').update(seed).digest('hex');
  if (hash !== s.seedHash)
    return fail(`seedHash: SHA-256 of the revealed seed is ${hash}, the commitment was ${s.seedHash}`);
  log.push(
    `seedHash ${hash} matches the revealed seed; tiers: ${s.tiers.map((t) => `${t.name} ${t.oddsPercent}%`).join(', ')}`,
  );

  const plays: Play[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`/api/v1/instant-win-games/${gameId}/plays?limit=100&page=${page}`);
    plays.push(...(res.data as Play[]));
    if (page >= (res.pagination?.totalPages ?? 1)) break;
  }
  const mine = plays.filter((p) => p.seedId === seedId).reverse();
  if (mine.length !== s.plays)
    return fail(`plays: the log has ${mine.length} plays of this seed, the seed says ${s.plays}`);
  const clientSeeds = new Set<string>();
  const count = new Map<number, number>();
  for (const p of mine) {
    const r = playNumber(seed, gameId.toLowerCase(), p.clientSeed!, p.nonce!);
    const tier = drawnTier(r, s.tiers);
    if (tier?.id !== p.drawnTier?.id) {
      return fail(
        `play ${p.id} (clientSeed ${p.clientSeed}, nonce ${p.nonce}): r = ${r} draws ${tier?.name ?? 'nothing'}, the log shows ${p.drawnTier?.name ?? 'nothing'}`,
      );
    }
    clientSeeds.add(p.clientSeed!);
    count.set(p.nonce!, (count.get(p.nonce!) ?? 0) + 1);
  }
  // Every device (playCookie) numbers its plays under a seed 1, 2, 3..., whatever clientSeed each
  // play used. The log does not show cookies, so what can be checked is the sum over devices:
  // nonce n is never used more often than nonce n - 1 (no device skipped a number).
  for (const [n, c] of [...count].sort((x, y) => x[0] - y[0])) {
    if (n < 1 || (n > 1 && (count.get(n - 1) ?? 0) < c))
      return fail(`nonces: ${n} used ${c} times, ${n - 1} only ${count.get(n - 1) ?? 0} (a device skipped a number)`);
  }
  log.push(
    `${mine.length} plays recomputed (${clientSeeds.size} client seeds, ${count.get(1) ?? 0} devices): every drawn tier matches, no nonce skipped`,
  );
  return { ok: true, log };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  let key = process.env.CONTEST_PRIVATE_KEY ?? process.env.CONTEST_API_KEY ?? '';
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--key') key = args[++i] ?? '';
    else rest.push(args[i]!);
  }
  if (rest.length !== 3 || !key) {
    console.error(
      'usage: npx tsx scripts/verify-plays.ts <base-url> <gameId> <seedId> --key sk_...   (or CONTEST_PRIVATE_KEY=sk_...)',
    );
    process.exit(2);
  }
  verifyPlays(rest[0]!, rest[1]!, rest[2]!, key).then(
    (out) => {
      for (const line of out.log) console.log(line);
      console.log(out.ok ? 'OK' : `DIFFERENCE: ${out.difference}`);
      process.exit(out.ok ? 0 : 1);
    },
    (e) => {
      console.error(String(e));
      process.exit(2);
    },
  );
}
