/**
 * Points: every change of an entry's total is a `points_ledger` row written in the same SQL
 * statement as the new total. Totals are floored at 0 and capped at MAX_POINTS_TOTAL (the
 * int4 column's maximum); the ledger's `delta` is the change actually applied, its
 * `requested_delta` what was asked for. So, for every entry, points = sum(ledger.delta).
 */
import { type SQL, sql } from 'drizzle-orm';

/** Largest total an entry can hold (entries.points is an int4). */
export const MAX_POINTS_TOTAL = 2_147_483_647;

export type PointsSource = 'referral' | 'bonus_action' | 'purchase' | 'manual' | 'instant_win';

/**
 * SQL for the total after applying `delta` to `previous`: never below 0, never above
 * MAX_POINTS_TOTAL. `previous` must be the row's current value under a row lock
 * (`select ... for update` in a CTE), so that `new - previous` is the change applied.
 */
export function sqlClampedTotal(previous: SQL, delta: SQL): SQL {
  return sql`greatest(0, least(${MAX_POINTS_TOTAL}::bigint, (${previous})::bigint + (${delta})::bigint))::int`;
}

/**
 * CTEs `adv_lock` and `adv_upd` (no comma after them): lock the entries that `where` selects
 * (a condition on `e`, the entries table) and add `delta` to each, clamped; `delta` is an
 * expression over `a` (the locked row: `a.id`, `a.points`). `adv_upd` returns `(id, delta)`,
 * the change applied, for the caller's ledger rows. For points that go to entries other than
 * the statement's own (the advocates of a referral), beside the statement's update of its entry.
 */
export function sqlAdvocatePoints(p: { where: SQL; delta: SQL; now: string }): SQL {
  return sql`adv_lock as (
      select e.id, e.points from entries e
      where ${p.where}
      for update of e
    ), adv_upd as (
      update entries e set points = ${sqlClampedTotal(sql`a.points`, p.delta)},
        updated_at = ${p.now}::timestamptz
      from adv_lock a where e.id = a.id
      returning e.id, e.points - a.points as delta
    )`;
}
