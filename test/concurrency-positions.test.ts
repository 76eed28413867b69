/**
 * Exact positions under real concurrency (TEST_DATABASE_URL): sign-ups, confirmations, points
 * changes and folds of the position totals all at once. The triggers only append deltas (no
 * counter row is locked by a write, so none waits on another and none deadlocks); folds run one
 * at a time. Afterwards the totals equal a direct count and every position equals the entry's
 * index in the contest's order. Skipped (and reported as skipped) without a real Postgres.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

if (!hasRealPostgres) console.warn('*** concurrency-positions.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

describe.skipIf(!hasRealPostgres)('positions under concurrency (real Postgres)', () => {
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

  it('120 sign-ups, 120 points changes and 20 folds at once: no error, totals and positions exact', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, publicSignup: true });
    // a first half already there, so that points changes race the new sign-ups
    const first = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        env.request('POST', `/api/v1/contests/${c.id}/signup`, {
          key: t.privateKey,
          body: { email: `a${i}@example.com` },
        }),
      ),
    );
    expect(first.map((r) => r.status)).toEqual(Array(60).fill(201));
    const ids = first.map((r) => r.body.data.entryId as string);
    const work: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 60; i++) {
      work.push(
        env.request('POST', `/api/v1/contests/${c.id}/signup`, {
          key: t.privateKey,
          body: { email: `b${i}@example.com` },
        }),
      );
      for (const id of [ids[i]!, ids[(i * 7) % 60]!]) {
        work.push(
          env.request('POST', `/api/v1/entries/${id}/points`, {
            key: t.privateKey,
            body: { points: 1 + (i % 5) * 10, reason: 'race' },
          }),
        );
      }
      if (i % 3 === 0) work.push(query(env.db, sql`select ce_fold_positions()`).then(() => ({ status: 200 })));
    }
    const statuses = (await Promise.all(work)).map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);

    const totals = async () =>
      (await queryOne<{ kept: number; direct: number }>(
        env.db,
        sql`select (select coalesce(sum(n), 0)::int from position_points where contest_id = ${c.id})
                 + (select coalesce(sum(n), 0)::int from position_deltas where contest_id = ${c.id}) as kept,
                   (select count(*)::int from entries where contest_id = ${c.id} and email_confirmed
                      and not disqualified and erased_at is null) as direct`,
      ))!;
    const positions = async () => {
      const order = await query<{ id: string; position: number }>(
        env.db,
        sql`select id, row_number() over (order by points desc, created_at, id)::int as position
            from entries where contest_id = ${c.id} and email_confirmed and not disqualified and erased_at is null`,
      );
      for (const e of order) {
        const r = await env.request('GET', `/api/v1/entries/${e.id}`, { key: t.privateKey });
        expect([e.id, r.body.data.position]).toEqual([e.id, e.position]);
      }
      return order.length;
    };
    const before = await totals();
    expect(before.kept).toBe(before.direct);
    expect(before.direct).toBe(120);
    expect(await positions()).toBe(120);
    await query(env.db, sql`select ce_fold_positions()`);
    const after = await totals();
    expect(after).toEqual({ kept: 120, direct: 120 });
    expect(await positions()).toBe(120);
  });
});
