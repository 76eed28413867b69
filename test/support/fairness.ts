/**
 * The published algorithms, computed independently of the server (node:crypto): a draw's picks
 * and an instant-win play's number; and a way for tests to make a play land where they want:
 * read the game's current seed from the database and search for a clientSeed whose number passes
 * `accept`. The Node suite and the workerd suite (nodejs_compat) both use them.
 */
import { createHash, createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../../src/db/client.js';

const TWO64 = 2n ** 64n;

/** u = first 8 bytes, big-endian unsigned, of HMAC-SHA256(key, msg) */
export function u64(key: Uint8Array, msg: string): bigint {
  return createHmac('sha256', key).update(msg, 'utf8').digest().readBigUInt64BE(0);
}

/**
 * A draw's picks, written from the published description: a plain walk over the remaining entries
 * of the snapshot, rejecting a biased u; replacements are further picks of the same stream.
 */
export function drawPicks(
  snapshot: { id: string; weight: bigint }[],
  seed: Uint8Array,
  snapshotHash: string,
  pr: string | null,
  picks: number,
) {
  const remaining = [...snapshot];
  let i = 0;
  const out: { id: string; streamIndex: number }[] = [];
  for (let p = 0; p < picks && remaining.length; p++) {
    const W = remaining.reduce((s, e) => s + e.weight, 0n);
    let u: bigint;
    for (;;) {
      u = u64(seed, `${snapshotHash}:${pr ?? ''}:${i}`);
      i++;
      if (u < TWO64 - (TWO64 % W)) break;
    }
    const x = u % W;
    let sum = 0n;
    const k = remaining.findIndex((e) => {
      sum += e.weight;
      return sum > x;
    });
    out.push({ id: remaining[k]!.id, streamIndex: i - 1 });
    remaining.splice(k, 1);
  }
  return out;
}

/** The play's number r in [0, 100) for (seed, gameId, clientSeed, nonce), rejection included. */
export function playNumber(seed: Uint8Array, gameId: string, clientSeed: string, nonce: number): number {
  const limit = TWO64 - (TWO64 % 100000000n);
  for (let i = 0; ; i++) {
    const u = u64(seed, `${gameId}:${clientSeed}:${nonce}:${i}`);
    if (u < limit) return Number(u % 100000000n) / 1000000;
  }
}

/** The default clientSeed of a play cookie: lower-case hex SHA-256 of the cookie. */
export const cookieClientSeed = (cookie: string) => createHash('sha256').update(cookie, 'utf8').digest('hex');

export async function currentSeed(db: Db, gameId: string): Promise<{ id: string; seed: Buffer }> {
  const row = await queryOne<{ id: string; seed: string }>(
    db,
    sql`select id, encode(seed, 'hex') as seed from instant_win_seeds where game_id = ${gameId} and revealed_at is null`,
  );
  if (!row) throw new Error(`no current seed for game ${gameId}`);
  return { id: row.id, seed: Buffer.from(row.seed, 'hex') };
}

/** The nonce the next play of this cookie will get under the game's current seed. */
export async function nextNonce(db: Db, gameId: string, cookieHash: string | null): Promise<number> {
  if (!cookieHash) return 1;
  const row = await queryOne<{ n: number }>(
    db,
    sql`select n.last_nonce as n from instant_win_nonces n join instant_win_seeds s on s.id = n.seed_id
        where s.game_id = ${gameId} and s.revealed_at is null and n.cookie_hash = ${cookieHash}`,
  );
  return (row?.n ?? 0) + 1;
}

/** A clientSeed whose number (under the current seed, at `nonce`) passes `accept`. */
export async function clientSeedFor(
  db: Db,
  gameId: string,
  nonce: number,
  accept: (r: number) => boolean,
  tries = 5_000_000,
): Promise<string> {
  const { seed } = await currentSeed(db, gameId);
  for (let k = 0; k < tries; k++) {
    const cs = `t${k}`;
    if (accept(playNumber(seed, gameId, cs, nonce))) return cs;
  }
  throw new Error('clientSeedFor: no clientSeed found');
}
