/** Request bodies of the draws. */
import * as v from 'valibot';

const int = (msg: string, min: number, max: number) =>
  v.pipe(v.number(msg), v.integer(msg), v.minValue(min, msg), v.maxValue(max, msg));

const bool = (field: string) => v.boolean(`${field} must be true or false`);

export const createDrawSchema = v.object({
  winners: v.optional(int('winners must be an integer between 1 and 100', 1, 100), 1),
  weighting: v.optional(v.picklist(['equal', 'points'], 'weighting must be equal or points'), 'equal'),
  confirmedOnly: v.optional(bool('confirmedOnly'), true),
  minPoints: v.optional(int('minPoints must be an integer >= 0', 0, 2147483647), 0),
  excludePreviousWinners: v.optional(bool('excludePreviousWinners'), true),
  label: v.optional(
    v.nullable(v.pipe(v.string('label must be a string'), v.maxLength(200, 'label must be at most 200 characters'))),
    null,
  ),
  notifyWinners: v.optional(
    v.pipe(
      bool('notifyWinners'),
      v.description('email each winner at the reveal (and a replacement when it is drawn), with draw.winner_notified'),
    ),
    false,
  ),
});

const PRINTABLE_512 = /^[\x20-\x7e]{1,512}$/;

export const revealSchema = v.object({
  publicRandomness: v.optional(
    v.nullable(
      v.pipe(
        v.string('publicRandomness must be 1 to 512 printable ASCII characters'),
        v.regex(PRINTABLE_512, 'publicRandomness must be 1 to 512 printable ASCII characters'),
        v.description('public randomness published after the commit (a drand round, lottery numbers...)'),
      ),
    ),
  ),
});

export const replaceSchema = v.object({
  // missing: `reason is required`; not a string: `Invalid reason` (the default messages)
  reason: v.pipe(
    v.string(),
    v.minLength(1, 'reason must be 1 to 500 characters'),
    v.maxLength(500, 'reason must be 1 to 500 characters'),
  ),
});
