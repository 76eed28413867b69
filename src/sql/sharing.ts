/**
 * Share links' counts as reads answer them, exact: a referrer's visits are the total the
 * every-minute job folded (visit_counts, up to visit_fold.until: ce_fold_visits,
 * src/db/functions/sharing.sql) plus the visits after it, counted live (the last minute or two
 * of that one referrer: an index range scan). No visit ever updates a row another visit needs.
 */
import { type SQL, sql } from 'drizzle-orm';

/** How many opened the link of the entry in `alias` (its `id`). */
export function sqlVisits(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`(coalesce((select k.n from visit_counts k where k.entry_id = ${a}.id), 0)
      + (select count(*) from link_visits v where v.entry_id = ${a}.id
         and v.created_at >= coalesce((select f.until from visit_fold f where f.id = 1), '-infinity')))`;
}

/** How many times the entry in `alias` clicked a share button. */
export const sqlShares = (alias: string): SQL =>
  sql`(select count(*) from link_shares s where s.entry_id = ${sql.raw(alias)}.id)`;

/** Folds the visits settled by `now` into the referrers' totals (the every-minute job); answers how many. */
export const sqlFoldVisits = (now: Date): SQL =>
  sql`select ce_fold_visits(${now.toISOString()}::timestamptz) as folded`;
