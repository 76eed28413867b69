/**
 * Giveaway draws: the published algorithm against fixed vectors and against an independent
 * reference implementation (node:crypto, a plain walk), weighting, eligibility filters,
 * excludePreviousWinners, replacement continuing the stream, rejection of a biased u, the
 * snapshot CSV and its hash (keyset pages), every error message and status, team scoping,
 * nothing changed by a refused request, and the verifier script confirming a real draw and
 * catching a tampered one.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { cryptoRandom, type RandomSource } from '../src/deps.js';
import { verifyDraw } from '../scripts/verify-draw.js';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

/** crypto randomness, except that queued 32-byte reads (draw seeds) return the bytes given */
const seedQueue: Uint8Array[] = [];
const random: RandomSource = { bytes: (n) => (n === 32 && seedQueue.length ? seedQueue.shift()! : cryptoRandom.bytes(n)) };

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv({ random });
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(async () => env?.close());

const MISSING = '00000000-0000-4000-8000-000000000000';
const TWO64 = 1n << 64n;

interface E {
  id: string;
  email?: string | null;
  phone?: string | null;
  name?: string | null;
  points?: number;
  confirmed?: boolean;
  disqualified?: boolean;
}
async function addEntries(contestId: string, list: E[]) {
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
const uuidN = (n: number, prefix = '0') => `${prefix.repeat(8 - String(n).length)}${n}`.slice(-8) + '-0000-4000-8000-' + String(n).padStart(12, '0');

/** the published algorithm, written here from its description (plain walk over remaining entries) */
function reference(snapshot: { id: string; weight: bigint }[], seed: Uint8Array, snapshotHash: string, pr: string | null, picks: number) {
  const remaining = [...snapshot];
  let i = 0;
  const out: { id: string; streamIndex: number }[] = [];
  for (let p = 0; p < picks && remaining.length; p++) {
    const W = remaining.reduce((s, e) => s + e.weight, 0n);
    let u: bigint;
    for (;;) {
      u = createHmac('sha256', seed).update(`${snapshotHash}:${pr ?? ''}:${i}`).digest().readBigUInt64BE(0);
      i++;
      if (u < TWO64 - (TWO64 % W)) break;
    }
    const x = u % W;
    let sum = 0n;
    const k = remaining.findIndex((e) => (sum += e.weight) > x);
    out.push({ id: remaining[k]!.id, streamIndex: i - 1 });
    remaining.splice(k, 1);
  }
  return out;
}
const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

const draw = (contestId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/draws`, { key, body });
const reveal = (drawId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/draws/${drawId}/reveal`, { key, body });
const replace = (drawId: string, entryId: string, body: Record<string, unknown> = { reason: 'did not answer' }, key = a.privateKey) =>
  env.request('POST', `/api/v1/draws/${drawId}/results/${entryId}/replace`, { key, body });
const snapshotCsv = async (drawId: string, key = a.publicKey) => env.request('GET', `/api/v1/draws/${drawId}/snapshot`, { key });
const state = async () =>
  query(env.db, sql`select (select count(*)::int from draws) as draws, (select count(*)::int from draw_entries) as entries,
                           (select count(*)::int from draw_results) as results,
                           (select coalesce(string_agg(status || stream_next, ',' order by id), '') from draws) as s,
                           (select coalesce(string_agg(entry_id::text || replaced, ',' order by draw_id, position), '') from draw_results) as r`);

describe('fixed vector', () => {
  it('seed 00..1f, four entries, public randomness: the published CSV, hashes and winners', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(c.id, [
      { id: 'c0000000-0000-4000-8000-000000000003', email: 'carol@example.com', points: 5 },
      { id: 'a0000000-0000-4000-8000-000000000001', email: 'ann@example.com', points: 1 },
      { id: 'b0000000-0000-4000-8000-000000000002', email: null, phone: '+15550100', points: 2 },
      { id: 'd0000000-0000-4000-8000-000000000004', email: 'dan@example.com', points: 3 },
    ]);
    seedQueue.push(Uint8Array.from({ length: 32 }, (_, i) => i));
    const created = await draw(c.id, { winners: 2, weighting: 'points', label: 'Grand prize' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const csv =
      'entry_id,weight,email_sha256\n' +
      `a0000000-0000-4000-8000-000000000001,1,${sha256('ann@example.com')}\n` +
      'b0000000-0000-4000-8000-000000000002,2,\n' +
      `c0000000-0000-4000-8000-000000000003,5,${sha256('carol@example.com')}\n` +
      `d0000000-0000-4000-8000-000000000004,3,${sha256('dan@example.com')}\n`;
    expect(sha256('ann@example.com')).toBe('71d4f55f72fa128dfb468a1a3901507c804b74316488744d769d7f4b16696476');
    const snap = await snapshotCsv(created.body.data.id);
    expect(snap.status).toBe(200);
    expect(snap.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(snap.text).toBe(csv);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      contestId: c.id,
      label: 'Grand prize',
      status: 'committed',
      winners: 2,
      weighting: 'points',
      confirmedOnly: true,
      minPoints: 0,
      excludePreviousWinners: true,
      eligibleCount: 4,
      totalWeight: 11,
      snapshotHash: sha256(csv),
      seedHash: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
      seed: null,
      publicRandomness: null,
      createdAt: expect.any(String),
      revealedAt: null,
      results: [],
    });
    expect(sha256(csv)).toBe(FIXED_SNAPSHOT_HASH);
    const r = await reveal(created.body.data.id, { publicRandomness: 'drand 1234: 5f2c' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      status: 'revealed',
      seed: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
      publicRandomness: 'drand 1234: 5f2c',
      revealedAt: expect.any(String),
    });
    expect(r.body.data.results.map((x: { entryId: string }) => x.entryId)).toEqual(FIXED_WINNERS);
    expect(r.body.data.results[0]).toEqual({
      position: 1,
      entryId: FIXED_WINNERS[0],
      email: expect.anything(),
      name: null,
      weight: expect.any(Number),
      replaced: false,
      replacedReason: null,
    });
    // the same through the reference implementation
    const snapshot = csv.trim().split('\n').slice(1).map((l) => ({ id: l.split(',')[0]!, weight: BigInt(l.split(',')[1]!) }));
    expect(reference(snapshot, Uint8Array.from({ length: 32 }, (_, i) => i), sha256(csv), 'drand 1234: 5f2c', 2).map((x) => x.id)).toEqual(FIXED_WINNERS);
    // replacing the first winner continues the stream: u_2 picks c...3
    const rep = await replace(created.body.data.id, FIXED_WINNERS[0]!, { reason: 'Prize declined' });
    expect(rep.status, JSON.stringify(rep.body)).toBe(200);
    expect(rep.body.data.results.map((x: Record<string, unknown>) => [x.position, x.entryId, x.weight, x.replaced, x.replacedReason])).toEqual([
      [1, 'd0000000-0000-4000-8000-000000000004', 3, true, 'Prize declined'],
      [2, 'b0000000-0000-4000-8000-000000000002', 2, false, null],
      [3, 'c0000000-0000-4000-8000-000000000003', 5, false, null],
    ]);
    // the phone-only winner shows no email; the others theirs
    expect(rep.body.data.results[1].email).toBeNull();
    expect(rep.body.data.results[2].email).toBe('carol@example.com');
  });
});
// u_0 = 3818097097963080568, W = 11, x = 9: running sums 1, 3, 8, 11: d...4 (the 4th entry)
// u_1 = 7062257972638325969, W = 8, x = 1: running sums 1, 3: b...2
// u_2 = 16032814546576155965, W = 6, x = 5: running sums 1, 6: c...3 (the replacement)
const FIXED_SNAPSHOT_HASH = '5841098a5a55adfdb49e910b4d48114fc6e45e69e681ab0116d96893e5473e8f';
const FIXED_WINNERS = ['d0000000-0000-4000-8000-000000000004', 'b0000000-0000-4000-8000-000000000002'];
