/** Time series answers (src/analytics/series.routes.ts); src/analytics/series.ts builds their buckets. */
import * as v from 'valibot';
import { nonNegInt, timestamp } from '../http/schemas.js';

const Range = {
  interval: v.picklist(['hour', 'day']),
  from: v.pipe(timestamp, v.description('start of the first bucket')),
  to: v.pipe(timestamp, v.description('start of the last bucket')),
};

export const ContestSeries = v.strictObject({
  ...Range,
  buckets: v.array(
    v.strictObject({
      start: timestamp,
      entries: v.pipe(nonNegInt, v.description('entries created')),
      confirmations: v.pipe(nonNegInt, v.description('emails confirmed')),
      referrals: v.pipe(nonNegInt, v.description('entries created with a referral code')),
      bonusCompletions: v.pipe(nonNegInt, v.description('bonus actions completed (manual ones when submitted)')),
    }),
  ),
});

const perTier = (what: string) => v.pipe(v.record(v.string(), nonNegInt), v.description(what));
export const GameSeries = v.strictObject({
  ...Range,
  buckets: v.array(
    v.strictObject({
      start: timestamp,
      plays: nonNegInt,
      wins: perTier('prizes given, by tier id'),
      drawn: perTier(
        'what the random number drew, by tier id ("none": no prize), before any stock ran out: compare with the configured odds',
      ),
    }),
  ),
});

export type ContestBucket = v.InferOutput<typeof ContestSeries>['buckets'][number];
export type GameBucket = v.InferOutput<typeof GameSeries>['buckets'][number];

const DATE_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** a real calendar day (Date.parse takes 2026-02-30 as March 2) */
const realDay = (s: string) => {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
};

const when = (name: 'from' | 'to', what: string) =>
  v.optional(
    v.pipe(
      v.string(`${name} must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)`),
      v.check(
        (s) => DATE_RE.test(s) && realDay(s) && !Number.isNaN(Date.parse(s)),
        `${name} must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)`,
      ),
      v.description(what),
    ),
  );

export const seriesQuery = v.object({
  interval: v.optional(
    v.pipe(
      v.picklist(['hour', 'day'], 'interval must be hour or day'),
      v.description('bucket size, in UTC (default hour)'),
    ),
  ),
  from: when('from', 'the first bucket is the one holding this instant (default: 47 hours or 29 days before to)'),
  to: when('to', 'the last bucket is the one holding this instant (default: now)'),
});
