/**
 * A bonus action's settings as a request takes them: one definition for the admin API and for a
 * team's private key (create and change), with the same messages.
 */
import * as v from 'valibot';
import { nonNegInt } from '../http/fields.js';
import { nonNegInt as count, int, timestamp, uuid } from '../http/schemas.js';
import { pageQuerySchema } from '../http/validate.js';
import { trimmedString } from '../lib/validation.js';
import { ANSWER_MAX, PROOF_MAX } from './bonus-actions.js';

export const CONFIRMATION_TYPES = ['auto', 'manual', 'click'] as const;

export const bonusActionFields = {
  action: v.pipe(trimmedString('action', 100), v.minLength(1, 'action must not be empty')),
  description: v.optional(trimmedString('description', 2000)),
  icon: v.optional(trimmedString('icon', 200)),
  iconColor: v.optional(trimmedString('iconColor', 50)),
  points: nonNegInt('points'),
  confirmationType: v.optional(v.picklist(CONFIRMATION_TYPES, 'confirmationType must be one of auto, manual, click')),
  destinationUrl: v.optional(
    v.nullable(
      v.pipe(
        v.string('Invalid destinationUrl'),
        v.maxLength(2000),
        v.url('Invalid destinationUrl'),
        v.regex(/^https?:\/\//i, 'destinationUrl must be an http(s) URL'),
      ),
    ),
  ),
  order: v.optional(
    v.pipe(
      v.number('order must be a number'),
      v.integer('order must be an integer'),
      v.minValue(-1_000_000),
      v.maxValue(1_000_000),
    ),
  ),
};

export const createBonusActionBody = v.pipe(
  v.object(bonusActionFields),
  v.check((b) => b.confirmationType !== 'click' || !!b.destinationUrl, 'A click action needs a destinationUrl'),
);

export const UPDATABLE_BONUS_ACTION_FIELDS = [
  'action',
  'description',
  'icon',
  'iconColor',
  'points',
  'confirmationType',
  'destinationUrl',
  'order',
] as const;

/** Any of the fields; at least one. Points already awarded stay as they were. */
export const updateBonusActionBody = v.pipe(
  v.object({
    ...bonusActionFields,
    action: v.optional(bonusActionFields.action),
    points: v.optional(bonusActionFields.points),
  }),
  v.check(
    (b) => UPDATABLE_BONUS_ACTION_FIELDS.some((k) => (b as Record<string, unknown>)[k] !== undefined),
    `At least one of ${UPDATABLE_BONUS_ACTION_FIELDS.join(', ')} is required`,
  ),
);

export const COMPLETION_STATUSES = ['pending', 'verified', 'rejected'] as const;

/** A completion as the review list shows it. */
export const Completion = v.strictObject({
  id: uuid,
  entryId: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  bonusActionId: uuid,
  action: v.string(),
  status: v.picklist(COMPLETION_STATUSES),
  proof: v.nullable(v.string()),
  answer: v.nullable(v.string()),
  pointsAwarded: count,
  completedAt: timestamp,
});

export const EntryBonusAction = v.strictObject({
  id: uuid,
  action: v.string(),
  description: v.string(),
  icon: v.string(),
  iconColor: v.string(),
  points: count,
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
  totalPoints: count,
  bonusActionsCompleted: count,
  bonusActionsTotal: count,
  bonusPointsEarned: count,
  actions: v.array(EntryBonusAction),
});

export const BonusCompletion = v.union([
  v.strictObject({
    alreadyCompleted: v.literal(false),
    completedAt: timestamp,
    pointsAdded: count,
    newTotalPoints: count,
    message: v.string(),
  }),
  v.strictObject({
    alreadyCompleted: v.literal(true),
    completedAt: timestamp,
    message: v.literal('Bonus action already completed'),
  }),
]);

// ---------------------------------------------------------------- purchases

export const BonusAction = v.strictObject({
  id: uuid,
  contestId: uuid,
  action: v.string(),
  description: v.string(),
  icon: v.string(),
  iconColor: v.string(),
  points: count,
  confirmationType: v.picklist(['auto', 'manual', 'click']),
  destinationUrl: v.nullable(v.string()),
  order: int,
});

/** A manual completion's review: its status and the points it added. */
export const verifyResultSchema = v.object({
  completionStatus: v.picklist(['verified', 'rejected']),
  pointsAdded: v.number(),
  newTotalPoints: v.number(),
});

export const lookupQuery = v.object({
  email: v.optional(v.pipe(v.string('Invalid email'), v.description("with entryId `lookup`: the entry's email"))),
  contestId: v.optional(v.pipe(v.string('Invalid contestId'), v.description('with entryId `lookup`: the contest'))),
});

/** Multi-line text (proof URL, quiz answer): bounded, no NUL; '' and null read as absent. */
const note = (field: string, max: number) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.string(`${field} must be a string`),
        v.trim(),
        v.maxLength(max, `${field} must be at most ${max} characters`),
        v.check((s) => !s.includes('\u0000'), `${field} must not contain NUL characters`),
      ),
    ),
  );

export const verifyBody = v.object({
  approve: v.pipe(v.boolean('approve must be a boolean')),
});

export const completeBody = v.object({ proof: note('proof', PROOF_MAX), answer: note('answer', ANSWER_MAX) });

export const completionsQuery = v.object({
  ...pageQuerySchema,
  status: v.optional(
    v.pipe(
      v.picklist(COMPLETION_STATUSES, 'status must be pending, verified or rejected'),
      v.description('pending (default): manual completions waiting for review'),
    ),
  ),
});
