/**
 * Places in a contest's order, the order of its leaderboard: points (most first), then who joined
 * first, then the entry id. An entry counts when its email is confirmed, it is not disqualified,
 * not erased and (a waitlist) not admitted yet; its position is 1 + the counting entries ahead of it, and `total` is how many
 * count. Both are exact: one statement, one snapshot.
 *
 * Counting the entries ahead one by one would read up to the whole contest (a million index
 * entries for the last one: 1.8 s measured). Instead (migration 0021_positions.sql):
 *   ahead = Σ counting entries with more points                     (position_points)
 *         + Σ same points, joined in an earlier hour                (position_hours)
 *         + the same points, joined earlier in the same hour        (entries_position_idx)
 * The two totals are kept by triggers that only append to position_deltas, folded in by the
 * every-minute job; a read adds the deltas not folded yet. docs/design-decisions.md#exact-positions.
 */
import { type SQL, sql } from 'drizzle-orm';

/**
 * Whether the entry in `alias` counts: the database function ce_counts
 * (src/db/functions/positions.sql), which the position triggers call too. The planner inlines
 * it, so the partial indexes over the same condition still answer.
 */
export const sqlCounts = (alias: string): SQL =>
  sql.raw(`ce_counts(${alias}.email_confirmed, ${alias}.disqualified, ${alias}.erased_at, ${alias}.admitted_at)`);

/**
 * The 1-based position of the entry in `alias` (columns contest_id, points, created_at, id and
 * the three of sqlCounts), or null while it does not count.
 */
export function sqlPosition(alias: string): SQL {
  const a = sql.raw(alias);
  const hour = sql`ce_hour(${a}.created_at)`;
  return sql`case when ${sqlCounts(alias)} then 1
      + coalesce((select sum(q.n) from position_points q where q.contest_id = ${a}.contest_id and q.points > ${a}.points), 0)
      + coalesce((select sum(q.n) from position_hours q
                  where q.contest_id = ${a}.contest_id and q.points = ${a}.points and q.hour < ${hour}), 0)
      + coalesce((select sum(q.n) from position_deltas q where q.contest_id = ${a}.contest_id and q.points > ${a}.points), 0)
      + coalesce((select sum(q.n) from position_deltas q
                  where q.contest_id = ${a}.contest_id and q.points = ${a}.points and q.hour < ${hour}), 0)
      + (select count(*) from entries o
         where o.contest_id = ${a}.contest_id and o.points = ${a}.points
           and ${sqlCounts('o')}
           and o.created_at >= to_timestamp(${hour} * 3600) and (o.created_at, o.id) < (${a}.created_at, ${a}.id))
    end`;
}

/** How many entries of the contest `contestId` (an SQL expression) count. */
export const sqlCountingTotal = (contestId: SQL): SQL =>
  sql`(coalesce((select sum(q.n) from position_points q where q.contest_id = ${contestId}), 0)
      + coalesce((select sum(q.n) from position_deltas q where q.contest_id = ${contestId}), 0))`;

/** Folds the appended deltas into the totals (the every-minute job); answers how many it folded. */
export const SQL_FOLD_POSITIONS: SQL = sql`select ce_fold_positions() as folded`;
