/** What entries do and what flows in and out: bonus actions, purchases, inbound webhook receipts, the email outbox, outbound events. */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns.js';
import { contests, entries, teams } from './core.js';

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
    /** removed (DELETE): gone from the lists and cannot be completed; what it gave stays */
    archivedAt: ts('archived_at'),
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
    check(
      'email_outbox_kind_ck',
      sql`${t.kind} in ('confirmation', 'prize', 'status_link', 'winner', 'admitted', 'reward')`,
    ),
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
// The functions that pick winners and the cleanup trigger are in src/db/functions/draws.sql.
