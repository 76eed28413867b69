/**
 * Places in a contest's order, the order of its leaderboard: points (most first), then who joined
 * first, then the entry id. An entry counts when its email is confirmed, it is not disqualified
 * and not erased. Its position is 1 + the number of counting entries ahead of it; `total` is how
 * many count. Both are exact (the same order the leaderboard reads, in the same snapshot).
 * docs/design-decisions.md says what they cost and how that grows.
 */
import { type SQL, sql } from 'drizzle-orm';

/** whether the entry in `alias` counts */
export const sqlCounts = (alias: string): SQL =>
  sql.raw(`(${alias}.email_confirmed and not ${alias}.disqualified and ${alias}.erased_at is null)`);

/**
 * The 1-based position of the entry in `alias` (columns contest_id, points, created_at, id and
 * the three of sqlCounts), or null while it does not count.
 */
export function sqlPosition(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`case when ${sqlCounts(alias)} then 1 + (
      select count(*) from entries o
      where o.contest_id = ${a}.contest_id and o.email_confirmed and not o.disqualified and o.erased_at is null
        and (o.points > ${a}.points or (o.points = ${a}.points and (o.created_at, o.id) < (${a}.created_at, ${a}.id)))
    ) end`;
}

/** How many entries of the contest `contestId` (an SQL expression) count. */
export const sqlCountingTotal = (contestId: SQL): SQL =>
  sql`(select count(*) from entries o
      where o.contest_id = ${contestId} and o.email_confirmed and not o.disqualified and o.erased_at is null)`;
