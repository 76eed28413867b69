/**
 * Contest analytics (one query, computed on every request) and the leaderboard.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlEmail, sqlName } from '../sql/masking.js';
import { sqlCounts } from '../sql/positions.js';
import { sqlOfTeam } from '../sql/scope.js';

export interface Analytics {
  totalEntries: number;
  confirmedEntries: number;
  disqualifiedEntries: number;
  totalViews: number;
  totalBonusCompletions: number;
  points: { total: number; average: number; highest: number };
}

/** Rounded to 2 decimals (half away from zero; points are never negative). */
export const round2 = (x: number) => Math.round(x * 100) / 100;

export async function getAnalytics(db: Db, team: Team, contestId: string): Promise<Analytics> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const r = await queryOne<{
    views: number | string;
    total: number | string;
    confirmed: number | string;
    disqualified: number | string;
    points_total: number | string;
    points_max: number | string;
    bonus: number | string;
  }>(
    db,
    // totals from contest_stats (kept exact by triggers, summed over its slots); the highest
    // points from the first row of entries_contest_points_idx: no scan of the entries
    sql`with ${team.cte} _ as (select 1)
        select c.views_count as views,
          coalesce(sum(s.entries), 0) as total,
          coalesce(sum(s.confirmed), 0) as confirmed,
          coalesce(sum(s.disqualified), 0) as disqualified,
          coalesce(sum(s.points_total), 0) as points_total,
          coalesce((select e.points from entries e where e.contest_id = c.id order by e.points desc nulls last limit 1), 0) as points_max,
          coalesce(sum(s.bonus_completions), 0) as bonus
        from contests c
        left join contest_stats s on s.contest_id = c.id
        where c.id = ${contestId} and ${sqlOfTeam(team, 'c')}
        group by c.id`,
  );
  if (!r) throw Errors.contestNotFound();
  const total = num(r.total);
  const pointsTotal = num(r.points_total);
  return {
    totalEntries: total,
    confirmedEntries: num(r.confirmed),
    disqualifiedEntries: num(r.disqualified),
    totalViews: num(r.views),
    totalBonusCompletions: num(r.bonus),
    points: { total: pointsTotal, average: total === 0 ? 0 : round2(pointsTotal / total), highest: num(r.points_max) },
  };
}

export interface LeaderboardRow {
  rank: number;
  id: string;
  email: string | null;
  name: string | null;
  points: number;
  commission?: number;
  referralCode: string | null;
  referralsCount: number;
  joinedAt: string | null;
}

/**
 * The leaderboard's first `limit` entries of a contest, in no particular order (order them by
 * points, or commission for an affiliate campaign, then createdAt, then id): each branch of the
 * union matches a partial index (entries_leaderboard_points_idx / _commission_idx). The public
 * leaderboard and the hosted page's board read it.
 */
export function sqlTopEntries(contestId: SQL, campaignType: SQL, limit: SQL): SQL {
  return sql`(select e.id, e.email, e.name, e.points, e.commission, e.referral_code, e.created_at
           from entries e
           where e.contest_id = ${contestId} and ${sqlCounts('e')} and ${campaignType} <> 'affiliate'
           order by e.points desc nulls last, e.created_at, e.id limit ${limit})
          union all
          (select e.id, e.email, e.name, e.points, e.commission, e.referral_code, e.created_at
           from entries e
           where e.contest_id = ${contestId} and ${sqlCounts('e')} and ${campaignType} = 'affiliate'
           order by e.commission desc nulls last, e.created_at, e.id limit ${limit})`;
}

/** What a row `a` of sqlTopEntries is ranked by: commission in an affiliate campaign, else points. */
export function sqlBoardScore(a: string, campaignType: SQL): SQL {
  const r = sql.raw(a);
  return sql`(case when ${campaignType} = 'affiliate' then ${r}.commission else ${r}.points end)`;
}

/** The leaderboard's order over rows `a` of sqlTopEntries: score descending, then who joined first, then id. */
export function sqlBoardOrder(a: string, campaignType: SQL): SQL {
  const r = sql.raw(a);
  return sql`${sqlBoardScore(a, campaignType)} desc, ${r}.created_at, ${r}.id`;
}

/**
 * Confirmed, not disqualified entries, best first: points (affiliate campaigns: commission)
 * descending, then earliest createdAt, then id. Ranks 1..n, never shared. Each branch matches a
 * partial index (entries_leaderboard_points_idx / _commission_idx).
 */
export async function getLeaderboard(
  db: Db,
  team: Team,
  contestId: string,
  limit: number,
): Promise<{ metric: 'points' | 'commission'; rows: LeaderboardRow[]; publicCacheSeconds: number }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<{
    campaign_type: string;
    public_cache_seconds: number;
    id: string | null;
    email: string | null;
    name: string | null;
    points: number;
    commission: string | number;
    referral_code: string | null;
    created_at: Date | string;
    referrals_count: number | string;
  }>(
    db,
    sql`with ${team.cte} c as (select id, campaign_type, public_cache_seconds from contests where id = ${contestId} and team_id = ${team.id}),
        top as (${sqlTopEntries(sql`${contestId}::uuid`, sql`(select campaign_type from c)`, sql`${limit}`)})
        select c.campaign_type, c.public_cache_seconds, x.* from c left join lateral (
          select top.id, ${sqlEmail(team, sql`top.email`)} as email, ${sqlName(team, sql`top.name`)} as name, top.points,
            top.commission, top.referral_code, top.created_at,
            (select count(*) from entries r where r.referred_by = top.id) as referrals_count from top
        ) x on true
        order by ${sqlBoardOrder('x', sql`c.campaign_type`)}`,
  );
  if (!rows[0]) throw Errors.contestNotFound();
  const affiliate = rows[0].campaign_type === 'affiliate';
  return {
    publicCacheSeconds: rows[0].public_cache_seconds,
    metric: affiliate ? 'commission' : 'points',
    rows: rows
      .filter((r) => r.id !== null)
      .map((r, i) => ({
        rank: i + 1,
        id: r.id!,
        email: r.email,
        name: r.name,
        points: num(r.points),
        ...(affiliate ? { commission: num(r.commission) } : {}),
        referralCode: r.referral_code,
        referralsCount: num(r.referrals_count),
        joinedAt: iso(r.created_at),
      })),
  };
}
