/**
 * Point adjustments retried under real concurrency (TEST_DATABASE_URL): the same Idempotency-Key
 * sent many times at once adds the points once, and every request that carried it answers the
 * same first answer. Skipped (and reported as skipped) without a real Postgres.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryOne } from '../src/db/client.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

if (!hasRealPostgres) console.warn('*** concurrency-points.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

describe.skipIf(!hasRealPostgres)('point adjustments with an Idempotency-Key under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 30 });
    env.pool!.on('error', () => {});
    t = await env.team();
  });
  afterAll(async () => {
    await env.settle();
    await env.close();
  });

  it('20 retries of one adjustment at once: added once, every answer the same, the ledger equal to the total', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'retried@example.com' },
    });
    const id = e.body.data.entryId as string;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        env.request('POST', `/api/v1/entries/${id}/points`, {
          key: t.privateKey,
          body: { points: 9, reason: 'retried' },
          headers: { 'idempotency-key': 'once-only' },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
    expect(answers[0]!.body.data).toEqual({ message: 'Added 9 points', previousTotal: 0, newTotal: 9, adjustment: 9 });
    const row = await queryOne<{ points: number; ledger: number; rows: number }>(
      env.db,
      sql`select e.points, (select coalesce(sum(delta), 0)::int from points_ledger l where l.entry_id = e.id) as ledger,
            (select count(*)::int from points_ledger l where l.entry_id = e.id and l.source = 'manual') as rows
          from entries e where e.id = ${id}`,
    );
    expect(row).toEqual({ points: 9, ledger: 9, rows: 1 });
  });
});
