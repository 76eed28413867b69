/** GET /api/v1/contests/:contestId/leaderboard */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(() => env.close());

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const board = (id: string, qs = '', key = a.publicKey) =>
  env.request('GET', `/api/v1/contests/${id}/leaderboard${qs}`, { key });

async function newEntry(contestId: string, body: Record<string, unknown>) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: a.privateKey, body });
  expect(r.status).toBe(201);
  return r.body.data.entryId as string;
}
const setPoints = (id: string, points: number) =>
  env.db.execute(sql`update entries set points = ${points} where id = ${id}`);

describe('leaderboard (points)', () => {
  let c: { id: string };
  const id: Record<string, string> = {};
  beforeAll(async () => {
    c = await env.contest(a.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 0, friendPoints: 0 },
    });
    // created one second apart: p1 oldest
    for (const n of ['p1', 'p2', 'p3', 'p4', 'unconfirmed', 'dq']) {
      id[n] = await newEntry(c.id, { email: `${n}@example.com`, name: n.toUpperCase() });
      env.clock.advance(1000);
    }
    await setPoints(id.p1!, 50);
    await setPoints(id.p2!, 80);
    await setPoints(id.p3!, 50);
    await setPoints(id.p4!, 10);
    await setPoints(id.unconfirmed!, 1000);
    await setPoints(id.dq!, 999);
    await env.db.execute(sql`update entries set email_confirmed = false where id = ${id.unconfirmed}`);
    await env.request('POST', `/api/v1/entries/${id.dq}/disqualify`, { key: a.privateKey, body: {} });
    const { referral_code: referralCode } = (await queryOne<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where id = ${id.p3}`,
    ))!;
    await newEntry(c.id, { phone: '+15550001111', referralCode });
    await newEntry(c.id, { email: 'ref2@example.com', referralCode });
  });

  it('confirmed, not disqualified entries by points desc, ties by earliest join; ranks 1..n; metric points; no commission', async () => {
    const r = await board(c.id);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.metric).toBe('points');
    const rows = r.body.data;
    expect(
      rows.slice(0, 4).map((x: { rank: number; email: string; points: number }) => [x.rank, x.email, x.points]),
    ).toEqual([
      [1, 'p2@example.com', 80],
      [2, 'p1@example.com', 50],
      [3, 'p3@example.com', 50],
      [4, 'p4@example.com', 10],
    ]);
    expect(rows.map((x: { rank: number }) => x.rank)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    const emails = rows.map((x: { email: string }) => x.email);
    expect(emails).not.toContain('unconfirmed@example.com');
    expect(emails).not.toContain('dq@example.com');
    expect(rows[2]).toEqual({
      rank: 3,
      id: id.p3,
      email: 'p3@example.com',
      name: 'P3',
      points: 50,
      referralCode: expect.stringMatching(/^[A-Za-z0-9]{10}$/),
      referralsCount: 2,
      joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(rows[0]).not.toHaveProperty('commission');
  });

  it('ties with the same createdAt are broken by id', async () => {
    const t = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await newEntry(t.id, { email: `tie${i}@example.com` }));
    await env.db.execute(
      sql`update entries set created_at = '2024-01-01T00:00:00Z', points = 5 where contest_id = ${t.id}`,
    );
    const r = await board(t.id);
    expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([...ids].sort());
  });

  it('limit: default 25, 1-100; anything else 400', async () => {
    const big = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const values = Array.from(
      { length: 30 },
      (_, i) => sql`(${big.id}::uuid, ${`big${i}@example.com`}, ${`code-big-${i}-${big.id.slice(0, 8)}`}, ${i}, true)`,
    );
    await env.db.execute(
      sql`insert into entries (contest_id, email, referral_code, points, email_confirmed) values ${sql.join(values, sql`, `)}`,
    );
    expect((await board(big.id)).body.data).toHaveLength(25);
    const two = await board(big.id, '?limit=2');
    expect(two.body.data.map((x: { points: number }) => x.points)).toEqual([29, 28]);
    expect((await board(big.id, '?limit=100')).body.data).toHaveLength(30);
    for (const qs of ['?limit=0', '?limit=101', '?limit=-1', '?limit=2.5', '?limit=ten', '?limit=']) {
      const r = await board(big.id, qs);
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error: 'limit must be between 1 and 100' }]);
    }
  });

  it('another team’s contest, a missing and a malformed id: 404 Contest not found; a blank id: 400 Missing contestId', async () => {
    for (const [cid, key] of [
      [c.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['x', a.publicKey],
    ] as [string, string][]) {
      const r = await board(cid, '', key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
    for (const path of ['/api/v1/contests//leaderboard', '/api/v1/contests/%20/leaderboard?limit=5']) {
      const r = await env.request('GET', path, { key: a.publicKey });
      expect([path, r.status, r.body]).toEqual([path, 400, { success: false, error: 'Missing contestId' }]);
    }
  });

  it('an empty contest: empty data', async () => {
    const e = await env.contest(a.teamId);
    const r = await board(e.id);
    expect(r.body).toEqual({ success: true, data: [], metric: 'points' });
  });
});

describe('leaderboard (affiliate: commission)', () => {
  it('orders by commission desc, then earliest join; commission on every row as a number', async () => {
    const c = await env.contest(a.teamId, {
      requireEmailConfirmation: false,
      campaignType: 'affiliate',
      affiliate: { commissionPercent: 10 },
    });
    const ids = [];
    for (const n of ['c1', 'c2', 'c3', 'c4']) {
      ids.push(await newEntry(c.id, { email: `${n}@example.com` }));
      env.clock.advance(1000);
    }
    const commission = ['12.50', '0', '99.99', '12.50'];
    const points = [1000, 5000, 1, 0];
    for (let i = 0; i < 4; i++)
      await env.db.execute(
        sql`update entries set commission = ${commission[i]}, points = ${points[i]} where id = ${ids[i]}`,
      );
    const r = await board(c.id);
    expect(r.body.metric).toBe('commission');
    expect(
      r.body.data.map((x: { rank: number; email: string; commission: number; points: number }) => [
        x.rank,
        x.email,
        x.commission,
        x.points,
      ]),
    ).toEqual([
      [1, 'c3@example.com', 99.99, 1],
      [2, 'c1@example.com', 12.5, 1000],
      [3, 'c4@example.com', 12.5, 0],
      [4, 'c2@example.com', 0, 5000],
    ]);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(
      ['commission', 'email', 'id', 'joinedAt', 'name', 'points', 'rank', 'referralCode', 'referralsCount'].sort(),
    );
  });
});
