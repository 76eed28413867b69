/**
 * Share-link visits under real concurrency: 50 visits of one referrer's code at once (a viral
 * link), keyless, over a pool of 40 connections to the real Postgres, are all counted; none waits
 * on a row another visit holds. Skipped (and reported as skipped) without TEST_DATABASE_URL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryOne } from '../src/db/client.js';
import { runScheduledJobs } from '../src/jobs.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

describe.skipIf(!hasRealPostgres)('share-link visits under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    // the keyless limit is per client address: the 50 visitors here come from 50 addresses
    env = await createTestEnv({ backend: 'postgres', poolMax: 40 });
    env.pool!.on('error', () => {});
    t = await env.team();
  });
  afterAll(async () => {
    await env.close();
  });

  it('50 visits of one code at once: all 50 counted, in the funnel, and in the referrer’s total after the fold', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body: { publicSignup: true } });
    const ann = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'viral@example.com' },
    });
    expect(ann.status, ann.text).toBe(201);
    const code = ann.body.data.referralCode as string;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        env.request('POST', `/api/v1/contests/${c.id}/visits`, {
          body: { referralCode: code, channel: i % 2 ? 'x' : 'whatsapp' },
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    const stored = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from link_visits where entry_id = ${ann.body.data.entryId}`,
    );
    expect(stored!.n).toBe(50);
    const funnel = await env.request('GET', `/api/v1/contests/${c.id}/funnel?interval=hour`, { key: t.privateKey });
    expect(funnel.body.data.totals.visits).toBe(50);
    expect(
      funnel.body.data.channels
        .filter((x: { visits: number }) => x.visits > 0)
        .map((x: { channel: string; visits: number }) => [x.channel, x.visits]),
    ).toEqual([
      ['x', 25],
      ['whatsapp', 25],
    ]);
    env.clock.advance(2 * 60_000);
    await runScheduledJobs(env.deps);
    const kept = await queryOne<{ n: number }>(
      env.db,
      sql`select n::int from visit_counts where entry_id = ${ann.body.data.entryId}`,
    );
    expect(kept!.n).toBe(50);
  });
});
