/**
 * Share links' counts as reads answer them, exact: a referrer's visits are the total the
 * every-minute job folded (visit_counts, or per hour visit_hours, up to visit_fold.until:
 * ce_fold_visits, src/db/functions/sharing.sql) plus the visits after it, counted live (the last
 * minute or two of that one referrer: an index range scan). No visit ever updates a row another
 * visit needs.
 */
import { type SQL, sql } from 'drizzle-orm';

/** Where the folded visits end (the visits from then on are counted live). */
const foldUntil = sql`coalesce((select f.until from visit_fold f where f.id = 1), '-infinity')`;

/** How many opened the link of the entry in `alias` (its `id`). */
export function sqlVisits(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`(coalesce((select k.n from visit_counts k where k.entry_id = ${a}.id), 0)
      + (select count(*) from link_visits v where v.entry_id = ${a}.id and v.created_at >= ${foldUntil}))`;
}

/**
 * How many opened the link of the entry `entryId` in [lo, hi), two whole-hour bounds: the hours
 * the fold kept (visit_hours, index range scan on the entry) plus the visits after the fold's
 * watermark, counted live. Exact: the fold keeps exactly the visits before its watermark, each in
 * its hour. A referrer's history costs one row an hour, however many visits it had.
 */
export function sqlVisitsInRange(entryId: SQL, lo: SQL, hi: SQL): SQL {
  return sql`(coalesce((select sum(h.n) from visit_hours h where h.entry_id = ${entryId} and h.hour >= ${lo} and h.hour < ${hi}), 0)
      + (select count(*) from link_visits v where v.entry_id = ${entryId}
         and v.created_at >= greatest(${lo}, ${foldUntil}) and v.created_at < ${hi}))`;
}

/** How many times the entry in `alias` clicked a share button. */
export const sqlShares = (alias: string): SQL =>
  sql`(select count(*) from link_shares s where s.entry_id = ${sql.raw(alias)}.id)`;

/** Folds the visits settled by `now` into the referrers' totals (the every-minute job); answers how many. */
export const sqlFoldVisits = (now: Date): SQL =>
  sql`select ce_fold_visits(${now.toISOString()}::timestamptz) as folded`;

/** Visits deleted per call of the retention (the every-minute job). */
export const VISIT_PRUNE_BATCH = 10_000;

/** When visits stop being kept one by one: `days` before `now`. */
export const visitRetentionCut = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

/**
 * Contests with visits or page views past the retention `before` that their time series has not
 * counted yet (never read, or not since): the job reads their series first, so that nothing is
 * deleted before its hour is kept. At most `limit` of them, as `id`.
 */
export const sqlVisitsAwaitingSeries = (before: Date, limit: number): SQL =>
  sql`select x.contest_id as id from (
        select x.contest_id, x.created_at from link_visits x
        where x.created_at < ${before.toISOString()}::timestamptz and x.entry_id is not null
        union all
        select x.contest_id, x.created_at from page_views x where x.created_at < ${before.toISOString()}::timestamptz
      ) x
      where not exists (select 1 from series_filled s where s.owner_id = x.contest_id and s.until > x.created_at)
      group by x.contest_id
      limit ${limit}`;

/** Deletes up to VISIT_PRUNE_BATCH visits made before `before` that every count kept; answers how many. */
export const sqlPruneVisits = (before: Date): SQL =>
  sql`select ce_prune_visits(${before.toISOString()}::timestamptz, ${VISIT_PRUNE_BATCH}::int) as pruned`;
