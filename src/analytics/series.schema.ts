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
