/**
 * The settings of a contest, as the admin API and a team's private key create and change them:
 * one set of schemas and messages for both.
 */
import * as v from 'valibot';
import { httpsUrl, nonNegInt, publicCacheSeconds } from '../http/fields.js';
import { trimmedString } from '../http/validate.js';
import { ALLOWED_ORIGIN_MESSAGE, ALLOWED_ORIGINS_MAX, normalOrigin } from '../lib/origins.js';
import { PAGE_LEADERBOARD_MAX } from '../lib/page.js';
import { RISK_PER_HOUR_MAX } from '../lib/risk-limits.js';
import {
  COLOUR_RRGGBB,
  SHARE_CHANNELS,
  SHARE_MESSAGE_MAX,
  THEME_FONT_NAMES,
  THEME_RADIUS_MAX,
} from '../lib/share-channels.js';
import {
  SIGNUP_FIELD_KEY,
  SIGNUP_FIELD_LABEL_MAX,
  SIGNUP_FIELD_OPTIONS_MAX,
  SIGNUP_FIELD_TYPES,
  SIGNUP_FIELDS_MAX,
} from '../lib/signup-fields.js';

const colour = (field: string) =>
  v.optional(
    v.pipe(v.string(`${field} must be a colour #rrggbb`), v.regex(COLOUR_RRGGBB, `${field} must be a colour #rrggbb`)),
  );

const riskLimit = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be an integer`),
    v.minValue(1, `${field} must be between 1 and ${RISK_PER_HOUR_MAX}`),
    v.maxValue(RISK_PER_HOUR_MAX, `${field} must be between 1 and ${RISK_PER_HOUR_MAX}`),
  );

const isoDate = (field: string) =>
  v.pipe(v.string(`${field} must be an ISO 8601 date`), v.isoTimestamp(`${field} must be an ISO 8601 date`));

const FIELD_KEY_MESSAGE =
  'signupFields key must start with a letter, then letters, digits or _ (at most 40 characters)';
const FIELD_LABEL_MESSAGE = `signupFields label must be text of 1 to ${SIGNUP_FIELD_LABEL_MAX} characters`;
const FIELD_OPTIONS_MESSAGE = `signupFields options must be 1 to ${SIGNUP_FIELD_OPTIONS_MAX} different choices of 1 to ${SIGNUP_FIELD_LABEL_MAX} characters`;
const fieldLabel = v.pipe(
  v.string(FIELD_LABEL_MESSAGE),
  v.trim(),
  v.minLength(1, FIELD_LABEL_MESSAGE),
  v.maxLength(SIGNUP_FIELD_LABEL_MAX, FIELD_LABEL_MESSAGE),
  v.check((l) => !/[\u0000-\u001f\u007f]/.test(l), 'signupFields label must not contain control characters'),
);

/** One of a contest's own sign-up fields, as a settings body gives it. */
const signupField = v.pipe(
  v.strictObject(
    {
      key: v.pipe(v.string(FIELD_KEY_MESSAGE), v.regex(SIGNUP_FIELD_KEY, FIELD_KEY_MESSAGE)),
      label: fieldLabel,
      type: v.picklist(SIGNUP_FIELD_TYPES, `signupFields type must be one of ${SIGNUP_FIELD_TYPES.join(', ')}`),
      required: v.optional(v.boolean('signupFields required must be a boolean'), false),
      options: v.optional(
        v.pipe(
          v.array(fieldLabel, FIELD_OPTIONS_MESSAGE),
          v.minLength(1, FIELD_OPTIONS_MESSAGE),
          v.maxLength(SIGNUP_FIELD_OPTIONS_MAX, FIELD_OPTIONS_MESSAGE),
          v.check((o) => new Set(o).size === o.length, FIELD_OPTIONS_MESSAGE),
        ),
      ),
    },
    'signupFields must be a list of {key, label, type, required, options}',
  ),
  v.check(
    (f) => (f.type === 'select') === (f.options !== undefined),
    'signupFields options are given for a select, and only for one',
  ),
);

const PAGE_LEADERBOARD_MESSAGE = `pageLeaderboard must be a whole number from 0 to ${PAGE_LEADERBOARD_MAX}`;

const settingsEntries = {
  title: v.pipe(trimmedString('title', 200), v.minLength(1, 'title must not be empty')),
  description: v.nullable(trimmedString('description', 5000)),
  mode: v.picklist(['giveaway', 'leaderboard', 'waitlist'], 'mode must be one of giveaway, leaderboard, waitlist'),
  status: v.picklist(['draft', 'active', 'ended', 'paused'], 'status must be one of draft, active, ended, paused'),
  slug: v.pipe(
    v.string('Invalid slug'),
    v.maxLength(100, 'slug must be at most 100 characters'),
    v.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'slug must be lowercase letters, digits and single dashes'),
  ),
  startDate: v.nullable(isoDate('startDate')),
  endDate: v.nullable(isoDate('endDate')),
  isEvergreen: v.boolean('isEvergreen must be a boolean'),
  campaignType: v.picklist(
    ['viral', 'referral', 'affiliate'],
    'campaignType must be one of viral, referral, affiliate',
  ),
  requireEmailConfirmation: v.boolean('requireEmailConfirmation must be a boolean'),
  referral: v.object({
    advocatePoints: v.optional(nonNegInt('referral.advocatePoints')),
    friendPoints: v.optional(nonNegInt('referral.friendPoints')),
    creditOn: v.optional(v.picklist(['create', 'confirm'], 'referral.creditOn must be create or confirm')),
  }),
  risk: v.object({
    mode: v.optional(v.picklist(['flag', 'hold', 'block'], 'risk.mode must be one of flag, hold, block')),
    maxEntriesPerIpPerHour: v.optional(riskLimit('risk.maxEntriesPerIpPerHour')),
    maxReferralsPerHour: v.optional(riskLimit('risk.maxReferralsPerHour')),
  }),
  purchaseTracking: v.object({
    enabled: v.optional(v.boolean('purchaseTracking.enabled must be a boolean')),
    pointsPerPurchase: v.optional(nonNegInt('purchaseTracking.pointsPerPurchase')),
    pointsPerCurrencyUnit: v.optional(
      v.pipe(
        v.number('purchaseTracking.pointsPerCurrencyUnit must be a number'),
        v.finite('purchaseTracking.pointsPerCurrencyUnit must be a number'),
        v.minValue(0, 'purchaseTracking.pointsPerCurrencyUnit must be at least 0'),
        v.maxValue(1_000_000, 'purchaseTracking.pointsPerCurrencyUnit is too large'),
      ),
    ),
  }),
  externalTracking: v.object({ enabled: v.optional(v.boolean('externalTracking.enabled must be a boolean')) }),
  affiliate: v.object({
    commissionPercent: v.optional(
      v.pipe(
        v.number('affiliate.commissionPercent must be a number'),
        v.finite('affiliate.commissionPercent must be a number'),
        v.minValue(0, 'affiliate.commissionPercent must be between 0 and 100'),
        v.maxValue(100, 'affiliate.commissionPercent must be between 0 and 100'),
      ),
    ),
  }),
  shopifySecret: v.nullable(v.pipe(v.string('Invalid shopifySecret'), v.minLength(1), v.maxLength(500))),
  stripeSecret: v.nullable(v.pipe(v.string('Invalid stripeSecret'), v.minLength(1), v.maxLength(500))),
  toolType: v.nullable(
    v.picklist(['content_gate'], 'toolType must be content_gate or null (games are made with the instant-win API)'),
  ),
  publicCacheSeconds: publicCacheSeconds,
  publicSignup: v.pipe(
    v.boolean('publicSignup must be a boolean'),
    v.description('sign-ups with a public key (POST /contests/{contestId}/signup, the sign-up widget); default false'),
  ),
  consentText: v.pipe(
    v.nullable(trimmedString('consentText', 2000)),
    v.description('the consent a sign-up must agree to (`consent: true`); its SHA-256 is kept with the entry'),
  ),
  landingUrl: v.pipe(
    v.nullable(
      v.pipe(
        v.string('landingUrl must be an https URL'),
        v.maxLength(2000, 'landingUrl must be at most 2000 characters'),
        v.url('landingUrl must be an https URL'),
        // a page under development on this machine may be plain http
        v.regex(
          /^(https:\/\/|http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?([/?#]|$))/i,
          'landingUrl must be an https URL',
        ),
      ),
    ),
    v.description(
      "the https page that hosts the sign-up widget: the emails' links lead there (`http://localhost` and `http://127.0.0.1` pages too, for development)",
    ),
  ),
  allowedOrigins: v.pipe(
    v.array(
      v.pipe(
        v.string(ALLOWED_ORIGIN_MESSAGE),
        v.maxLength(300, ALLOWED_ORIGIN_MESSAGE),
        v.check((o) => normalOrigin(o) !== null, ALLOWED_ORIGIN_MESSAGE),
        v.transform((o) => normalOrigin(o)!),
      ),
      ALLOWED_ORIGIN_MESSAGE,
    ),
    v.maxLength(ALLOWED_ORIGINS_MAX, `allowedOrigins must have at most ${ALLOWED_ORIGINS_MAX} origins`),
    v.transform((list) => [...new Set(list)]),
    v.description(
      'the sites that embed the contest (origins: `https://shop.example.com`; `http://localhost:port` and `http://127.0.0.1:port` for development): a sign-up\'s `returnUrl` on one of them is where its confirmation and its "your link" email lead; any other page\'s address is ignored',
    ),
  ),
  botCheck: v.pipe(
    v.picklist(['off', 'turnstile'], 'botCheck must be off or turnstile'),
    v.description('`turnstile`: every sign-up carries a Cloudflare Turnstile token, checked before any write'),
  ),
  bonusActionsNeedEntryToken: v.pipe(
    v.boolean('bonusActionsNeedEntryToken must be a boolean'),
    v.description("public bonus-action completions need the visitor's entry token (Authorization: Bearer et_…)"),
  ),
  imageUrl: httpsUrl(
    'imageUrl',
    "the image of the contest's hosted page and of its link previews (og:image): an https URL, or null",
  ),
  logoUrl: httpsUrl('logoUrl', "the team's logo at the top of the hosted page: an https URL, or null"),
  rulesUrl: httpsUrl(
    'rulesUrl',
    "the contest's official rules, linked from the hosted page's footer: an https URL, or null",
  ),
  pageLeaderboard: v.pipe(
    v.number(PAGE_LEADERBOARD_MESSAGE),
    v.integer(PAGE_LEADERBOARD_MESSAGE),
    v.minValue(0, PAGE_LEADERBOARD_MESSAGE),
    v.maxValue(PAGE_LEADERBOARD_MAX, PAGE_LEADERBOARD_MESSAGE),
    v.description("how many of the leaderboard's first rows the hosted page shows, names masked (0: none)"),
  ),
  privacyUrl: httpsUrl(
    'privacyUrl',
    "the team's privacy policy, linked from the hosted page's footer: an https URL, or null",
  ),
  signupFields: v.pipe(
    v.array(signupField, 'signupFields must be a list of {key, label, type, required, options}'),
    v.maxLength(SIGNUP_FIELDS_MAX, `signupFields must have at most ${SIGNUP_FIELDS_MAX} fields`),
    v.check((l) => new Set(l.map((f) => f.key.toLowerCase())).size === l.length, 'signupFields must not repeat a key'),
    v.check(
      (l) => l.every((f) => !['email', 'name', 'phone'].includes(f.key.toLowerCase())),
      'signupFields key must not be email, name or phone (the form asks them itself)',
    ),
    v.description(
      `the form's own fields beside the email and the name, in order (at most ${SIGNUP_FIELDS_MAX}): \`key\` (what the entry's customFieldData names the answer by), \`label\`, \`type\` (${SIGNUP_FIELD_TYPES.join(', ')}), \`required\` (default false; a required checkbox must be ticked), \`options\` (a select's choices). A sign-up's customFields are checked against them: an unknown key, a missing required answer or a wrong value is a 400 naming the field. A PATCH replaces the whole list`,
    ),
  ),
  shareMessage: v.pipe(
    v.string('shareMessage must be a string'),
    v.trim(),
    v.minLength(1, 'shareMessage must hold {{link}}'),
    v.maxLength(SHARE_MESSAGE_MAX, `shareMessage must be at most ${SHARE_MESSAGE_MAX} characters`),
    v.check((m) => m.includes('{{link}}'), 'shareMessage must hold {{link}}'),
    v.check((m) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(m), 'shareMessage must not contain control characters'),
    v.description(
      `what the share buttons say, up to ${SHARE_MESSAGE_MAX} characters; \`{{link}}\` (required) is the visitor's link. Default \`Join me: {{link}}\``,
    ),
  ),
  shareChannels: v.pipe(
    v.array(
      v.picklist(SHARE_CHANNELS, `shareChannels must be a list of ${SHARE_CHANNELS.join(', ')}`),
      `shareChannels must be a list of ${SHARE_CHANNELS.join(', ')}`,
    ),
    v.maxLength(SHARE_CHANNELS.length, `shareChannels must be a list of ${SHARE_CHANNELS.join(', ')}`),
    v.check((l) => new Set(l).size === l.length, 'shareChannels must not repeat a channel'),
    v.description('the share buttons, in order; default x, facebook, linkedin, whatsapp, email'),
  ),
  theme: v.pipe(
    v.strictObject(
      {
        accent: colour('theme.accent'),
        background: colour('theme.background'),
        text: colour('theme.text'),
        radius: v.optional(
          v.pipe(
            v.number(`theme.radius must be an integer from 0 to ${THEME_RADIUS_MAX}`),
            v.integer(`theme.radius must be an integer from 0 to ${THEME_RADIUS_MAX}`),
            v.minValue(0, `theme.radius must be an integer from 0 to ${THEME_RADIUS_MAX}`),
            v.maxValue(THEME_RADIUS_MAX, `theme.radius must be an integer from 0 to ${THEME_RADIUS_MAX}`),
          ),
        ),
        font: v.optional(v.picklist(THEME_FONT_NAMES, `theme.font must be one of ${THEME_FONT_NAMES.join(', ')}`)),
      },
      'theme must be an object of accent, background, text, radius, font',
    ),
    v.description(
      "the look of the widget and the hosted page: accent, background and text colours (#rrggbb), radius (0-32 px), font (system, serif, rounded, mono); each optional, the page's own CSS variables still win. A PATCH replaces the whole theme",
    ),
  ),
};

type Optionalize<T extends Record<string, v.GenericSchema>> = { [K in keyof T]: v.OptionalSchema<T[K], undefined> };

const optionalAll = <T extends Record<string, v.GenericSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, s]) => [k, v.optional(s)])) as Optionalize<T>;

export const updateSettings = v.object(optionalAll(settingsEntries));

export const createSettings = v.object({ ...optionalAll(settingsEntries), title: settingsEntries.title });
