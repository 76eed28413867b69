import { sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, num, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { MAX_POINTS_TOTAL, sqlClampedTotal } from '../sql/points.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';

/** Largest magnitude of one manual adjustment. */
export const MAX_POINTS_ADJUSTMENT = 1_000_000_000;

export const REASON_MAX = 500;

export interface AdjustResult {
  message: string;
  previousTotal: number;
  newTotal: number;
  adjustment: number;
}

/**
 * Manual adjustment (private key). One statement: lock the entry (team-scoped), set the clamped
 * total, write the ledger row with the applied delta. Works whatever the contest's status and
 * whether the entry is disqualified. With an `idempotencyKey`, the first answer is kept with the
 * adjustment (points_adjustments): a retry with the same key for the same entry changes nothing
 * and answers it again; two at the same instant take turns on the entry's row, and the second,
 * whose snapshot predates the first's record, fails on its key and runs again to read it.
 */
export async function adjustPoints(
  db: Db,
  team: Team,
  entryId: string,
  points: number,
  reason: string,
  now: Date,
  idempotencyKey: string | null = null,
): Promise<AdjustResult> {
  if (!Number.isSafeInteger(points) || points === 0 || Math.abs(points) > MAX_POINTS_ADJUSTMENT) {
    throw Errors.validation(
      `points must be a non-zero integer between -${MAX_POINTS_ADJUSTMENT} and ${MAX_POINTS_ADJUSTMENT}`,
    );
  }
  const why = reason.trim();
  if (!why) throw Errors.missingPointsOrReason();
  if (why.length > REASON_MAX) throw Errors.validation(`reason must be at most ${REASON_MAX} characters`);
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const t = now.toISOString();
  const adjust = () =>
    queryOne<{ previous: number; total: number; requested: number }>(
      db,
      sql`with ${team.cte} t as (
          select e.id, e.contest_id, e.points
          from entries e join contests c on c.id = e.contest_id
          where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
          for update of e
        ), prev as (
          select p.previous_total, p.new_total, p.requested from points_adjustments p join t on p.entry_id = t.id
          where p.idempotency_key = ${idempotencyKey}::text
        ), u as (
          update entries e set points = ${sqlClampedTotal(sql`t.points`, sql`${points}::int`)}, updated_at = ${t}::timestamptz
          from t where e.id = t.id and not exists (select 1 from prev)
          returning e.id, e.contest_id, t.points as previous, e.points as total
        ), rec as (
          insert into points_adjustments (entry_id, idempotency_key, previous_total, new_total, requested, created_at)
          select u.id, ${idempotencyKey}::text, u.previous, u.total, ${points}::int, ${t}::timestamptz
          from u where ${idempotencyKey}::text is not null
          returning 1
        ), ${sqlEmitEvent(
          'ev_points',
          'points.adjusted',
          sql`select ${team.id} as team_id, u.contest_id, json_build_object('entryId', u.id, 'contestId', u.contest_id,
            'previousTotal', u.previous, 'newTotal', u.total, 'adjustment', u.total - u.previous, 'requested', ${points}::int,
            'reason', ${why}::text, 'createdAt', ${sqlIso(sql`${t}::timestamptz`)}) as data from u`,
          now,
        )}, l as (
          insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, created_at)
          select u.id, u.contest_id, u.total - u.previous, ${points}::int, 'manual', ${why}, ${t}::timestamptz from u
          returning 1
        )
        select coalesce(prev.previous_total, u.previous) as previous, coalesce(prev.new_total, u.total) as total,
          coalesce(prev.requested, ${points}::int) as requested, ${sqlEventDeliveries('ev_points')}${sqlRewardsMay(sql`t.contest_id`)}
        from t left join prev on true left join u on true`,
    );
  let row: Awaited<ReturnType<typeof adjust>>;
  try {
    row = await adjust();
  } catch (e) {
    // the same key at the same instant: the other adjustment recorded it first; read its answer
    if (idempotencyKey === null || !isUniqueViolation(e, 'points_adjustments_entry_id_idempotency_key_pk')) throw e;
    row = await adjust();
  }
  if (!row) throw Errors.entryNotFound();
  return adjustmentAnswer(num(row.previous), num(row.total), num(row.requested));
}

/** The answer of an adjustment: what was asked, and what the clamps let through. */
function adjustmentAnswer(previousTotal: number, newTotal: number, points: number): AdjustResult {
  const adjustment = newTotal - previousTotal;
  let message: string;
  if (adjustment === points) message = `${points > 0 ? 'Added' : 'Removed'} ${Math.abs(points)} points`;
  else if (points < 0) message = `Removed ${-adjustment} points (total cannot go below 0)`;
  else message = `Added ${adjustment} points (total cannot exceed ${MAX_POINTS_TOTAL})`;
  return { message, previousTotal, newTotal, adjustment };
}
