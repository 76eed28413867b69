/**
 * The SQL helper functions rewritten for cost (migration 0017) answer exactly what their first
 * versions (migration 0010) answered, and the scalar ones are inlined by the planner (no parse
 * and plan of their body per statement).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/db/client.js';
import { createTestEnv, type TestEnv } from './support/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
  // the first versions, under other names
  await query(
    env.db,
    sql.raw(`CREATE FUNCTION old_email_norm(e text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE
        WHEN e IS NULL OR position('@' IN e) = 0 THEN lower(e)
        WHEN x.d IN ('gmail.com', 'googlemail.com') THEN replace(x.l, '.', '') || '@gmail.com'
        ELSE x.l || '@' || x.d
      END
      FROM (SELECT split_part(split_part(lower(e), '@', 1), '+', 1) AS l, split_part(lower(e), '@', 2) AS d) x $$`),
  );
  await query(
    env.db,
    sql.raw(`CREATE FUNCTION old_mask_name(n text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN n IS NULL THEN NULL
        WHEN cardinality(w) < 2 THEN n
        ELSE w[1] || ' ' || left(w[cardinality(w)], 1) || '.' END
      FROM (SELECT regexp_split_to_array(btrim(n), '\\s+') AS w) x $$`),
  );
  await query(
    env.db,
    sql.raw(`CREATE FUNCTION old_window_push(old timestamptz[], add timestamptz[]) RETURNS timestamptz[] LANGUAGE sql IMMUTABLE AS $$
      SELECT coalesce(array_agg(t ORDER BY t), '{}')
      FROM (
        SELECT t FROM unnest(old || add) t
        WHERE t > (SELECT max(m) FROM unnest(old || add) m) - interval '1 hour'
        ORDER BY t DESC LIMIT 1001
      ) s $$`),
  );
});
afterAll(() => env?.close());

const EMAILS = [
  null,
  '',
  'plain',
  'PLAIN',
  '@',
  'a@',
  '@b.com',
  'Ann.Bell+promo@Gmail.com',
  'a.n.n@googlemail.com',
  'ann+x+y@gmail.com',
  'first.last@example.com',
  'First.Last+tag@Example.COM',
  'x@y@z.com',
  'x+@y.com',
  '+only@y.com',
  'émile.zola+1@exämple.fr',
  '  spaced@example.com ',
  'UPPER@GMAIL.COM',
  'dots.only.@gmail.com',
  'a@gmail.com.evil.com',
];
const NAMES = [
  null,
  '',
  ' ',
  'Cher',
  '  Cher  ',
  'Ann Marie Bell',
  'ann   bell',
  '\tJosé\n Núñez ',
  'a b c d e',
  'Ünal Ökten',
];

describe('rewritten SQL functions', () => {
  it('ce_email_norm: the same normalised address as before, for every kind of address', async () => {
    for (const e of EMAILS) {
      const [row] = await query<{ now: string | null; before: string | null }>(
        env.db,
        sql`select ce_email_norm(${e}::text) as now, old_email_norm(${e}::text) as before`,
      );
      expect([e, row!.now]).toEqual([e, row!.before]);
    }
  });

  it('ce_mask_name: the same masked name as before', async () => {
    for (const n of NAMES) {
      const [row] = await query<{ now: string | null; before: string | null }>(
        env.db,
        sql`select ce_mask_name(${n}::text) as now, old_mask_name(${n}::text) as before`,
      );
      expect([n, row!.now]).toEqual([n, row!.before]);
    }
  });

  it('ce_window_push: the same window as before (the last hour, newest 1,001 at most, in order)', async () => {
    const cases: [string[], string[]][] = [
      [[], []],
      [[], ['2026-01-01T10:00:00Z']],
      [['2026-01-01T08:00:00Z', '2026-01-01T09:30:00Z'], ['2026-01-01T10:00:00Z']],
      [['2026-01-01T09:00:00Z'], ['2026-01-01T10:00:00Z', '2026-01-01T09:59:59Z']],
      [
        Array.from({ length: 1005 }, (_, i) => new Date(Date.UTC(2026, 0, 1, 10) + i * 1000).toISOString()),
        ['2026-01-01T10:30:00Z'],
      ],
    ];
    for (const [oldTimes, addTimes] of cases) {
      const old = `{${oldTimes.join(',')}}`;
      const add = `{${addTimes.join(',')}}`;
      const [row] = await query<{ same: boolean; n: number }>(
        env.db,
        sql`select ce_window_push(${old}::timestamptz[], ${add}::timestamptz[]) = old_window_push(${old}::timestamptz[], ${add}::timestamptz[]) as same,
                   cardinality(ce_window_push(${old}::timestamptz[], ${add}::timestamptz[])) as n`,
      );
      expect(row!.same).toBe(true);
      expect(row!.n).toBeLessThanOrEqual(1001);
    }
  });

  it('ce_email_norm and ce_mask_name are inlined: the plan shows their expressions, not a call', async () => {
    for (const fn of ['ce_email_norm', 'ce_mask_name']) {
      const plan = await query<{ 'QUERY PLAN': string }>(
        env.db,
        sql.raw(`explain (verbose, costs off) select ${fn}(x) from (values ('Ann Bell@x.com'), ('Cher')) v(x)`),
      );
      const text = plan.map((r) => Object.values(r)[0]).join('\n');
      expect(text).not.toContain(fn);
      expect(text).toMatch(fn === 'ce_email_norm' ? /split_part/ : /regexp_split_to_array/);
    }
  });
});
