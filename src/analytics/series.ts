/**
 * Time series: what happened in a contest (entries, confirmations, referrals, bonus completions,
 * share-link visits and share clicks)
 * or an instant-win game (plays, wins and draws per tier) per UTC hour or day, over a range.
 *
 * One statement per read, fast at any size. Rows written more than SETTLE ago (no write that
 * read its clock before then can still commit: a write is one short statement) never change
 * their time, so they are counted once into per-hour totals kept in `series_hours`;
 * `series_filled.until` (a whole minute) is where the counted rows end. Each read
 *   1. counts the rows settled since `until` (index range scans over the last minutes' rows),
 *      adds them to their hours and moves `until`: a compare-and-set on `until`, so of two
 *      readers at once only one adds (the other waits for it, sees `until` moved, adds nothing),
 *   2. counts the rows after that live (the last minute or two),
 *   3. sums kept + newly counted + live into the asked buckets, every bucket present (zeros too).
 * The first read of a contest counts its whole history once (a cold read); after it a read
 * touches only the rows of the last minutes, and writes at most once a minute. A day is 24 UTC
 * hours. A write whose statement commits more than SETTLE after it read its clock is missed by
 * the series (never by the totals of GET .../analytics, which triggers keep exact).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import type { ContestBucket, GameBucket } from './series.schema.js';

export type SeriesInterval = 'hour' | 'day';

/** The most buckets one read answers. */
export const SERIES_MAX_BUCKETS = 1000;
/** How long after its end an hour is taken as final: longer than any write transaction runs. */
const SETTLE = sql`interval '1 minute'`;
const UNIT_MS: Record<SeriesInterval, number> = { hour: 3_600_000, day: 86_400_000 };
const DEFAULT_BUCKETS: Record<SeriesInterval, number> = { hour: 48, day: 30 };

export interface SeriesRange {
  interval: SeriesInterval;
  /** first bucket's start (UTC) */
  from: Date;
  /** last bucket's start (UTC) */
  to: Date;
  buckets: number;
}

const truncUtc = (d: Date, interval: SeriesInterval) =>
  new Date(Math.floor(d.getTime() / UNIT_MS[interval]) * UNIT_MS[interval]);

/**
 * The buckets a read answers: from `from`'s bucket to `to`'s, both included (default: the last
 * 48 hours or 30 days up to now). 400 when the range is backwards or longer than the maximum.
 */
export function seriesRange(interval: SeriesInterval, now: Date, from?: Date, to?: Date): SeriesRange {
  const unit = UNIT_MS[interval];
  const last = truncUtc(to ?? now, interval);
  const first = from ? truncUtc(from, interval) : new Date(last.getTime() - (DEFAULT_BUCKETS[interval] - 1) * unit);
  if (first.getTime() > last.getTime()) throw Errors.validation('from must not be after to');
  const buckets = (last.getTime() - first.getTime()) / unit + 1;
  if (buckets > SERIES_MAX_BUCKETS) {
    throw Errors.validation(
      `from and to span ${buckets} ${interval}s; at most ${SERIES_MAX_BUCKETS} buckets, so use interval=day or a shorter range`,
    );
  }
  return { interval, from: first, to: last, buckets };
}

/** One metric's counts per hour, of the rows in [lo, hi): SQL selecting (metric, h, n). */
type Counter = (owner: SQL, lo: SQL, hi: SQL) => SQL;

const hourOf = (col: SQL) => sql`date_trunc('hour', ${col}, 'UTC')`;

const contestCounters: Counter[] = [
  // entries (also by source: source:api, source:signup, ...; by share channel: signups:x, ...) and
  // referred entries, by creation time
  (owner, lo, hi) => sql`
    select m.metric, x.h, m.n from (
      select ${hourOf(sql`e.created_at`)} as h, e.source, e.channel, count(*) as n, count(*) filter (where e.referred_by is not null) as r
      from entries e where e.contest_id = ${owner} and e.created_at >= ${lo} and e.created_at < ${hi} group by 1, 2, 3
    ) x cross join lateral (values ('entries'::text, x.n), ('referrals'::text, x.r), ('source:' || x.source, x.n),
      ('signups:' || x.channel, x.n)) m(metric, n)
    where m.metric is not null`,
  // confirmations, and those of referred entries (the funnel's viral coefficient), by confirmation
  // time; by share channel (confirmed:x, ...)
  (owner, lo, hi) => sql`
    select m.metric, x.h, m.n from (
      select ${hourOf(sql`e.confirmed_at`)} as h, e.channel, count(*) as n, count(*) filter (where e.referred_by is not null) as r
      from entries e where e.contest_id = ${owner} and e.confirmed_at >= ${lo} and e.confirmed_at < ${hi} group by 1, 2
    ) x cross join lateral (values ('confirmations'::text, x.n), ('referred_confirmations'::text, x.r),
      ('confirmed:' || x.channel, x.n)) m(metric, n)
    where m.metric is not null`,
  // share-link visits (visits, and visits:x ... by channel) and share clicks (shares:x ...)
  (owner, lo, hi) => sql`
    select m.metric, x.h, m.n from (
      select ${hourOf(sql`v.created_at`)} as h, v.channel, count(*) as n
      from link_visits v where v.contest_id = ${owner} and v.entry_id is not null
        and v.created_at >= ${lo} and v.created_at < ${hi} group by 1, 2
    ) x cross join lateral (values ('visits'::text, x.n), ('visits:' || x.channel, x.n)) m(metric, n)
    where m.metric is not null`,
  // page views (the widget's, once per browser and day)
  (owner, lo, hi) => sql`
    select 'views'::text, ${hourOf(sql`v.created_at`)}, count(*)
    from page_views v where v.contest_id = ${owner} and v.created_at >= ${lo} and v.created_at < ${hi} group by 2`,
  (owner, lo, hi) => sql`
    select 'shares:' || s.channel, ${hourOf(sql`s.created_at`)}, count(*)
    from link_shares s where s.contest_id = ${owner} and s.created_at >= ${lo} and s.created_at < ${hi} group by 1, 2`,
  (owner, lo, hi) => sql`
    select 'bonus_completions'::text, ${hourOf(sql`b.completed_at`)}, count(*)
    from bonus_completions b where b.contest_id = ${owner} and b.completed_at >= ${lo} and b.completed_at < ${hi} group by 2`,
];

/**
 * What else a contest's read keeps when it moves the watermark: each referrer's referred entries
 * settled in [since, upto) added to referral_counts (the funnel's top referrers, src/analytics/
 * funnel.ts). A CTE body; `claimed` says whether this read moved the watermark.
 */
const foldReferrals = (since: SQL, upto: SQL) => sql`
  insert into referral_counts (contest_id, referrer_id, n)
  select w.id, x.referred_by, count(*) from w join entries x on x.contest_id = w.id
  where exists (select 1 from claimed) and x.referred_by is not null and x.created_at >= ${since} and x.created_at < ${upto}
  group by 1, 2
  on conflict (contest_id, referrer_id) do update set n = referral_counts.n + excluded.n
  returning 1`;

/** What a series counts per hour, and what else its reads keep (every read of the owner must keep it, or counts are lost). */
export interface SeriesKind {
  counters: Counter[];
  fold?: (since: SQL, upto: SQL) => SQL;
}
export const CONTEST_SERIES: SeriesKind = { counters: contestCounters, fold: foldReferrals };

/** plays; won:<tier> (the prize given); drawn:<tier or none> (what the number drew, before stock) */
const gameCounters: Counter[] = [
  (owner, lo, hi) => sql`
    select m.metric, x.h, m.n from (
      select ${hourOf(sql`p.created_at`)} as h, p.tier_id, p.status, coalesce(p.drawn_tier_id, p.tier_id) as drawn, count(*) as n
      from instant_win_plays p where p.game_id = ${owner} and p.created_at >= ${lo} and p.created_at < ${hi} group by 1, 2, 3, 4
    ) x cross join lateral (
      values ('plays'::text, x.n),
             (case when x.status <> 'miss' and x.tier_id is not null then 'won:' || x.tier_id end, x.n),
             ('drawn:' || coalesce(x.drawn::text, 'none'), x.n)
    ) m(metric, n)
    where m.metric is not null`,
];

/**
 * The statement: (owner found, bucket start, metric, n) rows; buckets with nothing have one row
 * with a null metric. `owner` selects the contest or game's id as `id` (and nothing when it is not
 * the team's).
 */
export function seriesStatement(
  team: Team,
  ownerSql: SQL,
  kind: SeriesKind,
  range: SeriesRange,
  now: Date,
  /** more rows for the same read, (start, metric, n, info json), given the owner CTE `w` and the range's bounds */
  extra?: (lo: SQL, hi: SQL) => SQL,
): SQL {
  const unit = range.interval === 'hour' ? sql`'hour'` : sql`'day'`;
  const step = range.interval === 'hour' ? sql`interval '1 hour'` : sql`interval '1 day'`;
  const lo = sql`${range.from.toISOString()}::timestamptz`;
  const hi = sql`(${range.to.toISOString()}::timestamptz + ${step})`;
  const union = (lower: SQL, upper: SQL) =>
    sql.join(
      kind.counters.map((c) => sql`(${c(sql`w.id`, lower, upper)})`),
      sql` union all `,
    );
  return sql`with ${team.cte}
    o as (${ownerSql}),
    w as (
      select o.id, f.until as prev,
        coalesce(f.until, '-infinity'::timestamptz) as since,
        date_trunc('minute', ${now.toISOString()}::timestamptz - ${SETTLE}) as upto
      from o left join series_filled f on f.owner_id = o.id
    ),
    fresh as (
      select k.metric, k.h, k.n from w cross join lateral (${union(sql`w.since`, sql`w.upto`)}) k(metric, h, n)
      where w.since < w.upto
    ),
    claimed as (
      insert into series_filled (owner_id, until) select w.id, w.upto from w where w.since < w.upto
      on conflict (owner_id) do update set until = excluded.until where series_filled.until = (select prev from w)
      returning 1
    ),
    kept as (
      insert into series_hours (owner_id, metric, hour, n)
      select w.id, fresh.metric, fresh.h, sum(fresh.n) from w, fresh where exists (select 1 from claimed)
      group by w.id, fresh.metric, fresh.h having sum(fresh.n) > 0
      on conflict (owner_id, hour, metric) do update set n = series_hours.n + excluded.n
      returning 1
    ),${kind.fold ? sql` folded as (${kind.fold(sql`w.since`, sql`w.upto`)}),` : sql``}
    live as (
      select k.metric, k.h, k.n from w cross join lateral (${union(sql`greatest(w.since, w.upto)`, hi)}) k(metric, h, n)
      where greatest(w.since, w.upto) < ${hi}
    ),
    hours as (
      select s.metric, s.hour as h, s.n from series_hours s, w
      where s.owner_id = w.id and s.hour >= ${lo} and s.hour < ${hi}
      union all select metric, h, n from fresh where h >= ${lo} and h < ${hi}
      union all select metric, h, n from live where h >= ${lo} and h < ${hi}
    ),
    sums as (
      select date_trunc(${unit}, h, 'UTC') as b, metric, sum(n) as n from hours group by 1, 2
    )
    select g.b as start, s.metric, s.n${extra ? sql`, null::json as info` : sql``}
    from w cross join generate_series(${lo}, ${range.to.toISOString()}::timestamptz, ${step}) g(b)
    left join sums s on s.b = g.b
    ${extra ? sql`union all ${extra(lo, hi)}` : sql``}
    order by 1`;
}

export type { ContestBucket, GameBucket };

export type Row = { start: Date | string; metric: string | null; n: number | string | null };

export function byBucket<B extends { start: string }>(
  rows: Row[],
  empty: (start: string) => B,
  add: (b: B, metric: string, n: number) => void,
): B[] {
  const out: B[] = [];
  for (const r of rows) {
    const start = iso(r.start)!;
    let b = out[out.length - 1];
    if (!b || b.start !== start) {
      b = empty(start);
      out.push(b);
    }
    if (r.metric) add(b, r.metric, num(r.n));
  }
  return out;
}

/** The owner CTE of a contest's series: its id when it is the team's (a game is not a contest). */
export const sqlContestOwner = (team: Team, contestId: string) =>
  sql`select id from contests where id = ${contestId} and team_id = ${team.id} and tool_type is distinct from 'instant_win'`;

export async function contestSeries(
  db: Db,
  team: Team,
  contestId: string,
  range: SeriesRange,
  now: Date,
): Promise<ContestBucket[]> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<Row>(
    db,
    seriesStatement(team, sqlContestOwner(team, contestId), CONTEST_SERIES, range, now),
  );
  if (rows.length === 0) throw Errors.contestNotFound();
  const field: Record<string, keyof Omit<ContestBucket, 'start'>> = {
    entries: 'entries',
    confirmations: 'confirmations',
    referrals: 'referrals',
    bonus_completions: 'bonusCompletions',
  };
  return byBucket<ContestBucket>(
    rows,
    (start) => ({ start, entries: 0, confirmations: 0, referrals: 0, bonusCompletions: 0 }),
    (b, metric, n) => {
      const f = field[metric];
      if (f) b[f] += n;
    },
  );
}

export async function gameSeries(
  db: Db,
  team: Team,
  gameId: string,
  range: SeriesRange,
  now: Date,
): Promise<GameBucket[]> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const rows = await query<Row>(
    db,
    seriesStatement(
      team,
      sql`select id from contests where id = ${gameId} and team_id = ${team.id} and tool_type = 'instant_win'`,
      { counters: gameCounters },
      range,
      now,
    ),
  );
  if (rows.length === 0) throw Errors.gameNotFound();
  return byBucket<GameBucket>(
    rows,
    (start) => ({ start, plays: 0, wins: {}, drawn: {} }),
    (b, metric, n) => {
      if (metric === 'plays') b.plays += n;
      else if (metric.startsWith('won:')) b.wins[metric.slice(4)] = (b.wins[metric.slice(4)] ?? 0) + n;
      else if (metric.startsWith('drawn:')) b.drawn[metric.slice(6)] = (b.drawn[metric.slice(6)] ?? 0) + n;
    },
  );
}
