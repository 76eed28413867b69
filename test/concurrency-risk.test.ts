/**
 * Risk counting under real concurrency (TEST_DATABASE_URL): parallel creates never both see
 * themselves as the N-th, aliases racing each other are caught, and block mode stores nothing.
 * Skipped (and reported as skipped) without a real Postgres.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';
import { ledgerMismatches } from './support/ledger.js';

if (!hasRealPostgres) console.warn('*** concurrency-risk.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

describe.skipIf(!hasRealPostgres)('risk signals under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 40 });
    env.pool!.on('error', () => {});
    t = await env.team();
  });
  afterAll(async () => {
    await env.settle();
    await env.close();
  });

  const create = (contestId: string, body: unknown) =>
    env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body });
  const reasons = (contestId: string) =>
    query<{ r: string[] | string; n: number }>(
      env.db,
      sql`select risk_reasons::text as r, count(*)::int as n from entries where contest_id = ${contestId} group by 1 order by 2`,
    );

  it('50 parallel creates from one ipAddress, maxEntriesPerIpPerHour 5: exactly 5 without ip_velocity, 45 with it', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, risk: { maxEntriesPerIpPerHour: 5 } });
    const rs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create(c.id, { email: `p${i}@example.com`, ipAddress: '203.0.113.77' })),
    );
    expect(rs.every((r) => r.status === 201)).toBe(true);
    const got = await reasons(c.id);
    console.log('[concurrency] 50 creates, one IP, N=5:', got);
    expect(got).toEqual([
      { r: '{}', n: 5 },
      { r: '{ip_velocity}', n: 45 },
    ]);
  });

  it('50 parallel creates of one disposable address in block mode store nothing', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: true, risk: { mode: 'block' } });
    const rs = await Promise.all(
      Array.from({ length: 50 }, () => create(c.id, { email: 'burner@mailinator.com', ipAddress: '203.0.113.78' })),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(50).fill(403));
    expect(new Set(rs.map((r) => r.body.error))).toEqual(new Set(['Entry refused by risk rules']));
    const left = await queryOne<{ entries: number; mails: number; windows: number; stats: number }>(
      env.db,
      sql`select (select count(*)::int from entries where contest_id = ${c.id}) as entries,
            (select count(*)::int from email_outbox where contest_id = ${c.id}) as mails,
            (select count(*)::int from risk_windows where contest_id = ${c.id}) as windows,
            (select coalesce(sum(entries), 0)::int from contest_stats where contest_id = ${c.id}) as stats`,
    );
    expect(left).toEqual({ entries: 0, mails: 0, windows: 0, stats: 0 });
  });

  it('20 parallel aliases of one address: exactly one entry without email_alias', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => create(c.id, { email: `sam+${i}@example.com` })));
    expect(rs.every((r) => r.status === 201)).toBe(true);
    expect(await reasons(c.id)).toEqual([
      { r: '{}', n: 1 },
      { r: '{email_alias}', n: 19 },
    ]);
  });

  it('30 parallel referrals of one referrer, maxReferralsPerHour 10, hold mode: 10 credited, 20 held; totals exact', async () => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 3, friendPoints: 1 },
      risk: { mode: 'hold', maxReferralsPerHour: 10 },
    });
    const a = await create(c.id, { email: 'adv@example.com' });
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        create(c.id, { email: `fr${i}@example.org`, referralCode: a.body.data.referralCode }),
      ),
    );
    expect(rs.every((r) => r.status === 201)).toBe(true);
    expect(rs.filter((r) => r.body.data.pointsPending).length).toBe(20);
    const row = await queryOne<{ adv: number; held: number; total: number; pts: number }>(
      env.db,
      sql`select (select points from entries where id = ${a.body.data.entryId}) as adv,
            (select count(*)::int from points_ledger where contest_id = ${c.id} and status = 'pending') as held,
            (select coalesce(sum(points_total), 0)::int from contest_stats where contest_id = ${c.id}) as total,
            (select coalesce(sum(points), 0)::int from entries where contest_id = ${c.id}) as pts`,
    );
    expect(row).toEqual({ adv: 30, held: 40, total: 40, pts: 40 });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });
});
