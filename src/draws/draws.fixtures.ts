/**
 * Giveaway draws: the published algorithm against fixed vectors and against an independent
 * reference implementation (node:crypto, a plain walk), weighting, eligibility filters,
 * excludePreviousWinners, replacement continuing the stream, rejection of a biased u, the
 * snapshot CSV and its hash (keyset pages), every error message and status, team scoping,
 * nothing changed by a refused request, and the verifier script confirming a real draw and
 * catching a tampered one.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query } from '../db/client.js';
import { cryptoRandom, type RandomSource } from '../deps.js';

/** crypto randomness, except that queued 32-byte reads (draw seeds) return the bytes given */
export const seedQueue: Uint8Array[] = [];
export const random: RandomSource = {
  bytes: (n) => (n === 32 && seedQueue.length ? seedQueue.shift()! : cryptoRandom.bytes(n)),
};

export let env: TestEnv;
export let a: TeamFixture;
export let b: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv({ random });
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(async () => env?.close());

export const MISSING = '00000000-0000-4000-8000-000000000000';
export const TWO64 = 1n << 64n;

export interface E {
  id: string;
  email?: string | null;
  phone?: string | null;
  name?: string | null;
  points?: number;
  confirmed?: boolean;
  disqualified?: boolean;
}
export async function addEntries(contestId: string, list: E[]) {
  const rows = list.map((e, i) => ({
    id: e.id,
    email: e.email === undefined ? `${e.id.slice(0, 8)}@example.com` : e.email,
    phone: e.phone ?? null,
    name: e.name ?? null,
    points: e.points ?? 0,
    confirmed: e.confirmed ?? true,
    disqualified: e.disqualified ?? false,
    code: `R${contestId.slice(0, 6)}${e.id.replace(/-/g, '').slice(0, 20)}${i}`,
  }));
  await query(
    env.db,
    sql`insert into entries (id, contest_id, email, phone, name, referral_code, points, email_confirmed, disqualified)
        select x.id, ${contestId}::uuid, x.email, x.phone, x.name, x.code, x.points, x.confirmed, x.disqualified
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, email text, phone text, name text, code text, points int, confirmed boolean, disqualified boolean)`,
  );
}
export const uuidN = (n: number, prefix = '0') =>
  `${`${prefix.repeat(8 - String(n).length)}${n}`.slice(-8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

export const draw = (contestId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/draws`, { key, body });
export const reveal = (drawId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/draws/${drawId}/reveal`, { key, body });
export const replace = (
  drawId: string,
  entryId: string,
  body: Record<string, unknown> = { reason: 'did not answer' },
  key = a.privateKey,
) => env.request('POST', `/api/v1/draws/${drawId}/results/${entryId}/replace`, { key, body });
export const snapshotCsv = async (drawId: string, key = a.publicKey) =>
  env.request('GET', `/api/v1/draws/${drawId}/snapshot`, { key });
export const state = async () =>
  query(
    env.db,
    sql`select (select count(*)::int from draws) as draws, (select count(*)::int from draw_blocks) as blocks,
                           (select count(*)::int from draw_results) as results,
                           (select coalesce(string_agg(status || stream_next, ',' order by id), '') from draws) as s,
                           (select coalesce(string_agg(entry_id::text || replaced, ',' order by draw_id, position), '') from draw_results) as r`,
  );

// u_0 = 3818097097963080568, W = 11, x = 9: running sums 1, 3, 8, 11: d...4 (the 4th entry)
// u_1 = 7062257972638325969, W = 8, x = 1: running sums 1, 3: b...2
// u_2 = 16032814546576155965, W = 6, x = 5: running sums 1, 6: c...3 (the replacement)
export const FIXED_SNAPSHOT_HASH = '5841098a5a55adfdb49e910b4d48114fc6e45e69e681ab0116d96893e5473e8f';
export const FIXED_WINNERS = ['d0000000-0000-4000-8000-000000000004', 'b0000000-0000-4000-8000-000000000002'];

/** the snapshot of a draw as the reference needs it */
export async function snapshotOf(drawId: string) {
  const text = (await snapshotCsv(drawId)).text;
  return {
    text,
    rows: text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => ({ id: l.split(',')[0]!, weight: BigInt(l.split(',')[1]!) })),
  };
}
