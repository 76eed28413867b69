/** Bodies and answers of sign-ups from a page and of the visitor's own entry (/me). */
import * as v from 'valibot';
import { SignupField, Theme } from '../contests/contests.schema.js';
import { CUSTOM_FIELDS_MAX_BYTES, CUSTOM_FIELDS_MAX_DEPTH, createEntrySchema } from '../entries/entries.js';
import { nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { returnPage } from '../lib/origins.js';
import { SHARE_CHANNELS } from '../lib/share-channels.js';
import { EntryRewards } from '../rewards/rewards.schema.js';
import { ADMIT_MAX } from './admit.js';
import { TURNSTILE_TOKEN_MAX } from './turnstile.js';

/** POST /contests/{contestId}/signup: an entry's fields (email required), consent and the bot check's token. */
const CHANNELS = SHARE_CHANNELS.join(', ');
const channelSchema = (field: string) => v.picklist(SHARE_CHANNELS, `${field} must be one of ${CHANNELS}`);

export const SignupBody = v.object({
  email: v.pipe(
    v.string('Invalid email'),
    v.description("the visitor's email (required: the sign-up is confirmed by email)"),
  ),
  name: createEntrySchema.entries.name,
  phone: createEntrySchema.entries.phone,
  referralCode: createEntrySchema.entries.referralCode,
  customFields: v.optional(
    v.nullable(
      v.pipe(
        v.record(v.string(), v.unknown(), 'customFields must be an object'),
        v.description(
          `the answers to the contest's signupFields, by key (kept as the entry's customFieldData): each checked against its field, and no other key (400 naming the field). A contest without signupFields takes any JSON object, at most ${CUSTOM_FIELDS_MAX_DEPTH} levels deep and ${CUSTOM_FIELDS_MAX_BYTES} bytes`,
        ),
      ),
    ),
  ),
  consent: v.optional(
    v.pipe(
      v.boolean('consent must be a boolean'),
      v.description("`true`: the visitor agreed to the contest's consentText (required when it has one)"),
    ),
  ),
  channel: v.optional(
    v.pipe(
      v.nullable(channelSchema('channel')),
      v.description('the share channel the visitor came by (`via=` of the link they opened)'),
    ),
  ),
  returnUrl: v.optional(
    v.pipe(
      v.string('returnUrl must be an http or https URL'),
      v.maxLength(2000, 'returnUrl must be at most 2000 characters'),
      v.check((u) => returnPage(u) !== null, 'returnUrl must be an http or https URL'),
      v.description(
        'the page the visitor signs up on (the widget sends its own): the confirmation and the "your link" email lead back there when its origin is one of the contest\'s `allowedOrigins`; any other is ignored (they lead to the contest\'s landingUrl, else its hosted page)',
      ),
    ),
  ),
  turnstileToken: v.optional(
    v.pipe(
      v.string('Invalid turnstileToken'),
      v.maxLength(TURNSTILE_TOKEN_MAX, `turnstileToken must be at most ${TURNSTILE_TOKEN_MAX} characters`),
      v.description('the Cloudflare Turnstile token, for a contest with botCheck "turnstile"'),
    ),
  ),
});

export const SignupCreated = v.strictObject({
  entryId: uuid,
  referralCode: v.string(),
  entryToken: v.pipe(
    v.string(),
    v.description("the visitor's credential for their own entry (GET /api/v1/me); shown once, keep it"),
  ),
  confirmationRequired: v.boolean(),
  position: v.pipe(
    v.nullable(nonNegInt),
    v.description('place in the contest (1 = first); null until the entry counts'),
  ),
});

export const SignupExisting = v.strictObject({
  alreadyExists: v.pipe(
    v.literal(true),
    v.description(
      'the email was entered before: nothing of that entry is shown; its owner is emailed a link to their page',
    ),
  ),
  linkSent: v.pipe(
    v.boolean(),
    v.description(
      'whether this sign-up emailed that link: false when one went to the address in the last 10 minutes, when ' +
        "the mailbox has had its hour's share of emails, or when the contest has no page to link to",
    ),
  ),
});

export const SignupConfig = v.strictObject({
  contestId: uuid,
  title: v.string(),
  description: v.nullable(v.string()),
  mode: v.picklist(['giveaway', 'leaderboard', 'waitlist']),
  publicSignup: v.boolean(),
  consentText: v.nullable(v.string()),
  botCheck: v.picklist(['off', 'turnstile']),
  turnstileSiteKey: v.pipe(v.nullable(v.string()), v.description('the site key the widget shows the challenge with')),
  sendsLink: v.pipe(
    v.boolean(),
    v.description(
      'a sign-up with an email already entered sends its owner a link to their page (the contest has a landingUrl, or its hosted page)',
    ),
  ),
  shareMessage: v.pipe(v.string(), v.description("what the share buttons say; `{{link}}` is the visitor's link")),
  shareChannels: v.pipe(v.array(v.picklist(SHARE_CHANNELS)), v.description('the share buttons, in order')),
  theme: v.pipe(Theme, v.description("the contest's look (each part optional)")),
  signupFields: v.pipe(
    v.array(SignupField),
    v.description("the form's own fields after the email and the name, in order; a sign-up's customFields answer them"),
  ),
});

export const Me = v.strictObject({
  entryId: uuid,
  contestId: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  points: v.number(),
  position: v.pipe(
    v.nullable(nonNegInt),
    v.description('place in the contest (1 = first); null while the entry does not count'),
  ),
  total: v.pipe(nonNegInt, v.description('how many entries count (confirmed, not disqualified)')),
  referralCode: v.string(),
  referralsCount: v.pipe(
    nonNegInt,
    v.description("entries that signed up with the visitor's code, whatever their state"),
  ),
  confirmedReferrals: v.pipe(
    nonNegInt,
    v.description(
      "of them, those who count (confirmed, not disqualified, not waiting for review): the count the rewards' thresholds use",
    ),
  ),
  pendingReferrals: v.pipe(
    nonNegInt,
    v.description('of them, those who may still count (email not confirmed yet, or waiting for review)'),
  ),
  visits: v.pipe(nonNegInt, v.description("how many opened the visitor's share link (POST /contests/{id}/visits)")),
  shares: v.pipe(nonNegInt, v.description('how many times the visitor clicked a share button (POST /me/shares)')),
  confirmed: v.boolean(),
  admittedAt: v.pipe(v.nullable(timestamp), v.description('when a waitlist let this entry in; null while it waits')),
  createdAt: timestamp,
  rewards: v.pipe(
    EntryRewards,
    v.description('what this entry unlocked, with its codes, and the reward it is closest to'),
  ),
});

const countMessage = `count must be an integer between 1 and ${ADMIT_MAX}`;

export const AdmitBody = v.pipe(
  v.object({
    count: v.optional(
      v.pipe(
        v.number(countMessage),
        v.integer(countMessage),
        v.minValue(1, countMessage),
        v.maxValue(ADMIT_MAX, countMessage),
        v.description('admit the first `count` entries still waiting, by position'),
      ),
    ),
    entryIds: v.optional(
      v.pipe(
        v.array(v.string('entryIds must be entry ids'), 'entryIds must be a list of entry ids'),
        v.minLength(1, 'entryIds must not be empty'),
        v.maxLength(ADMIT_MAX, `entryIds must have at most ${ADMIT_MAX} ids`),
        v.description('admit these entries (those still waiting; others are left as they are)'),
      ),
    ),
  }),
  v.check((b) => (b.count === undefined) !== (b.entryIds === undefined), 'Give either count or entryIds'),
);

export const Admitted = v.strictObject({
  entryIds: v.pipe(v.array(uuid), v.description('the entries this admission let in, by position')),
  count: v.number(),
});

// ---------------------------------------------------------------- sharing

/** POST /contests/{contestId}/visits */
export const VisitBody = v.object({
  referralCode: v.pipe(
    v.string('referralCode must be a string'),
    v.trim(),
    v.minLength(1, 'referralCode is required'),
    v.maxLength(100, 'referralCode must be at most 100 characters'),
    v.description('the code of the link the visitor opened (`ref=`)'),
  ),
  channel: v.optional(
    v.pipe(v.nullable(channelSchema('channel')), v.description('the channel of the link (`via=`), when it had one')),
  ),
});

/** The same answer whether the code is one of the contest's or not */
export const VisitReceived = v.strictObject({ received: v.literal(true) });

/** POST /me/shares */
export const ShareBody = v.object({
  channel: v.pipe(channelSchema('channel'), v.description('the share button clicked')),
});

export const ShareRecorded = v.strictObject({ recorded: v.literal(true) });
