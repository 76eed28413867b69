import * as v from 'valibot';
import { int, nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { pageQuerySchema } from '../http/validate.js';
import { riskInputEntries } from '../sql/risk.js';
import { createEntrySchema, SEARCH_MAX, updateEntrySchema } from './entries.js';
import { MAX_POINTS_ADJUSTMENT, REASON_MAX } from './points.js';

/** POST /contests/{contestId}/entries: the entry's fields, its referral code and the risk signals. */
export const CreateEntryBody = v.object({ ...createEntrySchema.entries, ...riskInputEntries });

/** PUT /entries/{entryId} */
export const UpdateEntryBody = updateEntrySchema;

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

/** A filter of the query string: `true` or `false`. */
const trueOrFalse = (name: string, description: string) =>
  v.optional(v.pipe(v.picklist(['true', 'false'], `${name} must be true or false`), v.description(description)));

/** The entries list's filters; the CSV export takes the same (src/entries/data-out.routes.ts). */
export const entryFilterQuery = {
  search: v.optional(
    v.pipe(
      v.string('Invalid search'),
      v.maxLength(SEARCH_MAX, `search must be at most ${SEARCH_MAX} characters`),
      v.description(
        'case-insensitive substring of the email or the name, or a referral code exactly (a masked public key: a whole email or a referral code)',
      ),
    ),
  ),
  risk: v.optional(
    v.pipe(
      v.picklist(['review', 'high'], 'risk must be review or high'),
      v.description('entries of exactly this risk level'),
    ),
  ),
  confirmed: trueOrFalse('confirmed', 'entries whose email is (or is not) confirmed'),
  disqualified: trueOrFalse('disqualified', 'disqualified entries, or the others'),
  referred: trueOrFalse('referred', 'entries that joined with a referral code, or the others'),
  referredBy: v.optional(
    v.pipe(
      v.string(),
      v.uuid('referredBy must be an entry id'),
      v.description("entries that joined with this entry's referral code"),
    ),
  ),
  review: v.optional(
    v.pipe(
      v.picklist(['pending'], 'review must be pending'),
      v.description('pending: entries with risk signals (level review or high) not reviewed yet: the review queue'),
    ),
  ),
};

export const entryListQuery = v.object({
  ...pageQuerySchema,
  ...entryFilterQuery,
  sort: v.optional(
    v.pipe(
      v.picklist(['newest', 'oldest', 'points'], 'sort must be newest, oldest or points'),
      v.description('newest first (default), oldest first, or most points first'),
    ),
  ),
});

export const disqualifyBody = v.object({
  disqualify: v.optional(v.boolean('disqualify must be a boolean')),
  reason: v.optional(
    v.pipe(
      v.string('reason must be a string'),
      v.trim(),
      v.maxLength(REASON_MAX, `reason must be at most ${REASON_MAX} characters`),
      v.description(
        "why (kept in the entry's points history as a row of 0 points and sent in the event's reason); at most 500 characters",
      ),
    ),
  ),
});

const pointsMessage = `points must be a non-zero integer between -${MAX_POINTS_ADJUSTMENT} and ${MAX_POINTS_ADJUSTMENT}`;

export const adjustBody = v.pipe(
  v.object({
    points: v.optional(
      v.nullable(
        v.pipe(
          v.number(pointsMessage),
          v.integer(pointsMessage),
          v.minValue(-MAX_POINTS_ADJUSTMENT, pointsMessage),
          v.maxValue(MAX_POINTS_ADJUSTMENT, pointsMessage),
          v.notValue(0, pointsMessage),
        ),
      ),
    ),
    reason: v.optional(
      v.nullable(
        v.pipe(
          v.string('reason must be a string'),
          v.trim(),
          v.maxLength(REASON_MAX, `reason must be at most ${REASON_MAX} characters`),
        ),
      ),
    ),
  }),
  v.check((b) => b.points != null && !!b.reason, 'Missing points or reason'),
);

// ---------------------------------------------------------------- getting data out

/** The CSV export's filters: the entries list's. */
export const entryFilterParams = v.object(entryFilterQuery);

const list = v.array(v.record(v.string(), v.unknown()));
/** GET /entries/{entryId}/export: everything held about the person */
export const personSchema = v.object({
  entry: v.pipe(Entry, v.description('the entry as GET /api/v1/entries/:entryId shows it')),
  ledger: v.array(v.object({ delta: v.number(), reason: v.string(), source: v.string(), createdAt: v.string() })),
  bonusActions: list,
  purchases: list,
  instantWinPlays: list,
  emails: v.array(
    v.object({ type: v.string(), status: v.string(), createdAt: v.string(), sentAt: v.nullable(v.string()) }),
  ),
});

/** DELETE /entries/{entryId} */
export const Erased = v.object({ entryId: v.string(), erased: v.literal(true) });

/** GET /api/confirm/{token} with Accept: application/json */
export const Confirmed = v.strictObject({ entryId: v.pipe(v.string(), v.uuid()), emailConfirmed: v.literal(true) });
