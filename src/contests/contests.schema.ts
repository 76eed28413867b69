/** Response schemas of the contests routes (a contest as the v1 API and the admin API show it). */
import * as v from 'valibot';
import { nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { pageQuerySchema } from '../http/validate.js';
import { SHARE_CHANNELS, THEME_FONT_NAMES } from '../lib/share-channels.js';
import { SIGNUP_FIELD_TYPES } from '../lib/signup-fields.js';
import { TOOL_TYPES } from '../sql/contests.js';

/** A contest's look (each part optional: the widget's own default) */
export const Theme = v.strictObject({
  accent: v.optional(v.string()),
  background: v.optional(v.string()),
  text: v.optional(v.string()),
  radius: v.optional(v.number()),
  font: v.optional(v.picklist(THEME_FONT_NAMES)),
});

/** One of a contest's own sign-up fields (its `signupFields`), as answered. */
export const SignupField = v.strictObject({
  key: v.string(),
  label: v.string(),
  type: v.picklist(SIGNUP_FIELD_TYPES),
  required: v.boolean(),
  options: v.optional(v.array(v.string())),
});

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

export const AdminContest = v.strictObject({
  ...Contest.entries,
  viewsCount: nonNegInt,
  teamId: uuid,
  campaignType: v.picklist(['viral', 'referral', 'affiliate']),
  requireEmailConfirmation: v.boolean(),
  referral: v.strictObject({
    advocatePoints: nonNegInt,
    friendPoints: nonNegInt,
    creditOn: v.picklist(['create', 'confirm']),
  }),
  risk: v.strictObject({
    mode: v.picklist(['flag', 'hold', 'block']),
    maxEntriesPerIpPerHour: nonNegInt,
    maxReferralsPerHour: nonNegInt,
  }),
  purchaseTracking: v.strictObject({
    enabled: v.boolean(),
    pointsPerPurchase: nonNegInt,
    pointsPerCurrencyUnit: v.pipe(v.number(), v.minValue(0)),
  }),
  externalTracking: v.strictObject({ enabled: v.boolean() }),
  affiliate: v.strictObject({ commissionPercent: v.pipe(v.number(), v.minValue(0), v.maxValue(100)) }),
  publicCacheSeconds: v.pipe(
    v.number(),
    v.description("seconds a public key's reads may come from a cache; 0: always exact"),
  ),
  publicSignup: v.boolean(),
  consentText: v.nullable(v.string()),
  landingUrl: v.nullable(v.string()),
  allowedOrigins: v.array(v.string()),
  botCheck: v.picklist(['off', 'turnstile']),
  bonusActionsNeedEntryToken: v.boolean(),
  imageUrl: v.nullable(v.string()),
  logoUrl: v.nullable(v.string()),
  rulesUrl: v.nullable(v.string()),
  privacyUrl: v.nullable(v.string()),
  pageLeaderboard: nonNegInt,
  shareMessage: v.string(),
  shareChannels: v.array(v.picklist(SHARE_CHANNELS)),
  theme: Theme,
  signupFields: v.array(SignupField),
  secrets: v.pipe(
    v.strictObject({ shopifySecretSet: v.boolean(), stripeSecretSet: v.boolean(), webhookSecretSet: v.boolean() }),
    v.description('whether each secret is set; secrets themselves are never shown'),
  ),
});

export const contestListQuery = v.object({
  toolType: v.optional(v.picklist(TOOL_TYPES, `toolType must be one of ${TOOL_TYPES.join(', ')}`)),
  ...pageQuerySchema,
});
