/**
 * A contest's funnel over a range (GET /contests/:id/funnel): sign-ups, confirmations, referred
 * sign-ups and referred confirmations per bucket and in total, the viral coefficient (confirmed
 * referred entries per confirmed entry) per bucket and over the range, the sign-ups by source,
 * and the top referrers of the range.
 *
 * One statement: the time series' statement (src/analytics/series.ts: per-hour counts kept once
 * an hour has settled, the last minutes counted live) with the top referrers as extra rows. The
 * top referrers are counted from the range's referred entries (an index-only scan of
 * entries_contest_referred_idx): their cost grows with the referred sign-ups in the range.
 */
import { sql } from 'drizzle-orm';
import { type Db, num, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { byBucket, contestCounters, type Row, type SeriesRange, seriesStatement, sqlContestOwner } from './series.js';
import type { Funnel } from './funnel.schema.js';

/** how many top referrers the funnel names */
export const FUNNEL_TOP_REFERRERS = 10;

type Counts = { signups: number; confirmed: number; referredSignups: number; referredConfirmed: number };
type Bucket = Funnel['buckets'][number];

const FIELD: Record<string, keyof Counts> = {
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
  const rows = await query<Row & { info: { entryId: string; email: string | null; name: string | null } | null }>(
    db,
    seriesStatement(
      team,
      sqlContestOwner(team, contestId),
      contestCounters,
      range,
      now,
      (lo, hi) =>
        sql`select null::timestamptz, 'top_referrer'::text, t.n, json_build_object('entryId', r.id, 'email', r.email, 'name', r.name)
          from (
            select x.referred_by, count(*) as n from entries x, w
            where x.contest_id = w.id and x.created_at >= ${lo} and x.created_at < ${hi} and x.referred_by is not null
            group by 1 order by 2 desc, 1 limit ${FUNNEL_TOP_REFERRERS}
          ) t join entries r on r.id = t.referred_by`,
    ),
  );
  if (rows.length === 0) throw Errors.contestNotFound();
  const top = rows.filter((r) => r.start === null);
  const sources: Funnel['sources'] = { api: 0, signup: 0, instantWin: 0, webhook: 0 };
  const totals: Counts = { signups: 0, confirmed: 0, referredSignups: 0, referredConfirmed: 0 };
  const buckets = byBucket<Bucket>(
    rows.filter((r) => r.start !== null),
    (start) => ({ start, signups: 0, confirmed: 0, referredSignups: 0, referredConfirmed: 0, viralCoefficient: null }),
    (b, metric, n) => {
      const f = FIELD[metric];
      if (f) {
        b[f] += n;
        totals[f] += n;
      }
      const s = SOURCES[metric as keyof typeof SOURCES];
      if (s) sources[s] += n;
    },
  );
  for (const b of buckets) b.viralCoefficient = viral(b);
  return {
    totals: { ...totals, viralCoefficient: viral(totals) },
    sources,
    buckets,
    topReferrers: top
      .map((r) => ({ ...r.info!, referredSignups: num(r.n) }))
      .sort((a, b) => b.referredSignups - a.referredSignups || (a.entryId < b.entryId ? -1 : 1)),
  };
}
