/**
 * The whole domain's schema. Invariants live here as constraints so that no code path,
 * however concurrent, can break them: uniqueness for dedupe, CHECKs for non-negative
 * totals and inventory, foreign keys for ownership.
 *
 * Conventions: uuid primary keys (gen_random_uuid()), timestamptz everywhere, snake_case
 * columns. Money is numeric (exact); points are integers.
 */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  customType,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** raw bytes (seeds, hashes); drivers hand them over as Buffer/Uint8Array */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();
const id = () => uuid('id').primaryKey().defaultRandom();

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
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contests_slug_uq').on(t.slug).where(sql`${t.toolType} is distinct from 'instant_win'`),
    index('contests_team_tool_idx').on(t.teamId, t.toolType, t.createdAt),
    check('contests_tool_type_ck', sql`${t.toolType} is null or ${t.toolType} in ('content_gate', 'instant_win')`),
    check('contests_mode_ck', sql`${t.mode} in ('giveaway', 'leaderboard', 'waitlist')`),
    check('contests_public_cache_ck', sql`${t.publicCacheSeconds} between 0 and 300`),
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
      sql`${t.riskMode} in ('flag', 'hold', 'block') and ${t.riskMaxEntriesPerIpPerHour} between 1 and 1000 and ${t.riskMaxReferralsPerHour} between 1 and 1000`,
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
    index('entries_leaderboard_points_idx')
      .on(t.contestId, t.points.desc(), t.createdAt, t.id)
      .where(sql`${t.emailConfirmed} and not ${t.disqualified}`),
    index('entries_leaderboard_commission_idx')
      .on(t.contestId, t.commission.desc(), t.createdAt, t.id)
      .where(sql`${t.emailConfirmed} and not ${t.disqualified}`),
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
 * Exact running totals per contest, kept by statement-level triggers on entries and
 * bonus_completions (migrations/0004_contest_stats_triggers.sql) in the same transaction as the
 * change. Spread over 16 slots (slot = transaction id % 16) so that concurrent writers of one
 * contest rarely wait on the same row; readers sum the slots.
 */
export const contestStats = pgTable(
  'contest_stats',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    slot: integer('slot').notNull(),
    entries: bigint('entries', { mode: 'number' }).notNull().default(0),
    confirmed: bigint('confirmed', { mode: 'number' }).notNull().default(0),
    disqualified: bigint('disqualified', { mode: 'number' }).notNull().default(0),
    pointsTotal: bigint('points_total', { mode: 'number' }).notNull().default(0),
    bonusCompletions: bigint('bonus_completions', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.contestId, t.slot] })],
);

/** Every change of an entry's points, written in the same statement as the new total. */
export const pointsLedger = pgTable(
  'points_ledger',
  {
    id: id(),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** the change actually applied (after the floor at zero) */
    delta: integer('delta').notNull(),
    /** what was asked for, when it differs (manual adjustments clamped at zero) */
    requestedDelta: integer('requested_delta').notNull(),
    source: text('source').notNull(),
    reason: text('reason').notNull(),
    /** id of the thing that caused it: bonus completion, purchase, play, referred entry */
    refId: text('ref_id'),
    createdAt: createdAt(),
    /**
     * 'applied' (in the total); 'pending': held (delta 0, requested_delta the held amount) until
     * held_for confirms its email (wait_confirm) and/or is approved (wait_review); then
     * 'released' (an applied row carries the points) or 'dropped'
     */
    status: text('status').notNull().default('applied'),
    heldFor: uuid('held_for'),
    waitConfirm: boolean('wait_confirm').notNull().default(false),
    waitReview: boolean('wait_review').notNull().default(false),
  },
  (t) => [
    index('points_ledger_entry_idx').on(t.entryId, t.createdAt),
    index('points_ledger_held_idx').on(t.heldFor).where(sql`${t.status} = 'pending'`),
    check(
      'points_ledger_status_ck',
      sql`${t.status} in ('applied', 'pending', 'released', 'dropped') and (${t.status} = 'applied' or ${t.delta} = 0)`,
    ),
    check(
      'points_ledger_source_ck',
      sql`${t.source} in ('referral', 'bonus_action', 'purchase', 'manual', 'instant_win')`,
    ),
  ],
);

export const bonusActions = pgTable(
  'bonus_actions',
  {
    id: id(),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    description: text('description').notNull().default(''),
    icon: text('icon').notNull().default(''),
    iconColor: text('icon_color').notNull().default(''),
    points: integer('points').notNull().default(0),
    confirmationType: text('confirmation_type').notNull().default('auto'),
    destinationUrl: text('destination_url'),
    order: integer('order').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index('bonus_actions_contest_idx').on(t.contestId, t.order),
    check('bonus_actions_points_ck', sql`${t.points} >= 0`),
    check('bonus_actions_confirmation_ck', sql`${t.confirmationType} in ('auto', 'manual', 'click')`),
  ],
);

export const bonusCompletions = pgTable(
  'bonus_completions',
  {
    id: id(),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    bonusActionId: uuid('bonus_action_id')
      .notNull()
      .references(() => bonusActions.id, { onDelete: 'cascade' }),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('verified'),
    proof: text('proof'),
    answer: text('answer'),
    pointsAwarded: integer('points_awarded').notNull().default(0),
    completedAt: ts('completed_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('bonus_completions_entry_action_uq').on(t.entryId, t.bonusActionId),
    index('bonus_completions_contest_idx').on(t.contestId),
    index('bonus_completions_action_idx').on(t.bonusActionId),
    // time series (src/analytics/series.ts): a contest's completions by time
    index('bonus_completions_contest_time_idx').on(t.contestId, t.completedAt),
    // the review queue of manual completions (GET .../bonus-completions?status=pending)
    index('bonus_completions_pending_idx').on(t.contestId, t.completedAt).where(sql`${t.status} = 'pending'`),
  ],
);

export const purchases = pgTable(
  'purchases',
  {
    id: id(),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** the buyer's entry (API and purchase webhook); null for referral sales of unknown buyers */
    entryId: uuid('entry_id').references(() => entries.id, { onDelete: 'cascade' }),
    /** the advocate credited for a referred sale */
    referrerEntryId: uuid('referrer_entry_id').references(() => entries.id, { onDelete: 'set null' }),
    orderId: text('order_id').notNull(),
    amount: numeric('amount', { precision: 18, scale: 4 }).notNull(),
    currency: text('currency').notNull().default('USD'),
    pointsAwarded: integer('points_awarded').notNull().default(0),
    commissionAwarded: numeric('commission_awarded', { precision: 14, scale: 2 }).notNull().default('0'),
    source: text('source').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('purchases_contest_order_uq').on(t.contestId, t.orderId),
    index('purchases_entry_idx').on(t.entryId),
    check('purchases_amount_ck', sql`${t.amount} > 0`),
    check('purchases_currency_ck', sql`${t.currency} ~ '^[A-Z]{3}$'`),
    check('purchases_source_ck', sql`${t.source} in ('api', 'webhook', 'shopify', 'stripe')`),
  ],
);

/** Audit and dedupe of everything that arrived on an inbound webhook. */
export const webhookReceipts = pgTable(
  'webhook_receipts',
  {
    id: id(),
    /** null when the path named no contest we know */
    contestId: uuid('contest_id').references(() => contests.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    /** webhook-id, X-Shopify-Webhook-Id, Stripe event id, ... ; null when none was sent */
    externalId: text('external_id'),
    /** secondary dedupe key (Shopify admin_graphql_api_id) */
    dedupeKey: text('dedupe_key'),
    outcome: text('outcome').notNull(),
    statusCode: integer('status_code').notNull(),
    /** the answer given, replayed for a repeated delivery */
    response: jsonb('response'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_receipts_external_uq')
      .on(t.contestId, t.source, t.externalId)
      .where(sql`${t.externalId} is not null and ${t.outcome} = 'processed'`),
    index('webhook_receipts_contest_idx').on(t.contestId, t.createdAt),
    // erasure finds the kept answers that show an entry's email (a signup's) through it
    index('webhook_receipts_entry_idx')
      .on(t.contestId, sql`(${t.response} -> 'data' ->> 'entryId')`)
      .where(sql`(${t.response} -> 'data' ->> 'email') is not null`),
    check('webhook_receipts_source_ck', sql`${t.source} in ('purchase', 'signup', 'shopify', 'stripe')`),
    check('webhook_receipts_outcome_ck', sql`${t.outcome} in ('processed', 'rejected', 'ignored', 'duplicate')`),
  ],
);

/** Instant-win game settings; the game itself is a contest row with tool_type 'instant_win'. */
export const instantWinGames = pgTable(
  'instant_win_games',
  {
    contestId: uuid('contest_id')
      .primaryKey()
      .references(() => contests.id, { onDelete: 'cascade' }),
    mechanic: text('mechanic').notNull(),
    layout: text('layout').notNull(),
    entryLimit: text('entry_limit').notNull(),
    publishAs: text('publish_as').notNull(),
    embedUrl: text('embed_url'),
  },
  (t) => [
    check(
      'iw_games_mechanic_ck',
      sql`${t.mechanic} in ('wheel', 'scratch', 'box', 'advent', 'plinko', 'slots', 'egg', 'claw')`,
    ),
    check('iw_games_layout_ck', sql`${t.layout} in ('default', 'fullscreen')`),
    check('iw_games_entry_limit_ck', sql`${t.entryLimit} in ('none', 'daily', 'device')`),
    check('iw_games_publish_as_ck', sql`${t.publishAs} in ('landing', 'embed')`),
  ],
);

export const instantWinTiers = pgTable(
  'instant_win_tiers',
  {
    id: id(),
    gameId: uuid('game_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    oddsPercent: doublePrecision('odds_percent').notNull(),
    isMiss: boolean('is_miss').notNull().default(false),
    color: text('color'),
    /** 'code' | 'url' | 'unique_code'; null for miss tiers */
    deliveryType: text('delivery_type'),
    redeemCode: text('redeem_code'),
    redeemUrl: text('redeem_url'),
    /** null = unlimited */
    quantity: integer('quantity'),
    /** always max(0, quantity - handed_out); null when quantity is null */
    remaining: integer('remaining'),
    /** wins of this tier holding a unit now (pending, or claimed); given back when a pending win expires */
    handedOut: integer('handed_out').notNull().default(0),
    /** tiers removed by an update but referenced by plays are archived, not deleted */
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('iw_tiers_game_idx').on(t.gameId, t.position).where(sql`${t.archivedAt} is null`),
    check('iw_tiers_odds_ck', sql`${t.oddsPercent} >= 0 and ${t.oddsPercent} <= 100`),
    check('iw_tiers_quantity_ck', sql`${t.quantity} is null or ${t.quantity} >= 0`),
    check('iw_tiers_remaining_ck', sql`${t.remaining} is null or ${t.remaining} >= 0`),
    check('iw_tiers_handed_out_ck', sql`${t.handedOut} >= 0`),
    check(
      'iw_tiers_delivery_ck',
      sql`${t.deliveryType} is null or ${t.deliveryType} in ('code', 'url', 'unique_code')`,
    ),
  ],
);

/** Pool of single-use codes for 'unique_code' tiers. play_id set = reserved or handed out. */
export const instantWinCodes = pgTable(
  'instant_win_codes',
  {
    id: id(),
    tierId: uuid('tier_id')
      .notNull()
      .references(() => instantWinTiers.id, { onDelete: 'cascade' }),
    gameId: uuid('game_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    playId: uuid('play_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('iw_codes_tier_code_uq').on(t.tierId, t.code),
    uniqueIndex('iw_codes_play_uq').on(t.playId).where(sql`${t.playId} is not null`),
    index('iw_codes_available_idx').on(t.tierId, t.id).where(sql`${t.playId} is null`),
  ],
);

export const instantWinPlays = pgTable(
  'instant_win_plays',
  {
    id: id(),
    gameId: uuid('game_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** null for the built-in "No prize" result */
    tierId: uuid('tier_id').references(() => instantWinTiers.id),
    status: text('status').notNull(),
    /** the uniform random number in [0, 100) that decided the draw, kept for audit */
    randomValue: doublePrecision('random_value').notNull(),
    /** hex SHA-256 of the play cookie */
    cookieHash: text('cookie_hash').notNull(),
    /** salted hash of the player's IP address; never the address itself */
    ipHash: text('ip_hash'),
    /** entry-limit keys: unique per game; null when the game has no limit */
    limitCookieKey: text('limit_cookie_key'),
    limitIpKey: text('limit_ip_key'),
    playDay: date('play_day').notNull(),
    codeId: uuid('code_id'),
    email: text('email'),
    entryId: uuid('entry_id').references(() => entries.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at'),
    claimedAt: ts('claimed_at'),
    /** provable fairness (docs/fairness.md): the server seed, client seed and nonce that made random_value */
    seedId: uuid('seed_id'),
    clientSeed: text('client_seed'),
    nonce: integer('nonce'),
    /** the tier the number drew (the result differs when that prize was out of stock) */
    drawnTierId: uuid('drawn_tier_id'),
  },
  (t) => [
    uniqueIndex('iw_plays_seed_nonce_uq').on(t.seedId, t.cookieHash, t.nonce).where(sql`${t.seedId} is not null`),
    uniqueIndex('iw_plays_limit_cookie_uq').on(t.gameId, t.limitCookieKey).where(sql`${t.limitCookieKey} is not null`),
    uniqueIndex('iw_plays_limit_ip_uq').on(t.gameId, t.limitIpKey).where(sql`${t.limitIpKey} is not null`),
    index('iw_plays_game_created_idx').on(t.gameId, t.createdAt),
    index('iw_plays_game_status_idx').on(t.gameId, t.status, t.createdAt),
    index('iw_plays_tier_idx').on(t.tierId),
    index('iw_plays_pending_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    check('iw_plays_status_ck', sql`${t.status} in ('pending', 'claimed', 'miss', 'expired')`),
    check('iw_plays_random_ck', sql`${t.randomValue} >= 0 and ${t.randomValue} < 100`),
  ],
);

/** Emails are queued here in the same statement as the change that caused them. */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    contestId: uuid('contest_id').references(() => contests.id, { onDelete: 'cascade' }),
    to: text('to').notNull(),
    kind: text('kind').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    /** stable per email, sent to providers that dedupe (Resend Idempotency-Key) */
    idempotencyKey: text('idempotency_key').notNull().default(sql`gen_random_uuid()::text`),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('email_outbox_team_idx').on(t.teamId, t.createdAt),
    index('email_outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    check('email_outbox_kind_ck', sql`${t.kind} in ('confirmation', 'prize')`),
    check('email_outbox_status_ck', sql`${t.status} in ('pending', 'sent', 'failed', 'cancelled')`),
  ],
);

// ---------------------------------------------------------------- outbound events (webhooks to the team's servers)

/** A team's receiver of outbound events. `events` null = every type. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** subscribed event types; null = all */
    events: text('events').array(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    /** `whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key */
    secret: text('secret').notNull(),
    /** after a rotation, the secret before it: deliveries carry a signature by each until previousSecretUntil */
    previousSecret: text('previous_secret'),
    previousSecretUntil: ts('previous_secret_until'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_team_idx').on(t.teamId, t.createdAt)],
);

/**
 * Outbound events, written by the same statement as the change that caused them (only when
 * at least one enabled endpoint of the team is subscribed to the type).
 */
export const events = pgTable(
  'events',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** no foreign key: the event outlives nothing it names, and erasure keeps contests anyway */
    contestId: uuid('contest_id'),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('events_created_idx').on(t.createdAt),
    // erasure finds the events that name an entry or a play (data @> {"entryId": …}) through it
    index('events_data_idx').using('gin', sql`${t.data} jsonb_path_ops`),
  ],
);

/** One event's delivery to one endpoint: its attempts, lease and outcome. */
export const eventDeliveries = pgTable(
  'event_deliveries',
  {
    id: id(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    /** a deliverer's claim: until then no other deliverer takes the row */
    lockedUntil: ts('locked_until'),
    /** the claim's random token: only its holder records the outcome */
    leaseToken: uuid('lease_token'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('event_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('event_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('event_deliveries_event_idx').on(t.eventId),
    index('event_deliveries_created_idx').on(t.createdAt),
    check('event_deliveries_status_ck', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

// ---------------------------------------------------------------------------------------------
// Provable fairness (docs/fairness.md): giveaway draws and instant-win server seeds.
// The functions that pick winners and the cleanup trigger are in migrations/0008_fairness.sql.

/**
 * A giveaway draw: committed (snapshot frozen, seed secret) then revealed (winners picked, seed
 * shown). The 32-byte seed is the HMAC-SHA256 key; `hmac_ipad`/`hmac_opad` are the key padded to
 * 64 bytes and XORed with 0x36/0x5c, so SQL computes HMAC with sha256() alone. Never deleted by
 * the API.
 */
export const draws = pgTable(
  'draws',
  {
    id: uuid('id').primaryKey(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    label: text('label'),
    status: text('status').notNull().default('committed'),
    winners: integer('winners').notNull(),
    weighting: text('weighting').notNull(),
    confirmedOnly: boolean('confirmed_only').notNull(),
    minPoints: integer('min_points').notNull(),
    excludePreviousWinners: boolean('exclude_previous_winners').notNull(),
    eligibleCount: integer('eligible_count').notNull(),
    totalWeight: bigint('total_weight', { mode: 'number' }).notNull(),
    snapshotHash: text('snapshot_hash').notNull(),
    seed: bytea('seed').notNull(),
    seedHash: text('seed_hash').notNull(),
    hmacIpad: bytea('hmac_ipad').notNull(),
    hmacOpad: bytea('hmac_opad').notNull(),
    publicRandomness: text('public_randomness'),
    /** the index i of the next u_i of the random stream (replacements continue from here) */
    streamNext: integer('stream_next').notNull().default(0),
    createdAt: createdAt(),
    revealedAt: ts('revealed_at'),
  },
  (t) => [
    index('draws_contest_created_idx').on(t.contestId, t.createdAt),
    check('draws_status_ck', sql`${t.status} in ('committed', 'revealed')`),
    check('draws_weighting_ck', sql`${t.weighting} in ('equal', 'points')`),
    check('draws_winners_ck', sql`${t.winners} between 1 and 100`),
  ],
);

/**
 * The frozen eligible set of a draw (its snapshot), in blocks: each block holds the CSV lines of
 * a contiguous run of entries in entry-id order (entries whose id starts with the same three hex
 * digits, so at most 4,096 blocks, ~250 lines each at a million entries), with the running sum
 * of weights at its last entry (`cum_end`; weights are > 0, so strictly increasing: the primary
 * key finds the block a pick falls in) and before its first (`cum_start`). The published CSV is
 * the header line then every block's `lines` in `cum_end` order; `snapshot_hash` hashes exactly
 * that. No foreign key to entries (an erased entry keeps its line); blocks go with their draw
 * (trigger).
 */
export const drawBlocks = pgTable(
  'draw_blocks',
  {
    drawId: uuid('draw_id').notNull(),
    cumEnd: bigint('cum_end', { mode: 'number' }).notNull(),
    cumStart: bigint('cum_start', { mode: 'number' }).notNull(),
    /** the block's CSV lines, each ending with a line feed (stored uncompressed: it is mostly hex) */
    lines: text('lines').notNull(),
  },
  (t) => [primaryKey({ columns: [t.drawId, t.cumEnd] })],
);

/** Winners of a draw in pick order; a replaced winner stays (replaced = true) and counts as picked. */
export const drawResults = pgTable(
  'draw_results',
  {
    drawId: uuid('draw_id')
      .notNull()
      .references(() => draws.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    entryId: uuid('entry_id').notNull(),
    /** the running sum of weights at the winner in the snapshot (cum - weight is where its span starts) */
    cum: bigint('cum', { mode: 'number' }).notNull(),
    weight: bigint('weight', { mode: 'number' }).notNull(),
    /** the index of the u that picked it */
    streamIndex: integer('stream_index').notNull(),
    replaced: boolean('replaced').notNull().default(false),
    replacedReason: text('replaced_reason'),
    replacedAt: ts('replaced_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.drawId, t.position] }),
    uniqueIndex('draw_results_entry_uq').on(t.drawId, t.entryId),
  ],
);

/**
 * Instant-win server seeds: one current (revealed_at null) per game, committed by its hash;
 * revealed when rotated. `tiers` = [{id, name, oddsPercent}] in tier order as they were under
 * this seed (changing a game's tiers rotates its seed).
 */
export const instantWinSeeds = pgTable(
  'instant_win_seeds',
  {
    id: uuid('id').primaryKey(),
    gameId: uuid('game_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    seed: bytea('seed').notNull(),
    seedHash: text('seed_hash').notNull(),
    hmacIpad: bytea('hmac_ipad').notNull(),
    hmacOpad: bytea('hmac_opad').notNull(),
    tiers: jsonb('tiers').notNull(),
    createdAt: createdAt(),
    revealedAt: ts('revealed_at'),
  },
  (t) => [
    uniqueIndex('iw_seeds_current_uq').on(t.gameId).where(sql`${t.revealedAt} is null`),
    index('iw_seeds_game_idx').on(t.gameId, t.createdAt),
  ],
);

/** The nonce counter of a (seed, play cookie): the last nonce handed out. */
export const instantWinNonces = pgTable(
  'instant_win_nonces',
  {
    seedId: uuid('seed_id')
      .notNull()
      .references(() => instantWinSeeds.id, { onDelete: 'cascade' }),
    cookieHash: text('cookie_hash').notNull(),
    lastNonce: integer('last_nonce').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seedId, t.cookieHash] })],
);

/**
 * Race-free risk counting (migrations/*_trust.sql): one row per (contest, kind, key), kept by
 * triggers on entries. kind 'email' (key: normalised email): n = entries with it; 'ip' (key: IP
 * hash) and 'ref' (key: referrer id): times = creation times of the last hour (at most 1001).
 * Entry create locks the rows it reads (insert ... on conflict do update), so concurrent creates
 * sharing a key take turns and each sees the others.
 */
export const riskWindows = pgTable(
  'risk_windows',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
    times: ts('times').array().notNull().default(sql`'{}'::timestamptz[]`),
  },
  (t) => [
    primaryKey({ columns: [t.contestId, t.kind, t.key] }),
    check('risk_windows_kind_ck', sql`${t.kind} in ('email', 'ip', 'ref')`),
  ],
);

/** Disposable-mail domains, loaded from the disposable-email-domains-js package at migrate time (src/db/disposable.ts). */
export const disposableDomains = pgTable('disposable_domains', {
  domain: text('domain').primaryKey(),
});

/** Which package version disposable_domains holds (one row). */
export const disposableDomainsSource = pgTable('disposable_domains_source', {
  id: integer('id').primaryKey().default(1),
  package: text('package').notNull(),
  version: text('version').notNull(),
  domains: integer('domains').notNull(),
  loadedAt: ts('loaded_at').notNull().defaultNow(),
});

/**
 * Time series rollups (src/analytics/series.ts): how many of each metric happened in each settled
 * UTC hour of a contest or game. Hours are counted once from the base tables, the first time a
 * series is read after they settle, and never change afterwards; `series_filled.until` is where
 * the counted hours end (the recent ones are counted live on every read).
 */
export const seriesHours = pgTable(
  'series_hours',
  {
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** entries | confirmations | referrals | bonus_completions | plays | won:<tier id> | drawn:<tier id or none> */
    metric: text('metric').notNull(),
    hour: ts('hour').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ownerId, t.hour, t.metric] })],
);

export const seriesFilled = pgTable('series_filled', {
  ownerId: uuid('owner_id')
    .primaryKey()
    .references(() => contests.id, { onDelete: 'cascade' }),
  until: ts('until').notNull(),
});
