/** Response schemas of the contests, entries, bonus actions, purchases and analytics routes. */
import * as v from 'valibot';
import { riskInputEntries } from '../sql/risk.js';
import {
  CUSTOM_FIELDS_MAX_BYTES,
  CUSTOM_FIELDS_MAX_DEPTH,
  createEntrySchema,
  updateEntrySchema,
} from '../entries/entries.js';
import { int, nonNegInt, timestamp, uuid } from '../http/schemas.js';

/**
 * customFieldData as the document shows it: the route checks it with a custom check, which
 * JSON Schema cannot express (it would read as "anything").
 */
const customFieldData = v.optional(
  v.nullable(
    v.pipe(
      v.record(v.string(), v.unknown()),
      v.description(
        `any JSON object, at most ${CUSTOM_FIELDS_MAX_DEPTH} levels deep and ${CUSTOM_FIELDS_MAX_BYTES} bytes as UTF-8 JSON; null clears it on update`,
      ),
    ),
  ),
);

/** The create-entry and update-entry bodies, from the routes' own schemas. */
export const CreateEntryBody = v.object({ ...createEntrySchema.entries, ...riskInputEntries, customFieldData });
export const UpdateEntryBody = v.object({ ...updateEntrySchema.entries, customFieldData });

export const ContestStatus = v.picklist(['draft', 'active', 'ended', 'paused']);

export const Contest = v.pipe(
  v.strictObject({
    id: uuid,
    title: v.string(),
    description: v.nullable(v.string()),
    status: v.pipe(ContestStatus, v.description('`ended` also when an active contest is past its endDate')),
    startDate: v.nullable(timestamp),
    endDate: v.nullable(timestamp),
    isEvergreen: v.boolean(),
    mode: v.picklist(['giveaway', 'leaderboard', 'waitlist']),
    slug: v.string(),
    toolType: v.nullable(v.picklist(['content_gate', 'instant_win'])),
    entriesCount: nonNegInt,
  }),
  v.title('Contest'),
);

export const ContestWithViews = v.strictObject({ ...Contest.entries, viewsCount: nonNegInt });

export const ViewCount = v.strictObject({ viewsCount: nonNegInt });

// ---------------------------------------------------------------- entries

/** risk signals computed when the entry was created */
export const Risk = v.strictObject({
  level: v.picklist(['none', 'review', 'high']),
  reasons: v.array(
    v.picklist(['disposable_email', 'email_alias', 'self_referral', 'ip_velocity', 'referral_velocity']),
  ),
  review: v.nullable(v.picklist(['approved', 'rejected'])),
});

const entryListFields = {
  risk: Risk,
  id: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  phone: v.nullable(v.string()),
  points: nonNegInt,
  emailConfirmed: v.boolean(),
  disqualified: v.boolean(),
  referralCode: v.nullable(v.string()),
  createdAt: timestamp,
};

export const EntryListItem = v.strictObject(entryListFields);

export const Entry = v.strictObject({
  ...entryListFields,
  pointsUsed: nonNegInt,
  contestId: uuid,
  contestTitle: v.string(),
  referralsCount: nonNegInt,
  bonusActionsCompleted: nonNegInt,
  totalPurchaseValue: v.pipe(v.number(), v.minValue(0)),
  totalPurchaseCount: nonNegInt,
  customFieldData: v.nullable(v.record(v.string(), v.unknown())),
});

export const CreatedEntry = v.strictObject({
  entryId: uuid,
  email: v.nullable(v.string()),
  referralCode: v.pipe(v.string(), v.description("the entry's own referral code: what its share link carries")),
  alreadyExists: v.boolean(),
  isReferred: v.boolean(),
  pointsAwarded: v.strictObject({ advocate: nonNegInt, friend: nonNegInt }),
  pointsPending: v.pipe(
    v.optional(v.strictObject({ advocate: nonNegInt, friend: nonNegInt })),
    v.description('referral points held until the email is confirmed or the entry approved (then pointsAwarded is 0)'),
  ),
});

export const UpdatedEntry = v.strictObject({
  id: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  phone: v.nullable(v.string()),
  points: nonNegInt,
});

export const Disqualification = v.strictObject({
  entryId: uuid,
  disqualified: v.boolean(),
  message: v.picklist(['Entry has been disqualified', 'Entry has been re-qualified']),
});

export const PointsAdjustment = v.strictObject({
  message: v.string(),
  previousTotal: nonNegInt,
  newTotal: nonNegInt,
  adjustment: v.pipe(int, v.description('the change actually applied (a total never goes below 0)')),
});

// ---------------------------------------------------------------- bonus actions

export const EntryBonusAction = v.strictObject({
  id: uuid,
  action: v.string(),
  description: v.string(),
  icon: v.string(),
  iconColor: v.string(),
  points: nonNegInt,
  confirmationType: v.picklist(['auto', 'manual', 'click']),
  destinationUrl: v.nullable(v.string()),
  order: int,
  completed: v.boolean(),
  completedAt: v.nullable(timestamp),
  completionStatus: v.nullable(v.string()),
});

export const EntryBonusActions = v.strictObject({
  entryId: uuid,
  email: v.nullable(v.string()),
  totalPoints: nonNegInt,
  bonusActionsCompleted: nonNegInt,
  bonusActionsTotal: nonNegInt,
  bonusPointsEarned: nonNegInt,
  actions: v.array(EntryBonusAction),
});

export const BonusCompletion = v.union([
  v.strictObject({
    alreadyCompleted: v.literal(false),
    completedAt: timestamp,
    pointsAdded: nonNegInt,
    newTotalPoints: nonNegInt,
    message: v.string(),
  }),
  v.strictObject({
    alreadyCompleted: v.literal(true),
    completedAt: timestamp,
    message: v.literal('Bonus action already completed'),
  }),
]);

// ---------------------------------------------------------------- purchases

export const Purchase = v.strictObject({
  purchaseId: uuid,
  entryId: v.pipe(
    v.nullable(uuid),
    v.description('null only for an order first recorded by a referral webhook for a buyer with no entry'),
  ),
  pointsAwarded: nonNegInt,
  alreadyExists: v.boolean(),
  message: v.string(),
});

// ---------------------------------------------------------------- analytics

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
