/**
 * What is counted beside entries, in the same statement or by triggers: the contest totals, the
 * points ledger and its idempotent adjustments, admissions, exact positions, and the time series.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns.js';
import { contests, entries } from './core.js';

/**
 * Exact running totals per contest, kept by statement-level triggers on entries and
 * bonus_completions (src/db/functions/stats.sql) in the same transaction as the
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

/**
 * Manual point adjustments made with an `Idempotency-Key` (POST /entries/{id}/points): the first
 * answer, kept so that a retry with the same key answers it again and adds nothing.
 */
export const pointsAdjustments = pgTable(
  'points_adjustments',
  {
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key').notNull(),
    previousTotal: integer('previous_total').notNull(),
    newTotal: integer('new_total').notNull(),
    requested: integer('requested').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.idempotencyKey] })],
);

/** What an admission with an Idempotency-Key let in: a retry answers the same list and admits nobody. */
export const admissions = pgTable(
  'admissions',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key').notNull(),
    entryIds: uuid('entry_ids').array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.contestId, t.idempotencyKey] })],
);

/**
 * Exact positions at any size (src/sql/positions.ts): how many counting entries (confirmed, not
 * disqualified, not erased) a contest has per points value, and per points value and hour of
 * joining. Triggers on entries only append to position_deltas (no row is ever locked by a write);
 * the every-minute job folds the deltas into the two totals, one job at a time.
 */
export const positionPoints = pgTable(
  'position_points',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    points: integer('points').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.contestId, t.points] })],
);

export const positionHours = pgTable(
  'position_hours',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    points: integer('points').notNull(),
    /** floor(epoch of created_at / 3600) */
    hour: bigint('hour', { mode: 'number' }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.contestId, t.points, t.hour] })],
);

export const positionDeltas = pgTable(
  'position_deltas',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    points: integer('points').notNull(),
    hour: bigint('hour', { mode: 'number' }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [index('position_deltas_idx').on(t.contestId, t.points, t.hour)],
);

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

/**
 * Each referrer's referred entries settled so far (created before its contest's
 * series_filled.until), kept by the time series' fold (src/analytics/series.ts) in the same
 * statement that moves the watermark: the funnel's top referrers of a long range.
 */
export const referralCounts = pgTable(
  'referral_counts',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    referrerId: uuid('referrer_id').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.contestId, t.referrerId] }),
    index('referral_counts_top_idx').on(t.contestId, t.n.desc(), t.referrerId),
  ],
);

export const seriesFilled = pgTable('series_filled', {
  ownerId: uuid('owner_id')
    .primaryKey()
    .references(() => contests.id, { onDelete: 'cascade' }),
  until: ts('until').notNull(),
});
