/** Instant-win games (tiers, codes, plays, seeds, nonces) and giveaway draws (the frozen snapshot, the winners). The functions that pick winners are in src/db/functions/draws.sql. */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { bytea, createdAt, id, ts } from './columns.js';
import { contests, entries, teams } from './core.js';

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
    /** email each winner at the reveal (and a replacement when it is drawn) */
    notifyWinners: boolean('notify_winners').notNull().default(false),
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
    /** when the winner was emailed (draws with notifyWinners): each winner once */
    notifiedAt: ts('notified_at'),
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
