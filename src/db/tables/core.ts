/** Teams, their API keys, contests, entries, and the visitors' entry tokens. */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { PAGE_LEADERBOARD_MAX } from '../../lib/page.js';
import { RISK_PER_HOUR_MAX } from '../../lib/risk-limits.js';
import { SIGNUP_FIELDS_MAX } from '../../lib/signup-fields.js';
import { bytea, createdAt, defaultShareChannels, id, shareChannelList, ts } from './columns.js';

const riskMax = sql.raw(String(RISK_PER_HOUR_MAX));

export const teams = pgTable('teams', {
  id: id(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    name: text('name'),
    /** hex SHA-256 of the whole key; the key itself is never stored */
    keyHash: text('key_hash').notNull(),
    /** first characters of the key, for display ("sk_AbCd…") */
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
    /** public keys: 'full' or 'masked' (personal data of entries masked in every answer); private: null */
    personalData: text('personal_data'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_uq').on(t.keyHash),
    index('api_keys_team_idx').on(t.teamId),
    check('api_keys_type_ck', sql`${t.type} in ('public', 'private')`),
    check(
      'api_keys_personal_data_ck',
      sql`${t.personalData} is null or (${t.type} = 'public' and ${t.personalData} in ('full', 'masked'))`,
    ),
  ],
);

export const contests = pgTable(
  'contests',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** null for campaigns, 'content_gate' or 'instant_win' for tools */
    toolType: text('tool_type'),
    title: text('title').notNull(),
    description: text('description'),
    mode: text('mode').notNull().default('giveaway'),
    status: text('status').notNull().default('draft'),
    /** unique among campaigns and content gates; for instant-win games it holds the preset */
    slug: text('slug').notNull(),
    startDate: ts('start_date'),
    endDate: ts('end_date'),
    isEvergreen: boolean('is_evergreen').notNull().default(false),
    campaignType: text('campaign_type').notNull().default('viral'),
    requireEmailConfirmation: boolean('require_email_confirmation').notNull().default(true),
    referralAdvocatePoints: integer('referral_advocate_points').notNull().default(0),
    referralFriendPoints: integer('referral_friend_points').notNull().default(0),
    purchaseTrackingEnabled: boolean('purchase_tracking_enabled').notNull().default(false),
    pointsPerPurchase: integer('points_per_purchase').notNull().default(0),
    pointsPerCurrencyUnit: numeric('points_per_currency_unit', { precision: 14, scale: 4 }).notNull().default('0'),
    externalTrackingEnabled: boolean('external_tracking_enabled').notNull().default(false),
    affiliateCommissionPercent: numeric('affiliate_commission_percent', { precision: 7, scale: 4 })
      .notNull()
      .default('0'),
    /** write-only secrets: never returned by any API */
    shopifySecret: text('shopify_secret'),
    stripeSecret: text('stripe_secret'),
    webhookSecret: text('webhook_secret'),
    viewsCount: bigint('views_count', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    /** referral points credited at entry creation ('create') or when the new entry confirms its email ('confirm') */
    referralCreditOn: text('referral_credit_on').notNull().default('create'),
    /** risk signals: 'flag' records them, 'hold' holds referral points until review, 'block' refuses high-risk entries */
    riskMode: text('risk_mode').notNull().default('flag'),
    riskMaxEntriesPerIpPerHour: integer('risk_max_entries_per_ip_per_hour').notNull().default(10),
    riskMaxReferralsPerHour: integer('risk_max_referrals_per_hour').notNull().default(20),
    /**
     * seconds a public key's reads of this contest or game (the contest, its leaderboard, its
     * bonus actions, the game) may be answered from a cache (src/http/public-cache.ts); 0: exact
     */
    publicCacheSeconds: integer('public_cache_seconds').notNull().default(0),
    /** sign-ups with a public key (POST /contests/:id/signup, the <contest-signup> widget) */
    publicSignup: boolean('public_signup').notNull().default(false),
    /** the consent a sign-up must agree to (its SHA-256 is kept with the entry), or null */
    consentText: text('consent_text'),
    /** the https page that hosts the sign-up widget (links in emails lead there), or null */
    landingUrl: text('landing_url'),
    /**
     * the sites that embed the contest (origins, src/lib/origins.ts): a sign-up's returnUrl on one
     * of them is where its confirmation and "your link" email lead
     */
    allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
    /** 'off' or 'turnstile' (Cloudflare Turnstile checked before any write) */
    botCheck: text('bot_check').notNull().default('off'),
    /** public bonus-action completions need the visitor's entry token */
    bonusActionsNeedEntryToken: boolean('bonus_actions_need_entry_token').notNull().default(false),
    /** the image of the hosted page and of link previews (https), or null */
    imageUrl: text('image_url'),
    /** the hosted page's logo, and its footer's links to the rules and the privacy policy (https) */
    logoUrl: text('logo_url'),
    rulesUrl: text('rules_url'),
    privacyUrl: text('privacy_url'),
    /** how many leaderboard rows the hosted page shows (0 to 50) */
    pageLeaderboard: integer('page_leaderboard').notNull().default(0),
    /** what a share button says, `{{link}}` the visitor's link */
    shareMessage: text('share_message').notNull().default('Join me: {{link}}'),
    /** the share buttons, in order */
    shareChannels: text('share_channels').array().notNull().default(defaultShareChannels),
    /** the look of the widget and the hosted page: {accent, background, text, radius, font}, each optional */
    theme: jsonb('theme').notNull().default(sql`'{}'::jsonb`),
    /**
     * the form's own fields beside the email and the name (src/lib/signup-fields.ts): a list of
     * {key, label, type, required, options}; a sign-up's answers are checked against it
     */
    signupFields: jsonb('signup_fields').notNull().default(sql`'[]'::jsonb`),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contests_slug_uq').on(t.slug).where(sql`${t.toolType} is distinct from 'instant_win'`),
    index('contests_team_tool_idx').on(t.teamId, t.toolType, t.createdAt),
    check('contests_tool_type_ck', sql`${t.toolType} is null or ${t.toolType} in ('content_gate', 'instant_win')`),
    check('contests_mode_ck', sql`${t.mode} in ('giveaway', 'leaderboard', 'waitlist')`),
    check('contests_public_cache_ck', sql`${t.publicCacheSeconds} between 0 and 300`),
    check(
      'contests_page_leaderboard_ck',
      sql`${t.pageLeaderboard} between 0 and ${sql.raw(String(PAGE_LEADERBOARD_MAX))}`,
    ),
    check(
      'contests_signup_fields_ck',
      sql`jsonb_typeof(${t.signupFields}) = 'array' and jsonb_array_length(${t.signupFields}) <= ${sql.raw(String(SIGNUP_FIELDS_MAX))}`,
    ),
    check('contests_bot_check_ck', sql`${t.botCheck} in ('off', 'turnstile')`),
    check('contests_share_message_ck', sql`char_length(${t.shareMessage}) <= 280`),
    check('contests_status_ck', sql`${t.status} in ('draft', 'active', 'ended', 'paused')`),
    check('contests_campaign_type_ck', sql`${t.campaignType} in ('viral', 'referral', 'affiliate')`),
    check(
      'contests_points_ck',
      sql`${t.referralAdvocatePoints} >= 0 and ${t.referralFriendPoints} >= 0 and ${t.pointsPerPurchase} >= 0 and ${t.pointsPerCurrencyUnit} >= 0`,
    ),
    check(
      'contests_commission_ck',
      sql`${t.affiliateCommissionPercent} >= 0 and ${t.affiliateCommissionPercent} <= 100`,
    ),
    check('contests_views_ck', sql`${t.viewsCount} >= 0`),
    check('contests_dates_ck', sql`${t.endDate} is null or ${t.startDate} is null or ${t.endDate} > ${t.startDate}`),
    check('contests_credit_on_ck', sql`${t.referralCreditOn} in ('create', 'confirm')`),
    check(
      'contests_risk_ck',
      sql`${t.riskMode} in ('flag', 'hold', 'block') and ${t.riskMaxEntriesPerIpPerHour} between 1 and ${riskMax} and ${t.riskMaxReferralsPerHour} between 1 and ${riskMax}`,
    ),
  ],
);

export const entries = pgTable(
  'entries',
  {
    id: id(),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** trimmed and lower-cased */
    email: text('email'),
    phone: text('phone'),
    name: text('name'),
    referralCode: text('referral_code').notNull(),
    referredBy: uuid('referred_by').references((): AnyPgColumn => entries.id, { onDelete: 'set null' }),
    points: integer('points').notNull().default(0),
    pointsUsed: integer('points_used').notNull().default(0),
    commission: numeric('commission', { precision: 14, scale: 2 }).notNull().default('0'),
    emailConfirmed: boolean('email_confirmed').notNull().default(false),
    confirmedAt: ts('confirmed_at'),
    /** hex SHA-256 of the confirmation token sent by email; null once used */
    confirmationTokenHash: text('confirmation_token_hash'),
    disqualified: boolean('disqualified').notNull().default(false),
    customFieldData: jsonb('custom_field_data'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /** set by erasure (DELETE /entries/:id): personal data removed; the row stays so totals stay exact */
    erasedAt: ts('erased_at'),
    /** salted hashes (HMAC with IP_HASH_SALT) of the participant's IP address and user agent, as the team's server sent them */
    ipHash: text('ip_hash'),
    userAgentHash: text('user_agent_hash'),
    /** the email without +tag (gmail: without dots, googlemail.com as gmail.com): the email_alias signal */
    emailNorm: text('email_norm').generatedAlwaysAs(sql`ce_email_norm(email)`),
    /** SHA-256 of the email's UTF-8 bytes (null without an email): a draw's snapshot lists it, hashed once at write time, not a million times at commit */
    emailSha256: bytea('email_sha256').generatedAlwaysAs(sql`ce_email_sha256(email)`),
    /** risk signals computed at creation: level none | review | high, the reason codes, the review decision */
    riskLevel: text('risk_level').notNull().default('none'),
    riskReasons: text('risk_reasons').array().notNull().default(sql`'{}'::text[]`),
    riskReview: text('risk_review'),
    /** consent to the contest's consentText: when, and the SHA-256 (hex) of the text agreed to */
    consentedAt: ts('consented_at'),
    consentTextSha256: text('consent_text_sha256'),
    /** when the "your link" email was last queued (at most one per 10 minutes) */
    statusLinkSentAt: ts('status_link_sent_at'),
    /** a waitlist let this entry in (POST /contests/:id/admit): it leaves the positions of those still waiting */
    admittedAt: ts('admitted_at'),
    /** how the entry came: 'api' (a team's server), 'signup' (a page, public sign-up), 'instant_win' (a prize claimed), 'webhook' (an inbound sign-up webhook) */
    source: text('source').notNull().default('api'),
    /** the share channel the visitor came by (`via=` of the link they opened), for sign-ups */
    channel: text('channel'),
    /** the page the visitor signed up on, when its origin was one of the contest's allowedOrigins */
    returnUrl: text('return_url'),
  },
  (t) => [
    uniqueIndex('entries_contest_email_uq').on(t.contestId, t.email).where(sql`${t.email} is not null`),
    uniqueIndex('entries_contest_phone_uq')
      .on(t.contestId, t.phone)
      .where(sql`${t.email} is null and ${t.phone} is not null`),
    uniqueIndex('entries_referral_code_uq').on(t.referralCode),
    uniqueIndex('entries_confirmation_token_uq')
      .on(t.confirmationTokenHash)
      .where(sql`${t.confirmationTokenHash} is not null`),
    index('entries_contest_created_idx').on(t.contestId, t.createdAt, t.id),
    index('entries_referred_by_idx').on(t.referredBy).where(sql`${t.referredBy} is not null`),
    // the funnel's top referrers of a range (src/analytics/funnel.ts): the referred entries of a
    // contest by time, their referrer in the index (an index-only scan)
    index('entries_contest_referred_idx')
      .on(t.contestId, t.createdAt, t.referredBy)
      .where(sql`${t.referredBy} is not null`),
    // the entries list sorted by points (its order exactly, so a page at 1M entries reads only its
    // rows) and analytics `points.highest` (the first row)
    index('entries_contest_points_idx').on(t.contestId, t.points.desc(), t.createdAt, t.id),
    // entries search (case-insensitive substring of email or name): ONE trigram index (pg_trgm)
    // over both, so a search is one index scan (10x faster at 1M entries than two OR'ed scans,
    // since names repeat and their trigram lists are long); the query re-checks each column
    index('entries_search_trgm_idx').using(
      'gin',
      sql`(coalesce(${t.email}, '') || ' ' || coalesce(${t.name}, '')) gin_trgm_ops`,
    ),
    // exact positions: the counting entries of one points value in join order (src/sql/positions.ts)
    index('entries_position_idx')
      .on(t.contestId, t.points, t.createdAt, t.id)
      .where(sql`${t.emailConfirmed} and not ${t.disqualified} and ${t.erasedAt} is null and ${t.admittedAt} is null`),
    index('entries_leaderboard_points_idx')
      .on(t.contestId, t.points.desc(), t.createdAt, t.id)
      .where(sql`${t.emailConfirmed} and not ${t.disqualified} and ${t.admittedAt} is null`),
    index('entries_leaderboard_commission_idx')
      .on(t.contestId, t.commission.desc(), t.createdAt, t.id)
      .where(sql`${t.emailConfirmed} and not ${t.disqualified} and ${t.admittedAt} is null`),
    // erased entries per contest (lists subtract them from contest_stats' total)
    index('entries_erased_idx').on(t.contestId).where(sql`${t.erasedAt} is not null`),
    // time series (src/analytics/series.ts): a contest's confirmations by time
    index('entries_contest_confirmed_idx').on(t.contestId, t.confirmedAt).where(sql`${t.confirmedAt} is not null`),
    // the entries list filtered to unconfirmed entries, newest or oldest first: without it the page
    // walked the contest's newest entries past every confirmed one (all of them, when confirmation
    // is off); only unconfirmed entries are in it
    index('entries_contest_unconfirmed_idx').on(t.contestId, t.createdAt, t.id).where(sql`not ${t.emailConfirmed}`),
    check('entries_points_ck', sql`${t.points} >= 0 and ${t.pointsUsed} >= 0`),
    check('entries_commission_ck', sql`${t.commission} >= 0`),
    check('entries_source_ck', sql`${t.source} in ('api', 'signup', 'instant_win', 'webhook')`),
    check('entries_channel_ck', sql`${t.channel} is null or ${t.channel} in ${shareChannelList}`),
    check('entries_contact_ck', sql`${t.email} is not null or ${t.phone} is not null or ${t.erasedAt} is not null`),
    index('entries_contest_risk_idx')
      .on(t.contestId, t.riskLevel, t.createdAt, t.id)
      .where(sql`${t.riskLevel} <> 'none'`),
    check(
      'entries_risk_ck',
      sql`${t.riskLevel} in ('none', 'review', 'high') and (${t.riskReview} is null or ${t.riskReview} in ('approved', 'rejected'))`,
    ),
  ],
);

/**
 * A visitor's credentials for their own entry (`et_…`, 190 random bits): only the SHA-256 is
 * kept; an entry may have several (a device each, a "your link" email each). Erasure deletes them.
 * `kind`: `answer`, handed out in a sign-up's answer (to whoever signed up: not yet proven to be
 * the email's owner), ended when the email is confirmed; `email`, reached the owner through their
 * mailbox (a "your link" email, the confirmation's redirect), kept.
 */
export const entryTokens = pgTable(
  'entry_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull().default('email'),
    createdAt: createdAt(),
  },
  (t) => [
    index('entry_tokens_entry_idx').on(t.entryId),
    check('entry_tokens_kind_ck', sql`${t.kind} in ('answer', 'email')`),
  ],
);

/**
 * Secrets a deployment makes for itself at first start when no setting gives them (the salt of
 * IP address hashes when IP_HASH_SALT is unset): random, kept here, the same for every process.
 */
export const deploymentSecrets = pgTable('deployment_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});
