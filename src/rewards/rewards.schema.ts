/** Rewards as requests take them and answers show them (one schema per body: it validates and documents). */
import * as v from 'valibot';
import { httpsUrl } from '../http/fields.js';
import { nonNegInt, nullable, timestamp, uuid } from '../http/schemas.js';
import { trimmedString } from '../lib/validation.js';

/** Codes added to a pool in one request, and in all. */
export const CODES_PER_REQUEST = 10_000;
export const CODES_PER_POOL = 100_000;
export const CODE_MAX = 100;

const threshold = (field: string, what: string) =>
  v.pipe(
    v.number(`${field} must be a whole number from 1 to 1000000`),
    v.integer(`${field} must be a whole number from 1 to 1000000`),
    v.minValue(1, `${field} must be a whole number from 1 to 1000000`),
    v.maxValue(1_000_000, `${field} must be a whole number from 1 to 1000000`),
    v.description(what),
  );

const code = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.trim(),
    v.minLength(1, `${field} must not be empty`),
    v.maxLength(CODE_MAX, `${field} must be at most ${CODE_MAX} characters`),
    v.check((s) => !/[\u0000-\u001f\u007f]/.test(s), `${field} must not contain control characters`),
  );

export const codeList = v.pipe(
  v.array(code('each code'), 'codes must be a list of strings'),
  v.maxLength(CODES_PER_REQUEST, `codes must have at most ${CODES_PER_REQUEST} codes per request`),
  v.description(
    `codes for a pool, each given once (at most ${CODES_PER_REQUEST} per request, ${CODES_PER_POOL} per pool; a code already in the pool is skipped)`,
  ),
);

const name = v.pipe(trimmedString('name', 100), v.minLength(1, 'name must not be empty'));
const description = v.nullable(trimmedString('description', 500));
const imageUrl = httpsUrl(
  'imageUrl',
  "an image of the prize, shown by the contest's hosted page: an https URL, or null",
);
const referralsRequired = threshold('referralsRequired', 'unlocks at this many confirmed referrals');
const pointsRequired = threshold('pointsRequired', 'unlocks at this many points');

export const CreateRewardBody = v.pipe(
  v.object({
    name,
    description: v.optional(description),
    imageUrl: v.optional(imageUrl),
    referralsRequired: v.optional(referralsRequired),
    pointsRequired: v.optional(pointsRequired),
    codes: v.optional(codeList),
    code: v.optional(v.pipe(code('code'), v.description('one code for everyone who unlocks it'))),
  }),
  v.check(
    (b) => (b.referralsRequired === undefined) !== (b.pointsRequired === undefined),
    'Give either referralsRequired or pointsRequired',
  ),
  v.check((b) => b.codes === undefined || b.code === undefined, 'Give either codes or code, not both'),
);
export type CreateRewardInput = v.InferOutput<typeof CreateRewardBody>;

export const UpdateRewardBody = v.pipe(
  v.object({
    name: v.optional(name),
    description: v.optional(description),
    imageUrl: v.optional(imageUrl),
    referralsRequired: v.optional(referralsRequired),
    pointsRequired: v.optional(pointsRequired),
    code: v.optional(v.pipe(code('code'), v.description('a new code for a reward that gives one code to everyone'))),
  }),
  v.check(
    (b) => b.referralsRequired === undefined || b.pointsRequired === undefined,
    'Give either referralsRequired or pointsRequired',
  ),
  v.check((b) => Object.values(b).some((x) => x !== undefined), 'Nothing to update'),
);
export type UpdateRewardInput = v.InferOutput<typeof UpdateRewardBody>;

export const AddCodesBody = v.object({ codes: codeList });

const thresholds = {
  referralsRequired: v.pipe(nullable(nonNegInt), v.description('confirmed referrals it takes (or null)')),
  pointsRequired: v.pipe(nullable(nonNegInt), v.description('points it takes (or null)')),
};

/** What a public key sees: what there is to earn, never a code. */
export const PublicReward = v.strictObject({
  id: uuid,
  name: v.string(),
  description: nullable(v.string()),
  imageUrl: nullable(v.string()),
  ...thresholds,
});

export const Reward = v.strictObject({
  id: uuid,
  contestId: uuid,
  name: v.string(),
  description: nullable(v.string()),
  imageUrl: nullable(v.string()),
  ...thresholds,
  gives: v.pipe(
    v.picklist(['codes', 'code', 'nothing']),
    v.description('a pool of codes, one code for all, or a status'),
  ),
  code: v.pipe(nullable(v.string()), v.description('the code for everyone (gives "code")')),
  codesTotal: v.pipe(nonNegInt, v.description('codes in the pool')),
  codesLeft: v.pipe(nonNegInt, v.description('codes not given yet')),
  unlocked: v.pipe(nonNegInt, v.description('entries that unlocked it')),
  waitingForCode: v.pipe(nonNegInt, v.description('unlocks waiting for a code (the pool ran dry)')),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const AddedCodes = v.strictObject({
  added: v.pipe(nonNegInt, v.description('codes added')),
  duplicates: v.pipe(nonNegInt, v.description('codes skipped: already in the pool or twice in the request')),
  given: v.pipe(nonNegInt, v.description('codes given at once to unlocks that were waiting for one')),
  codesTotal: nonNegInt,
  codesLeft: nonNegInt,
});

export const RewardUnlock = v.strictObject({
  unlockId: uuid,
  entryId: v.pipe(nullable(uuid), v.description('null once the entry was erased')),
  email: nullable(v.string()),
  name: nullable(v.string()),
  code: nullable(v.string()),
  waitingForCode: v.boolean(),
  unlockedAt: timestamp,
});

/** What an entry unlocked, and what it is closest to. */
export const EntryRewards = v.strictObject({
  unlocked: v.array(
    v.strictObject({
      rewardId: uuid,
      name: v.string(),
      description: nullable(v.string()),
      code: v.pipe(nullable(v.string()), v.description('the code it gave (null: none, or still waiting for one)')),
      waitingForCode: v.boolean(),
      unlockedAt: timestamp,
    }),
  ),
  next: v.pipe(
    nullable(
      v.strictObject({
        rewardId: uuid,
        name: v.string(),
        description: nullable(v.string()),
        ...thresholds,
        referralsMissing: v.pipe(nullable(nonNegInt), v.description('confirmed referrals still missing')),
        pointsMissing: v.pipe(nullable(nonNegInt), v.description('points still missing')),
      }),
    ),
    v.description('the reward not unlocked yet that is closest (the smallest share of its threshold missing), or null'),
  ),
});

/** POST /contests/{contestId}/rewards: codes repeated in the request are counted in `duplicates` */
export const CreatedReward = v.strictObject({ ...Reward.entries, duplicates: v.number() });
