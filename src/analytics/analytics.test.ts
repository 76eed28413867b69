/** GET /api/v1/contests/:contestId/analytics: every field, exact, real time. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';

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
const analytics = (id: string, key = a.publicKey) => env.request('GET', `/api/v1/contests/${id}/analytics`, { key });
async function newEntry(contestId: string, email: string) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: a.privateKey, body: { email } });
  expect(r.status).toBe(201);
  return r.body.data.entryId as string;
}

describe('analytics', () => {
  it('a contest without entries: zeros, average 0', async () => {
    const c = await env.contest(a.teamId);
    const r = await analytics(c.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        totalEntries: 0,
        confirmedEntries: 0,
        disqualifiedEntries: 0,
        totalViews: 0,
        totalBonusCompletions: 0,
        points: { total: 0, average: 0, highest: 0 },
      },
    });
  });

  it('totalBonusCompletions counts verified completions: not one waiting for the decision, nor a rejected one', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const [x, y] = [await newEntry(c.id, 'm1@example.com'), await newEntry(c.id, 'm2@example.com')];
    const manual = await createBonusAction(env.db, c.id, { action: 'photo', points: 5, confirmationType: 'manual' });
    const total = async () => (await analytics(c.id)).body.data.totalBonusCompletions;
    const complete = (id: string) =>
      env.request('POST', `/api/v1/entries/${id}/bonus-actions/${manual.id}/complete`, { key: a.publicKey, body: {} });
    const verify = (id: string, approve: boolean) =>
      env.request('POST', `/api/v1/entries/${id}/bonus-actions/${manual.id}/verify`, {
        key: a.privateKey,
        body: { approve },
      });
    for (const id of [x, y]) expect((await complete(id)).body.data.pointsAdded).toBe(0);
    expect(await total()).toBe(0);
    expect((await verify(x, true)).body.data.completionStatus).toBe('verified');
    expect((await verify(y, false)).body.data.completionStatus).toBe('rejected');
    expect(await total()).toBe(1);
    // y completes again: pending again, still not counted; approved: counted
    await complete(y);
    expect(await total()).toBe(1);
    await verify(y, true);
    expect(await total()).toBe(2);
  });

  it('counts entries, confirmations, disqualifications, views, completions and points, right after each change', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const other = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const ids = [];
    for (const e of ['a1@example.com', 'a2@example.com', 'a3@example.com']) ids.push(await newEntry(c.id, e));
    await newEntry(other.id, 'noise@example.com');
    await env.db.execute(sql`update entries set email_confirmed = false where id = ${ids[2]}`);
    await env.request('POST', `/api/v1/entries/${ids[1]}/disqualify`, {
      key: a.privateKey,
      body: { disqualify: true },
    });
    const act = await createBonusAction(env.db, c.id, { action: 'x', points: 4 });
    await env.request('POST', `/api/v1/entries/${ids[0]}/bonus-actions/${act.id}/complete`, {
      key: a.publicKey,
      body: {},
    });
    await env.request('POST', `/api/v1/entries/${ids[2]}/bonus-actions/${act.id}/complete`, {
      key: a.publicKey,
      body: {},
    });
    await env.request('POST', `/api/v1/entries/${ids[0]}/points`, {
      key: a.privateKey,
      body: { points: 6, reason: 'x' },
    });
    for (let i = 0; i < 3; i++) await env.request('POST', `/api/v1/contests/${c.id}/views`, { key: a.publicKey });
    // totals 10, 0, 4 → 14 / 3 = 4.666… → 4.67
    const r = await analytics(c.id);
    expect(r.body.data).toEqual({
      totalEntries: 3,
      confirmedEntries: 2,
      disqualifiedEntries: 1,
      totalViews: 3,
      totalBonusCompletions: 2,
      points: { total: 14, average: 4.67, highest: 10 },
    });
    // real time: the next change shows at once
    await env.request('POST', `/api/v1/entries/${ids[1]}/points`, {
      key: a.privateKey,
      body: { points: 1, reason: 'y' },
    });
    const after = await analytics(c.id);
    expect(after.body.data.points).toEqual({ total: 15, average: 5, highest: 10 });
  });

  it('another team’s contest, a missing and a malformed id: 404 Contest not found; a blank id: 400 Missing contestId', async () => {
    const c = await env.contest(a.teamId);
    for (const [id, key] of [
      [c.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['nope', a.publicKey],
    ] as [string, string][]) {
      const r = await analytics(id, key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
    for (const path of ['/api/v1/contests//analytics', '/api/v1/contests/%20/analytics']) {
      const r = await env.request('GET', path, { key: a.publicKey });
      expect([path, r.status, r.body]).toEqual([path, 400, { success: false, error: 'Missing contestId' }]);
    }
    const noKey = await env.request('GET', '/api/v1/contests//analytics');
    expect([noKey.status, noKey.body.error]).toEqual([401, 'Missing or invalid API key']);
  });
});
