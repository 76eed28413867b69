import * as v from 'valibot';
import { riskInputEntries } from '../sql/risk.js';
import { CUSTOM_FIELDS_MAX_BYTES, CUSTOM_FIELDS_MAX_DEPTH, createEntrySchema, updateEntrySchema } from './entries.js';
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
  position: v.pipe(
    v.nullable(nonNegInt),
    v.description(
      "place in the contest's order (the leaderboard's: points, then who joined first); null while the entry does not count",
    ),
  ),
  consent: v.pipe(
    v.nullable(v.strictObject({ at: timestamp, textSha256: v.string() })),
    v.description("the consent given at sign-up: when, and the SHA-256 of the contest's consentText agreed to"),
  ),
  referredBy: v.pipe(v.nullable(uuid), v.description('the entry whose referral code this one joined with')),
  source: v.pipe(
    v.picklist(['api', 'signup', 'instant_win', 'webhook']),
    v.description(
      "how the entry came: the team's server (api), a page's sign-up (signup), an instant-win claim, an inbound webhook",
    ),
  ),
  admittedAt: v.pipe(
    v.nullable(timestamp),
    v.description('when a waitlist let the entry in (POST /contests/{contestId}/admit); null while it waits'),
  ),
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
