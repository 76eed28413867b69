/**
 * Giveaway draws: the published algorithm against fixed vectors and against an independent
 * reference implementation (node:crypto, a plain walk), weighting, eligibility filters,
 * excludePreviousWinners, replacement continuing the stream, rejection of a biased u, the
 * snapshot CSV and its hash (keyset pages), every error message and status, team scoping,
 * nothing changed by a refused request, and the verifier script confirming a real draw and
 * catching a tampered one.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../db/client.js';
import { cryptoRandom, type RandomSource } from '../deps.js';
import { createApiKey } from '../admin/admin.js';
import { verifyDraw } from '../../scripts/verify-draw.js';
import { drawPicks, u64 } from '../../test/support/fairness.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

/** crypto randomness, except that queued 32-byte reads (draw seeds) return the bytes given */
const seedQueue: Uint8Array[] = [];
const random: RandomSource = {
  bytes: (n) => (n === 32 && seedQueue.length ? seedQueue.shift()! : cryptoRandom.bytes(n)),
};

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
const uuidN = (n: number, prefix = '0') =>
  `${`${prefix.repeat(8 - String(n).length)}${n}`.slice(-8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;

const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

const draw = (contestId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/draws`, { key, body });
const reveal = (drawId: string, body: Record<string, unknown> = {}, key = a.privateKey) =>
  env.request('POST', `/api/v1/draws/${drawId}/reveal`, { key, body });
const replace = (
  drawId: string,
  entryId: string,
  body: Record<string, unknown> = { reason: 'did not answer' },
  key = a.privateKey,
) => env.request('POST', `/api/v1/draws/${drawId}/results/${entryId}/replace`, { key, body });
const snapshotCsv = async (drawId: string, key = a.publicKey) =>
  env.request('GET', `/api/v1/draws/${drawId}/snapshot`, { key });
const state = async () =>
  query(
    env.db,
    sql`select (select count(*)::int from draws) as draws, (select count(*)::int from draw_blocks) as blocks,
                           (select count(*)::int from draw_results) as results,
                           (select coalesce(string_agg(status || stream_next, ',' order by id), '') from draws) as s,
                           (select coalesce(string_agg(entry_id::text || replaced, ',' order by draw_id, position), '') from draw_results) as r`,
  );

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
    const snapshot = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => ({ id: l.split(',')[0]!, weight: BigInt(l.split(',')[1]!) }));
    expect(
      drawPicks(
        snapshot,
        Uint8Array.from({ length: 32 }, (_, i) => i),
        sha256(csv),
        'drand 1234: 5f2c',
        2,
      ).map((x) => x.id),
    ).toEqual(FIXED_WINNERS);
    // replacing the first winner continues the stream: u_2 picks c...3
    const rep = await replace(created.body.data.id, FIXED_WINNERS[0]!, { reason: 'Prize declined' });
    expect(rep.status, JSON.stringify(rep.body)).toBe(200);
    expect(
      rep.body.data.results.map((x: Record<string, unknown>) => [
        x.position,
        x.entryId,
        x.weight,
        x.replaced,
        x.replacedReason,
      ]),
    ).toEqual([
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

/** the snapshot of a draw as the reference needs it */
async function snapshotOf(drawId: string) {
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

describe('the algorithm against the reference implementation', () => {
  it('equal and points weighting, many winners, with and without public randomness', async () => {
    const c = await env.contest(a.teamId);
    const list: E[] = [];
    for (let i = 0; i < 60; i++) list.push({ id: crypto.randomUUID(), points: (i * 7) % 13 });
    await addEntries(c.id, list);
    for (const [weighting, pr, winners] of [
      ['equal', null, 10],
      ['points', 'round 42', 25],
      ['points', null, 100],
    ] as const) {
      const created = await draw(c.id, { weighting, winners, excludePreviousWinners: false });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const eligible = list.filter((e) => weighting === 'equal' || (e.points ?? 0) > 0);
      expect(created.body.data.eligibleCount).toBe(eligible.length);
      expect(created.body.data.totalWeight).toBe(
        weighting === 'equal' ? eligible.length : eligible.reduce((s, e) => s + (e.points ?? 0), 0),
      );
      const snap = await snapshotOf(created.body.data.id);
      expect(sha256(snap.text)).toBe(created.body.data.snapshotHash);
      expect(snap.rows.map((r) => r.id)).toEqual(eligible.map((e) => e.id).sort());
      const revealed = (await reveal(created.body.data.id, pr ? { publicRandomness: pr } : {})).body.data;
      expect(sha256(Buffer.from(revealed.seed, 'hex'))).toBe(created.body.data.seedHash);
      const expected = drawPicks(snap.rows, Buffer.from(revealed.seed, 'hex'), revealed.snapshotHash, pr, winners);
      expect(expected).toHaveLength(Math.min(winners, eligible.length));
      expect(revealed.results.map((r: { entryId: string }) => r.entryId)).toEqual(expected.map((x) => x.id));
      expect(revealed.results.map((r: { position: number }) => r.position)).toEqual(expected.map((_, i) => i + 1));
      const streamIdx = await query<{ stream_index: number }>(
        env.db,
        sql`select stream_index from draw_results where draw_id = ${revealed.id} order by position`,
      );
      expect(streamIdx.map((r) => r.stream_index)).toEqual(expected.map((x) => x.streamIndex));
    }
  });

  it('points weighting gives chances proportional to points (the SQL walk, 400 single-winner draws)', async () => {
    const c = await env.contest(a.teamId);
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    await addEntries(c.id, [
      { id: ids[0]!, points: 1 },
      { id: ids[1]!, points: 3 },
    ]);
    let heavy = 0;
    for (let k = 0; k < 400; k++) {
      const created = await draw(c.id, { weighting: 'points', excludePreviousWinners: false });
      const revealed = (await reveal(created.body.data.id)).body.data;
      if (revealed.results[0].entryId === ids[1]) heavy++;
    }
    // expected 300 of 400 (sd ~8.7): within 4.5 sd
    expect(Math.abs(heavy - 300)).toBeLessThan(39);
  }, 120_000);

  it('a rejected u is really skipped: W = 2^62 + 1 rejects about one u in four', async () => {
    // a crafted draw (weights far beyond what points reach) revealed by the real SQL path
    const c = await env.contest(a.teamId);
    const seed = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const w1 = 2n ** 61n;
    const w2 = 2n ** 61n + 1n;
    const W = w1 + w2;
    const limit = TWO64 - (TWO64 % W);
    const u = (h: string, i: number) => u64(seed, `${h}::${i}`);
    // a snapshot hash whose u_0 is rejected, and where u_0 mod W and u_1 mod W pick different entries
    let hash = '';
    for (let k = 0; ; k++) {
      const h = sha256(`crafted ${k}`);
      const u0 = u(h, 0);
      const u1 = u(h, 1);
      if (u0 >= limit && u1 < limit && u0 % W < w1 !== u1 % W < w1) {
        hash = h;
        break;
      }
    }
    const ids = ['10000000-0000-4000-8000-000000000001', '20000000-0000-4000-8000-000000000002'];
    const drawId = crypto.randomUUID();
    const ipad = Buffer.alloc(64, 0x36);
    const opad = Buffer.alloc(64, 0x5c);
    seed.forEach((x, i) => {
      ipad[i] = x ^ 0x36;
      opad[i] = x ^ 0x5c;
    });
    await query(
      env.db,
      sql`insert into draws (id, team_id, contest_id, status, winners, weighting, confirmed_only, min_points, exclude_previous_winners,
                             eligible_count, total_weight, snapshot_hash, seed, seed_hash, hmac_ipad, hmac_opad)
          values (${drawId}, ${a.teamId}, ${c.id}, 'committed', 1, 'points', true, 0, false, 2, ${W.toString()}::bigint, ${hash},
                  decode(${Buffer.from(seed).toString('hex')}, 'hex'), ${sha256(seed)}, decode(${ipad.toString('hex')}, 'hex'), decode(${opad.toString('hex')}, 'hex'))`,
    );
    const csv = `entry_id,weight,email_sha256\n${ids[0]},${w1},\n${ids[1]},${w2},\n`;
    await query(
      env.db,
      sql`insert into draw_blocks (draw_id, cum_end, cum_start, lines)
          values (${drawId}, ${W.toString()}::bigint, 0, ${csv.slice(29)})`,
    );
    const r = await reveal(drawId);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const u1 = u(hash, 1);
    expect(r.body.data.results.map((x: { entryId: string }) => x.entryId)).toEqual([u1 % W < w1 ? ids[0] : ids[1]]);
    const idx = await queryOne<{ stream_index: number }>(
      env.db,
      sql`select stream_index from draw_results where draw_id = ${drawId}`,
    );
    expect(idx!.stream_index).toBe(1);
  });
});

describe('eligibility', () => {
  it('filters: disqualified, unconfirmed, minPoints, zero points with points weighting; frozen at commit', async () => {
    const c = await env.contest(a.teamId);
    const ok1 = uuidN(1, 'e');
    const ok2 = uuidN(2, 'e');
    const dq = uuidN(3, 'e');
    const unconf = uuidN(4, 'e');
    const low = uuidN(5, 'e');
    const zero = uuidN(6, 'e');
    await addEntries(c.id, [
      { id: ok1, points: 10 },
      { id: ok2, points: 4 },
      { id: dq, points: 50, disqualified: true },
      { id: unconf, points: 9, confirmed: false },
      { id: low, points: 1 },
      { id: zero, points: 0 },
    ]);
    const ids = async (body: Record<string, unknown>) =>
      (await snapshotOf((await draw(c.id, { excludePreviousWinners: false, ...body })).body.data.id)).rows.map(
        (r) => r.id,
      );
    expect(await ids({})).toEqual([ok1, ok2, low, zero].sort());
    expect(await ids({ confirmedOnly: false })).toEqual([ok1, ok2, unconf, low, zero].sort());
    expect(await ids({ minPoints: 4 })).toEqual([ok1, ok2].sort());
    expect(await ids({ weighting: 'points' })).toEqual([ok1, ok2, low].sort());
    // frozen: an entry disqualified after the commit stays in the snapshot and may be picked
    const d = (await draw(c.id, { winners: 100, excludePreviousWinners: false })).body.data;
    await query(env.db, sql`update entries set disqualified = true where id = ${ok1}`);
    const revealed = (await reveal(d.id)).body.data;
    expect(revealed.results.map((r: { entryId: string }) => r.entryId).sort()).toEqual([ok1, ok2, low, zero].sort());
    expect(await ids({})).toEqual([ok2, low, zero].sort());
  });

  it('excludePreviousWinners: current winners of draws revealed before the commit are left out (replaced ones come back)', async () => {
    const c = await env.contest(a.teamId);
    const list = [uuidN(1, 'f'), uuidN(2, 'f'), uuidN(3, 'f'), uuidN(4, 'f')];
    await addEntries(
      c.id,
      list.map((id) => ({ id })),
    );
    const first = (await draw(c.id, { winners: 2 })).body.data;
    const committedBefore = (await draw(c.id, { winners: 1 })).body.data; // committed before the reveal
    const won = (await reveal(first.id)).body.data.results.map((r: { entryId: string }) => r.entryId) as string[];
    expect(committedBefore.eligibleCount).toBe(4);
    const second = (await draw(c.id, { winners: 4 })).body.data;
    expect(second.eligibleCount).toBe(2);
    expect((await snapshotOf(second.id)).rows.map((r) => r.id)).toEqual(list.filter((id) => !won.includes(id)));
    expect((await draw(c.id, { excludePreviousWinners: false })).body.data.eligibleCount).toBe(4);
    // a replaced winner is no longer a current winner
    const rep = (await replace(first.id, won[0]!)).body.data;
    const now = rep.results
      .filter((r: { replaced: boolean }) => !r.replaced)
      .map((r: { entryId: string }) => r.entryId) as string[];
    const third = (await draw(c.id)).body.data;
    expect((await snapshotOf(third.id)).rows.map((r) => r.id)).toEqual(list.filter((id) => !now.includes(id)));
    // another contest's winners do not count
    const other = await env.contest(a.teamId);
    await addEntries(other.id, [{ id: uuidN(9, 'f') }]);
    expect((await draw(other.id)).body.data.eligibleCount).toBe(1);
  });
});

describe('erasure, masked keys, the draw.revealed event', () => {
  it('an erased entry is not eligible; erased after the commit it stays in the snapshot, and as a winner shows no email or name', async () => {
    const c = await env.contest(a.teamId);
    const [x, y, z] = [uuidN(1, 'a9'), uuidN(2, 'a9'), uuidN(3, 'a9')];
    await addEntries(c.id, [
      { id: x, email: 'xavier@example.com', name: 'Xavier Lane' },
      { id: y, email: 'yara@example.com', name: 'Yara Holt' },
      { id: z, email: 'zoe@example.com', name: 'Zoe Park' },
    ]);
    const erase = async (id: string) =>
      expect((await env.request('DELETE', `/api/v1/entries/${id}`, { key: a.privateKey })).status).toBe(200);
    await erase(z);
    const d = (await draw(c.id, { winners: 2, excludePreviousWinners: false })).body.data;
    expect(d.eligibleCount).toBe(2);
    const before = (await snapshotOf(d.id)).text;
    expect(before).toBe(
      `entry_id,weight,email_sha256\n${x},1,${sha256('xavier@example.com')}\n${y},1,${sha256('yara@example.com')}\n`,
    );
    await erase(x);
    const r = (await reveal(d.id)).body.data;
    // both remaining lines are picked (two winners); the erased one shows null email and name
    const byId = Object.fromEntries(r.results.map((w: { entryId: string }) => [w.entryId, w]));
    expect(byId[x]).toMatchObject({ email: null, name: null, weight: 1, replaced: false });
    expect(byId[y]).toMatchObject({ email: 'yara@example.com', name: 'Yara Holt' });
    // the published snapshot still has the erased entry's line and hash: snapshotHash still holds
    expect((await snapshotOf(d.id)).text).toBe(before);
    expect(sha256(before)).toBe(d.snapshotHash);
    expect((await draw(c.id, { excludePreviousWinners: false })).body.data.eligibleCount).toBe(1);
  });

  it('a masked public key sees the winners masked (the draw otherwise unchanged); a full key sees them whole', async () => {
    const c = await env.contest(a.teamId);
    const id = uuidN(1, 'a8');
    await addEntries(c.id, [{ id, email: 'marguerite@example.com', name: 'Marguerite Anne Duval' }]);
    const d = (await draw(c.id, { excludePreviousWinners: false })).body.data;
    await reveal(d.id);
    const masked = (await createApiKey(env.db, cryptoRandom, a.teamId, 'public', 'page', 'masked')).key;
    const full = await env.request('GET', `/api/v1/draws/${d.id}`, { key: a.publicKey });
    const seen = await env.request('GET', `/api/v1/draws/${d.id}`, { key: masked });
    expect(full.body.data.results[0]).toMatchObject({
      entryId: id,
      email: 'marguerite@example.com',
      name: 'Marguerite Anne Duval',
    });
    expect(seen.status).toBe(200);
    expect(seen.body.data).toEqual({
      ...full.body.data,
      results: [{ ...full.body.data.results[0], email: 'm***@example.com', name: 'Marguerite D.' }],
    });
    // the snapshot has no personal data beyond the email hash: the same bytes for both keys
    expect((await snapshotCsv(d.id, masked)).text).toBe((await snapshotCsv(d.id)).text);
  });

  it('the reveal records one draw.revealed event with the draw (drawId, seed, winners) in the same transaction; a refused reveal records none', async () => {
    const team = await env.team('events');
    const sent: { type: string; contestId: string; data: Record<string, unknown> }[] = [];
    const saved = env.deps.fetch;
    env.deps.fetch = async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)));
      return new Response('ok');
    };
    try {
      const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
        key: team.privateKey,
        body: { url: 'https://hooks.example.test/draws', events: ['draw.revealed'] },
      });
      expect(ep.status, JSON.stringify(ep.body)).toBe(201);
      const c = await env.contest(team.teamId);
      await addEntries(c.id, [
        { id: uuidN(1, 'a7'), email: 'wendy@example.com', name: 'Wendy Ng' },
        { id: uuidN(2, 'a7') },
      ]);
      const d = (await draw(c.id, { winners: 1, label: 'A bike' }, team.privateKey)).body.data;
      const r = await reveal(d.id, { publicRandomness: 'drand 123' }, team.privateKey);
      expect(r.status).toBe(200);
      expect((await reveal(d.id, {}, team.privateKey)).status).toBe(409);
      await env.settle();
      const events = await query<{ type: string; contest_id: string; data: Record<string, unknown> }>(
        env.db,
        sql`select type, contest_id, data from events where team_id = ${team.teamId} order by created_at`,
      );
      const { id: drawId, ...rest } = r.body.data;
      expect(events).toEqual([{ type: 'draw.revealed', contest_id: c.id, data: { drawId, ...rest } }]);
      expect(sent).toMatchObject([{ type: 'draw.revealed', contestId: c.id, data: { drawId, ...rest } }]);
    } finally {
      env.deps.fetch = saved;
    }
  });
});

describe('errors, statuses, scoping', () => {
  it('every refusal answers its status and message and changes nothing', async () => {
    const c = await env.contest(a.teamId);
    const empty = await env.contest(a.teamId);
    const ids = [uuidN(1, 'a1'), uuidN(2, 'a1')];
    await addEntries(
      c.id,
      ids.map((id) => ({ id })),
    );
    const d = (await draw(c.id, { winners: 1 })).body.data;
    const before = await state();
    const cases: [Promise<{ status: number; body: unknown }>, number, string][] = [
      [draw(MISSING), 404, 'Contest not found'],
      [draw('not-a-uuid'), 404, 'Contest not found'],
      [draw(c.id, {}, b.privateKey), 404, 'Contest not found'],
      [draw(empty.id), 409, 'No eligible entries'],
      [draw(c.id, {}, a.publicKey), 403, 'This endpoint requires a private API key'],
      [draw(c.id, { winners: 0 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { winners: 101 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { winners: 1.5 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { weighting: 'votes' }), 400, 'weighting must be equal or points'],
      [draw(c.id, { confirmedOnly: 'yes' }), 400, 'confirmedOnly must be true or false'],
      [draw(c.id, { minPoints: -1 }), 400, 'minPoints must be an integer >= 0'],
      [draw(c.id, { excludePreviousWinners: 1 }), 400, 'excludePreviousWinners must be true or false'],
      [draw(c.id, { label: 'x'.repeat(201) }), 400, 'label must be at most 200 characters'],
      [reveal(MISSING), 404, 'Draw not found'],
      [reveal('nope'), 404, 'Draw not found'],
      [reveal(d.id, {}, b.privateKey), 404, 'Draw not found'],
      [reveal(d.id, {}, a.publicKey), 403, 'This endpoint requires a private API key'],
      [reveal(d.id, { publicRandomness: '' }), 400, 'publicRandomness must be 1 to 512 printable ASCII characters'],
      [
        reveal(d.id, { publicRandomness: 'x'.repeat(513) }),
        400,
        'publicRandomness must be 1 to 512 printable ASCII characters',
      ],
      [
        reveal(d.id, { publicRandomness: 'tab\there' }),
        400,
        'publicRandomness must be 1 to 512 printable ASCII characters',
      ],
      [reveal(d.id, { publicRandomness: 'café' }), 400, 'publicRandomness must be 1 to 512 printable ASCII characters'],
      [replace(d.id, ids[0]!), 409, 'Draw is not revealed'],
      [replace(d.id, 'not-an-entry'), 409, 'Draw is not revealed'],
      [replace(d.id, ids[0]!, {}), 400, 'reason is required'],
      [replace(d.id, ids[0]!, { reason: '' }), 400, 'reason must be 1 to 500 characters'],
      [replace(d.id, ids[0]!, { reason: 'x'.repeat(501) }), 400, 'reason must be 1 to 500 characters'],
      [replace(MISSING, ids[0]!), 404, 'Draw not found'],
      [replace(d.id, ids[0]!, undefined, b.privateKey), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${d.id}`, { key: b.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${MISSING}`, { key: a.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${d.id}/snapshot`, { key: b.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/x/snapshot`, { key: a.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/contests/${c.id}/draws`, { key: b.privateKey }), 404, 'Contest not found'],
      [
        env.request('GET', `/api/v1/contests/${c.id}/draws`, { key: a.publicKey }),
        403,
        'This endpoint requires a private API key',
      ],
      [
        env.request('GET', `/api/v1/contests/${c.id}/draws?limit=0`, { key: a.privateKey }),
        400,
        'limit must be between 1 and 100',
      ],
      [env.request('GET', `/api/v1/draws/${d.id}`, {}), 401, 'Missing or invalid API key'],
    ];
    for (const [p, status, error] of cases) {
      const r = await p;
      expect([r.status, r.body]).toEqual([status, { success: false, error }]);
    }
    expect(await state()).toEqual(before);
    // revealed: again is refused; winner checks; no entry left
    const revealed = (await reveal(d.id)).body.data;
    const after = await state();
    for (const [p, status, error] of [
      [reveal(d.id), 409, 'Draw already revealed'],
      [replace(d.id, MISSING), 404, 'Winner not found'],
      [replace(d.id, 'not-a-uuid'), 404, 'Winner not found'],
      [replace(d.id, ids.find((x) => x !== revealed.results[0].entryId)!), 404, 'Winner not found'],
    ] as const) {
      const r = await p;
      expect([r.status, r.body]).toEqual([status, { success: false, error }]);
    }
    expect(await state()).toEqual(after);
    const once = (await replace(d.id, revealed.results[0].entryId)).body.data;
    expect(once.results).toHaveLength(2);
    const twice = await replace(d.id, revealed.results[0].entryId);
    expect([twice.status, twice.body]).toEqual([404, { success: false, error: 'Winner not found' }]);
    const beforeLast = await state();
    const last = await replace(d.id, once.results[1].entryId);
    expect([last.status, last.body]).toEqual([409, { success: false, error: 'No eligible entries' }]);
    expect(await state()).toEqual(beforeLast);
  });

  it('get (public key), list (private, newest first, paginated)', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(c.id, [{ id: uuidN(1, 'b2') }]);
    const made = [];
    for (let i = 0; i < 3; i++) {
      env.clock.advance(1000);
      made.push((await draw(c.id, { label: `prize ${i}`, excludePreviousWinners: false })).body.data);
    }
    const got = await env.request('GET', `/api/v1/draws/${made[0].id}`, { key: a.publicKey });
    expect([got.status, got.body]).toEqual([200, { success: true, data: made[0] }]);
    const list = await env.request('GET', `/api/v1/contests/${c.id}/draws?limit=2`, { key: a.privateKey });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(list.body.data).toEqual([made[2], made[1]]);
    const p2 = await env.request('GET', `/api/v1/contests/${c.id}/draws?limit=2&page=2`, { key: a.privateKey });
    expect(p2.body.data).toEqual([made[0]]);
    expect(p2.body.data[0].seed).toBeNull();
  });
});

describe('snapshot CSV', () => {
  it('streams in keyset pages: 45,000 lines, hash of the whole body = snapshotHash', async () => {
    const c = await env.contest(a.teamId);
    await query(
      env.db,
      sql`insert into entries (contest_id, email, referral_code, points, email_confirmed)
          select ${c.id}::uuid, 'bulk' || g || '@example.com', 'BULK' || replace(${c.id}::text, '-', '') || g, g % 5, true
          from generate_series(1, 45000) g`,
    );
    const d = (await draw(c.id, { weighting: 'points' })).body.data;
    expect(d.eligibleCount).toBe(36000);
    const snap = await snapshotCsv(d.id);
    const lines = snap.text.split('\n');
    expect(lines).toHaveLength(36002);
    expect(lines[36001]).toBe('');
    expect(sha256(snap.text)).toBe(d.snapshotHash);
    const rows = lines.slice(1, -1);
    expect(rows.every((l, i) => i === 0 || l > rows[i - 1]!)).toBe(true);
    expect(rows[0]).toMatch(/^[0-9a-f-]{36},[1-4],[0-9a-f]{64}$/);
  }, 120_000);
});

describe('the verifier script', () => {
  it('confirms a real draw and catches a tampered one', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(
      c.id,
      Array.from({ length: 25 }, (_, i) => ({ id: crypto.randomUUID(), points: 1 + (i % 4) })),
    );
    const d = (await draw(c.id, { winners: 3, weighting: 'points' })).body.data;
    await reveal(d.id, { publicRandomness: 'drand round 123' });
    const rep = (
      await replace(
        d.id,
        (
          await env.request('GET', `/api/v1/draws/${d.id}`, { key: a.publicKey })
        ).body.data.results[1].entryId,
      )
    ).body.data;
    const server = serve({ fetch: env.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const good = await verifyDraw(base, d.id, a.publicKey);
      expect(good.ok, good.difference).toBe(true);
      expect(good.log.filter((l) => /^position \d: .* OK \(u_\d+\)$/.test(l))).toHaveLength(4);
      // tampered: a winner swapped for another entry of the snapshot
      const other = (await snapshotOf(d.id)).rows.find(
        (r) => !rep.results.some((x: { entryId: string }) => x.entryId === r.id),
      )!.id;
      await query(env.db, sql`update draw_results set entry_id = ${other} where draw_id = ${d.id} and position = 2`);
      const bad = await verifyDraw(base, d.id, a.publicKey);
      expect(bad.ok).toBe(false);
      expect(bad.difference).toMatch(/^position 2: the algorithm picks [0-9a-f-]{36}, the draw shows /);
    } finally {
      server.close();
    }
  });
});
