/**
 * Contests as the v1 API shows them, the rules for when a contest is open, and views.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Team } from '../db/team.js';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import { isUuid } from '../lib/crypto.js';

export const TOOL_TYPES = ['content_gate', 'instant_win'] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

export interface ContestRow {
  id: string;
  team_id: string;
  tool_type: string | null;
  title: string;
  description: string | null;
  status: string;
  start_date: Date | string | null;
  end_date: Date | string | null;
  is_evergreen: boolean;
  mode: string;
  slug: string;
  entries_count?: number | string;
  views_count?: number | string;
  /** seconds a public key's reads may be cached (src/http/public-cache.ts) */
  public_cache_seconds?: number;
}

/** A stored `active` contest whose endDate has passed (and is not evergreen) reads `ended`. */
export function effectiveStatus(row: Pick<ContestRow, 'status' | 'end_date' | 'is_evergreen'>, now: Date): string {
  if (row.status === 'active' && !row.is_evergreen && row.end_date && new Date(row.end_date) <= now) return 'ended';
  return row.status;
}

/** SQL for "accepts entries, completions, purchases and plays now" on contest alias `c`. */
export function sqlContestOpen(now: Date, alias = 'c'): SQL {
  const a = sql.raw(alias);
  const t = now.toISOString();
  return sql`(${a}.status = 'active'
    and (${a}.start_date is null or ${a}.start_date <= ${t}::timestamptz)
    and (${a}.is_evergreen or ${a}.end_date is null or ${a}.end_date > ${t}::timestamptz))`;
}

export function isContestOpen(
  row: Pick<ContestRow, 'status' | 'start_date' | 'end_date' | 'is_evergreen'>,
  now: Date,
): boolean {
  if (effectiveStatus(row, now) !== 'active') return false;
  return !row.start_date || new Date(row.start_date) <= now;
}

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
  const where = sql`c.team_id = ${team.id} and c.tool_type is not distinct from ${opts.toolType}`;
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
        select ${CONTEST_COLUMNS} from contests c where c.id = ${contestId} and c.team_id = ${team.id}`,
  );
}

/** Counts one page view; undefined when the contest is not the team's. */
export async function recordView(db: Db, team: Team, contestId: string): Promise<number | undefined> {
  if (!isUuid(contestId)) return undefined;
  const row = await queryOne<{ views_count: number | string }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        update contests set views_count = views_count + 1
        where id = ${contestId} and team_id = ${team.id} returning views_count`,
  );
  return row ? num(row.views_count) : undefined;
}
