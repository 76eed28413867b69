/**
 * A contest's funnel over a range (GET /contests/:id/funnel): share-link visits, sign-ups, confirmations, referred
 * sign-ups and referred confirmations per bucket and in total, the viral coefficient (confirmed
 * referred entries per confirmed entry) per bucket and over the range, the sign-ups by source,
 * and the top referrers of the range.
 *
 * One statement: the time series' statement (src/analytics/series.ts: per-hour counts kept once
 * an hour has settled, the last minutes counted live) with the top referrers as extra rows
 * (sqlTopReferrers).
 */

import { type SQL, sql } from 'drizzle-orm';
import { type Db, num, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { SHARE_CHANNELS } from '../lib/share-channels.js';
import { sqlVisitsInRange } from '../sql/sharing.js';
import type { Funnel } from './funnel.schema.js';
import { byBucket, CONTEST_SERIES, type Row, type SeriesRange, seriesStatement, sqlContestOwner } from './series.js';

/** how many top referrers the funnel names */
export const FUNNEL_TOP_REFERRERS = 10;

/**
 * The top `limit` referrers of [lo, hi) by referred entries created then, exact, one of two ways,
 * whichever reads fewer rows (judged by the series' kept hourly referral counts; the other way's
 * scans stop at once, behind a one-time filter):
 *   - direct: the range's referred entries counted per referrer (an index-only range scan of
 *     entries_contest_referred_idx): the cost of a short range;
 *   - kept: each referrer's settled count (referral_counts, kept by the series' fold) plus its
 *     referred entries since the watermark, minus those outside the range. Only the first
 *     `limit + |referrers with entries outside the range|` referrers by settled count can be in
 *     the top: a referrer below them has at least `limit` ahead of it whose counts the range did
 *     not lower. The cost of a long range that reaches to now: the rows outside it, not in it.
 * Each named with its visits in the range (kept hours plus the visits after the fold).
 * Rows (start null, 'top_referrer', n, {entryId, email, name, visits}); reads the series' CTE `w`.
 */
export function sqlTopReferrers(lo: SQL, hi: SQL, limit: number): SQL {
  // the contest's id as a parameter of the plan (an InitPlan), so that every scan below is an
  // index range scan on it, in the index's order where one is wanted
  const referred = sql`x.contest_id = (select w.id from w) and x.referred_by is not null`;
  return sql`select null::timestamptz, 'top_referrer'::text, t.n, json_build_object('entryId', r.id, 'email', r.email, 'name', r.name,
      'visits', ${sqlVisitsInRange(sql`r.id`, lo, hi)})
    from (
      with pick as (
        select coalesce(sum(s.n) filter (where s.hour < ${lo} or s.hour >= ${hi}), 0)
               < coalesce(sum(s.n) filter (where s.hour >= ${lo} and s.hour < ${hi}), 0) as kept
        from series_hours s where s.owner_id = (select w.id from w) and s.metric = 'referrals'
      ), direct as (
        select x.referred_by as id, count(*) as n from entries x
        where not (select kept from pick) and ${referred} and x.created_at >= ${lo} and x.created_at < ${hi}
        group by 1 order by 2 desc, 1 limit ${limit}
      ), outside as (
        select y.id, count(*) as n from (
          select x.referred_by as id from entries x where (select kept from pick) and ${referred} and x.created_at < ${lo}
          union all
          select x.referred_by from entries x where (select kept from pick) and ${referred} and x.created_at >= ${hi}
        ) y group by 1
      ), recent as (
        select x.referred_by as id, count(*) as n from entries x
        where (select kept from pick) and ${referred} and x.created_at >= (select w.since from w)
        group by 1
      ), ahead as (
        select k.referrer_id as id, k.n from referral_counts k
        where (select kept from pick) and k.contest_id = (select w.id from w)
        order by k.n desc, k.referrer_id limit ${limit} + (select count(*) from outside)
      ), candidates as (
        select id, n from ahead
        union all
        select rc.id, coalesce((select k.n from referral_counts k where k.contest_id = (select w.id from w) and k.referrer_id = rc.id), 0)
        from recent rc where not exists (select 1 from ahead a where a.id = rc.id)
      ), via_kept as (
        select c.id, c.n + coalesce(rc.n, 0) - coalesce(o.n, 0) as n
        from candidates c left join recent rc on rc.id = c.id left join outside o on o.id = c.id
      )
      select id, n from direct
      union all
      (select id, n from via_kept where n > 0 order by n desc, id limit ${limit})
    ) t join entries r on r.id = t.id`;
}

type Counts = {
  views: number;
  visits: number;
  signups: number;
  confirmed: number;
  referredSignups: number;
  referredConfirmed: number;
};
type Channel = Funnel['channels'][number];
type Bucket = Funnel['buckets'][number];

const FIELD: Record<string, keyof Counts> = {
  views: 'views',
  visits: 'visits',
  entries: 'signups',
  confirmations: 'confirmed',
  referrals: 'referredSignups',
  referred_confirmations: 'referredConfirmed',
};
const SOURCES = {
  'source:api': 'api',
  'source:signup': 'signup',
  'source:instant_win': 'instantWin',
  'source:webhook': 'webhook',
} as const;

/** confirmed referred entries per confirmed entry, to 3 decimals; null when nobody confirmed */
const viral = (c: Counts) => (c.confirmed > 0 ? Math.round((c.referredConfirmed / c.confirmed) * 1000) / 1000 : null);

export async function contestFunnel(
  db: Db,
  team: Team,
  contestId: string,
  range: SeriesRange,
  now: Date,
): Promise<Omit<Funnel, 'interval' | 'from' | 'to'>> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<
    Row & { info: { entryId: string; email: string | null; name: string | null; visits: number | string } | null }
  >(
    db,
    seriesStatement(team, sqlContestOwner(team, contestId), CONTEST_SERIES, range, now, (lo, hi) =>
      sqlTopReferrers(lo, hi, FUNNEL_TOP_REFERRERS),
    ),
  );
  if (rows.length === 0) throw Errors.contestNotFound();
  const top = rows.filter((r) => r.start === null);
  const sources: Funnel['sources'] = { api: 0, signup: 0, instantWin: 0, webhook: 0 };
  const totals: Counts = { views: 0, visits: 0, signups: 0, confirmed: 0, referredSignups: 0, referredConfirmed: 0 };
  const channels = new Map<string, Channel>(
    SHARE_CHANNELS.map((channel) => [channel, { channel, visits: 0, shares: 0, signups: 0, confirmed: 0 }]),
  );
  const buckets = byBucket<Bucket>(
    rows.filter((r) => r.start !== null),
    (start) => ({
      start,
      views: 0,
      visits: 0,
      signups: 0,
      confirmed: 0,
      referredSignups: 0,
      referredConfirmed: 0,
      viralCoefficient: null,
    }),
    (b, metric, n) => {
      const f = FIELD[metric];
      if (f) {
        b[f] += n;
        totals[f] += n;
      }
      const s = SOURCES[metric as keyof typeof SOURCES];
      if (s) sources[s] += n;
      const [what, channel] = metric.split(':') as [string, string | undefined];
      const row = channel === undefined ? undefined : channels.get(channel);
      if (row && (what === 'visits' || what === 'shares' || what === 'signups' || what === 'confirmed')) row[what] += n;
    },
  );
  for (const b of buckets) b.viralCoefficient = viral(b);
  return {
    totals: { ...totals, viralCoefficient: viral(totals) },
    sources,
    buckets,
    channels: [...channels.values()],
    topReferrers: top
      .map((r) => ({ ...r.info!, visits: num(r.info!.visits), referredSignups: num(r.n) }))
      .sort((a, b) => b.referredSignups - a.referredSignups || (a.entryId < b.entryId ? -1 : 1)),
  };
}
