import * as v from 'valibot';
import { int, nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { queryInteger } from '../http/validate.js';

export const Analytics = v.strictObject({
  totalEntries: nonNegInt,
  confirmedEntries: nonNegInt,
  disqualifiedEntries: nonNegInt,
  totalViews: nonNegInt,
  totalBonusCompletions: nonNegInt,
  points: v.strictObject({ total: nonNegInt, average: v.pipe(v.number(), v.minValue(0)), highest: nonNegInt }),
});

export const LeaderboardRow = v.strictObject({
  rank: v.pipe(int, v.minValue(1)),
  id: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  points: nonNegInt,
  commission: v.optional(v.pipe(v.number(), v.description('affiliate contests only (metric `commission`)'))),
  referralCode: v.nullable(v.string()),
  referralsCount: nonNegInt,
  joinedAt: v.nullable(timestamp),
});

export const LeaderboardMetric = v.pipe(
  v.picklist(['points', 'commission']),
  v.description('what the rows are ranked by'),
);

export const leaderboardQuery = v.object({
  limit: v.optional(queryInteger('rows, 1-100, default 25')),
});
