/**
 * A page of a list and the total it is a page of, in one statement: every "list with `total`"
 * answer of the API reads this way.
 *
 *   <prefix>  select <head>, (select count(*) <counted>) as total, page.*
 *             from (select 1) one left join lateral (<page>) page on true
 *
 * `counted` is the FROM … WHERE of every row the list has; `page` selects the rows of one page
 * (ordered, with its limit and offset) and must name its first column `id`. An empty page still
 * answers one row (its page columns null) so that the total and `head` (found flags) arrive;
 * `pageOf` drops that row.
 */
import { type SQL, sql } from 'drizzle-orm';
import { num } from '../db/client.js';

export function sqlPaged(p: { counted: SQL; page: SQL; head?: SQL }): SQL {
  return sql`select ${p.head ? sql`${p.head}, ` : sql``}(select count(*) ${p.counted}) as total, page.*
    from (select 1) one left join lateral (${p.page}) page on true`;
}

/** The answer of a sqlPaged statement: its total and the page's rows made into items. */
export function pageOf<R extends { total?: unknown; id: unknown }, T>(
  rows: readonly R[],
  item: (row: R & { id: NonNullable<R['id']> }) => T,
): { total: number; items: T[] } {
  return {
    total: num(rows[0]?.total ?? 0),
    items: rows.filter((r): r is R & { id: NonNullable<R['id']> } => r.id !== null).map(item),
  };
}
