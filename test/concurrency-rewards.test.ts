/**
 * Rewards under real concurrency (TEST_DATABASE_URL): 50 requests at once crossing the same
 * threshold, 50 entries at once on a pool of 10 codes, friends confirming at once towards a
 * referral threshold, codes added while entries unlock. Each code is given at most once, each entry
 * unlocks at most once, nobody is emailed twice, and nobody waits for a code while one is free.
 * Skipped (and reported as skipped) without a real Postgres.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { runScheduledJobs } from '../src/jobs.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

if (!hasRealPostgres) console.warn('*** concurrency-rewards.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

describe.skipIf(!hasRealPostgres)('rewards under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 30 });
    env.pool!.on('error', () => {});
    t = await env.team();
    env.deps.fetch = async () => new Response('ok');
    const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
      key: t.privateKey,
      body: { url: 'https://hooks.example.test/rewards', events: ['reward.unlocked', 'reward.code_given'] },
    });
    expect(ep.status, ep.text).toBe(201);
  });
  afterAll(async () => {
    await env.settle();
    await env.close();
  });

  const api = (method: string, path: string, body?: unknown) =>
    env.request(method, path, { key: t.privateKey, ...(body === undefined ? {} : { body }) });
  async function setup(opts: { entries: number; reward: Record<string, unknown>; confirm?: boolean }) {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: opts.confirm ?? false, title: 'Rush' });
    const r = await api('POST', `/api/v1/contests/${c.id}/rewards`, opts.reward);
    expect(r.status, r.text).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < opts.entries; i++) {
      const e = await api('POST', `/api/v1/contests/${c.id}/entries`, {
        email: `u${i}-${c.id.slice(0, 8)}@example.com`,
      });
      expect(e.status).toBe(201);
      ids.push(e.body.data.entryId);
    }
    return { contestId: c.id, rewardId: r.body.data.id as string, ids };
  }
  const state = async (rewardId: string) =>
    (await queryOne<{
      unlocks: number;
      entries: number;
      given: number;
      distinct_codes: number;
      pending: number;
      free: number;
      mails: number;
      distinct_mails: number;
      events: number;
    }>(
      env.db,
      sql`select
        (select count(*)::int from reward_unlocks where reward_id = ${rewardId}) as unlocks,
        (select count(distinct entry_id)::int from reward_unlocks where reward_id = ${rewardId}) as entries,
        (select count(*)::int from reward_codes where reward_id = ${rewardId} and unlock_id is not null) as given,
        (select count(distinct unlock_id)::int from reward_codes where reward_id = ${rewardId} and unlock_id is not null) as distinct_codes,
        (select count(*)::int from reward_unlocks where reward_id = ${rewardId} and code_pending) as pending,
        (select count(*)::int from reward_codes where reward_id = ${rewardId} and given_at is null) as free,
        (select count(*)::int from email_outbox o join rewards r on r.contest_id = o.contest_id
          where r.id = ${rewardId} and o.kind = 'reward') as mails,
        (select count(distinct o."to")::int from email_outbox o join rewards r on r.contest_id = o.contest_id
          where r.id = ${rewardId} and o.kind = 'reward') as distinct_mails,
        (select count(*)::int from events where type = 'reward.unlocked' and data->>'rewardId' = ${rewardId}) as events`,
    ))!;

  it('50 requests at once taking one entry across the threshold: one unlock, one code, one email, one event', async () => {
    const s = await setup({ entries: 1, reward: { name: 'Coupon', pointsRequired: 10, codes: ['A', 'B', 'C'] } });
    const rs = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('POST', `/api/v1/entries/${s.ids[0]}/points`, { points: 10, reason: 'rush' }),
      ),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(await state(s.rewardId)).toEqual({
      unlocks: 1,
      entries: 1,
      given: 1,
      distinct_codes: 1,
      pending: 0,
      free: 2,
      mails: 1,
      distinct_mails: 1,
      events: 1,
    });
  });

  it('50 entries at once on a pool of 10: 10 codes given once each, 40 waiting, then given when codes are added', async () => {
    const codes = Array.from({ length: 10 }, (_, i) => `P${i}`);
    const s = await setup({ entries: 50, reward: { name: 'Pool', pointsRequired: 5, codes } });
    const rs = await Promise.all(
      s.ids.map((id) => api('POST', `/api/v1/entries/${id}/points`, { points: 5, reason: 'rush' })),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(await state(s.rewardId)).toMatchObject({
      unlocks: 50,
      entries: 50,
      given: 10,
      distinct_codes: 10,
      pending: 40,
      free: 0,
      mails: 10,
      distinct_mails: 10,
      events: 50,
    });
    // codes added in 4 requests at once, while 40 wait
    const more = Array.from({ length: 4 }, (_, b) => Array.from({ length: 10 }, (_, i) => `Q${b}-${i}`));
    const adds = await Promise.all(
      more.map((batch) => api('POST', `/api/v1/contests/${s.contestId}/rewards/${s.rewardId}/codes`, { codes: batch })),
    );
    expect(adds.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await runScheduledJobs(env.deps);
    expect(await state(s.rewardId)).toMatchObject({
      unlocks: 50,
      given: 50,
      distinct_codes: 50,
      pending: 0,
      free: 0,
      mails: 50,
      distinct_mails: 50,
    });
    const dup = await query(
      env.db,
      sql`select code from reward_codes where reward_id = ${s.rewardId} group by code having count(distinct unlock_id) > 1`,
    );
    expect(dup).toEqual([]);
  });

  it('20 friends confirming at once towards 20 confirmed referrals: the advocate unlocks exactly once', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: true, title: 'Friends' });
    const r = await api('POST', `/api/v1/contests/${c.id}/rewards`, { name: 'Twenty', referralsRequired: 20 });
    const adv = await api('POST', `/api/v1/contests/${c.id}/entries`, { email: `adv-${c.id.slice(0, 8)}@example.com` });
    await queryOne(env.db, sql`update entries set email_confirmed = true where id = ${adv.body.data.entryId}`);
    const tokens: string[] = [];
    for (let i = 0; i < 20; i++) {
      const f = await api('POST', `/api/v1/contests/${c.id}/entries`, {
        email: `f${i}-${c.id.slice(0, 8)}@example.com`,
        referralCode: adv.body.data.referralCode,
      });
      const token = f.body.data.entryId.replace(/-/g, '');
      await queryOne(
        env.db,
        sql`update entries set confirmation_token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex') where id = ${f.body.data.entryId}`,
      );
      tokens.push(token);
    }
    const rs = await Promise.all(tokens.map((tok) => env.request('GET', `/api/confirm/${tok}`)));
    expect(rs.every((x) => x.status < 400)).toBe(true);
    const s = await state(r.body.data.id);
    expect(s).toMatchObject({ unlocks: 1, entries: 1, events: 1 });
  });

  it('codes added while entries unlock: no code given twice, and the minute job leaves nobody waiting beside a free code', async () => {
    const s = await setup({ entries: 30, reward: { name: 'Race', pointsRequired: 1, codes: [] } });
    const adds = Array.from({ length: 6 }, (_, b) => Array.from({ length: 5 }, (_, i) => `R${b}-${i}`));
    const rs = await Promise.all([
      ...s.ids.map((id) => api('POST', `/api/v1/entries/${id}/points`, { points: 1, reason: 'race' })),
      ...adds.map((batch) =>
        api('POST', `/api/v1/contests/${s.contestId}/rewards/${s.rewardId}/codes`, { codes: batch }),
      ),
    ]);
    expect(rs.every((x) => x.status === 200)).toBe(true);
    await runScheduledJobs(env.deps);
    expect(await state(s.rewardId)).toMatchObject({
      unlocks: 30,
      given: 30,
      distinct_codes: 30,
      pending: 0,
      free: 0,
      mails: 30,
    });
  });
});
