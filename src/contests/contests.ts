import { sql } from 'drizzle-orm';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { isUuid } from '../lib/crypto.js';
import { type ContestRow, effectiveStatus, type ToolType } from '../sql/contests.js';
import { sqlOfTeam } from '../sql/scope.js';

export function contestJson(row: ContestRow, now: Date, opts: { withViews?: boolean } = {}) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: effectiveStatus(row, now),
    startDate: iso(row.start_date),
    endDate: iso(row.end_date),
    isEvergreen: row.is_evergreen,
    mode: row.mode,
    slug: row.slug,
    toolType: row.tool_type,
    entriesCount: num(row.entries_count),
    ...(opts.withViews ? { viewsCount: num(row.views_count) } : {}),
  };
}

export type ContestJson = ReturnType<typeof contestJson>;

const CONTEST_COLUMNS = sql`c.id, c.team_id, c.tool_type, c.title, c.description, c.status, c.start_date, c.end_date,
  c.is_evergreen, c.mode, c.slug, c.views_count, c.public_cache_seconds,
  (select coalesce(sum(s.entries), 0) from contest_stats s where s.contest_id = c.id) as entries_count`;

export async function listContests(
  db: Db,
  team: Team,
  opts: { toolType: ToolType | null; limit: number; offset: number },
): Promise<{ rows: ContestRow[]; total: number }> {
  const where = sql`${sqlOfTeam(team, 'c')} and c.tool_type is not distinct from ${opts.toolType}`;
  const rows = await query<ContestRow & { total: number | string }>(
    db,
    sql`with ${team.cte} total as (select count(*) as n from contests c where ${where})
        select total.n as total, page.* from total left join lateral (
          select ${CONTEST_COLUMNS} from contests c where ${where}
          order by c.created_at desc, c.id desc limit ${opts.limit} offset ${opts.offset}
        ) page on true`,
  );
  const total = num(rows[0]?.total);
  return { rows: rows.filter((r) => r.id !== null), total };
}

/** The contest if it exists and belongs to the team; another team's contest is "not found". */
export async function getContest(db: Db, team: Team, contestId: string): Promise<ContestRow | undefined> {
  if (!isUuid(contestId)) return undefined;
  return queryOne<ContestRow>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select ${CONTEST_COLUMNS} from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')}`,
  );
}

/** Counts one page view; undefined when the contest is not the team's. */
export async function recordView(db: Db, team: Team, contestId: string, now: Date): Promise<number | undefined> {
  if (!isUuid(contestId)) return undefined;
  const row = await queryOne<{ views_count: number | string }>(
    db,
    sql`with ${team.cte} up as (
          update contests set views_count = views_count + 1
          where id = ${contestId} and team_id = ${team.id} returning id, views_count
        ), ins as (
          -- the view's hour for the funnel (the contest's series counts page_views)
          insert into page_views (contest_id, created_at) select up.id, ${now.toISOString()}::timestamptz from up
          returning 1
        )
        select views_count from up`,
  );
  return row ? num(row.views_count) : undefined;
}
