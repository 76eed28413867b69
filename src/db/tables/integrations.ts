/** The other tools a team connects (Klaviyo, Mailchimp, HubSpot): docs/integrations.md. */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PROVIDERS } from '../../lib/integrations.js';
import { events } from './activity.js';
import { createdAt, id, ts } from './columns.js';
import { entries, teams } from './core.js';

export const integrations = pgTable(
  'integrations',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    /** the credentials as JSON, sealed with the deployment's INTEGRATIONS_KEY (src/lib/secret-box.ts) */
    credentials: text('credentials').notNull(),
    /** the credential's last 4 characters: all the API ever shows of it */
    credentialHint: text('credential_hint').notNull(),
    /** where the people go: {listId} (Klaviyo), {audienceId} (Mailchimp), {} (HubSpot) */
    target: jsonb('target').notNull().default(sql`'{}'::jsonb`),
    /** the contests it takes people from; null: all of the team's */
    contests: uuid('contests').array(),
    options: jsonb('options').notNull().default(sql`'{}'::jsonb`),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('integrations_team_idx').on(t.teamId, t.createdAt),
    check('integrations_provider_ck', sql`${t.provider} in (${sql.raw(PROVIDERS.map((p) => `'${p}'`).join(', '))})`),
  ],
);

/** A "send the existing entries" of a connection: every confirmed person of its contests, owed at once. */
export const integrationBackfills = pgTable(
  'integration_backfills',
  {
    id: id(),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    /** the people it owed (those already waiting in a delivery of their own are sent by it) */
    total: integer('total').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('integration_backfills_integration_idx').on(t.integrationId, t.createdAt)],
);

/**
 * What a connection owes its provider: a person to create or update (`person`), or to delete
 * (`erase`), written by the entries' triggers in the statement that confirmed the entry, moved
 * its points or erased it
 * (src/db/functions/integrations.sql). One pending row per connection and person: later changes
 * fold into it (the deliverer reads the person as they are when it sends), so a burst of changes
 * makes one call per person per run of the every-minute job.
 */
export const integrationDeliveries = pgTable(
  'integration_deliveries',
  {
    id: id(),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    /**
     * `person`: create or update them; `erase`: delete them at the provider (an erasure);
     * `event`: something the person did or won (`event_id`), as the tool names it
     */
    kind: text('kind').notNull().default('person'),
    /** the backfill that owed it, if one did (its progress is counted from its deliveries) */
    backfillId: uuid('backfill_id').references(() => integrationBackfills.id, { onDelete: 'set null' }),
    /** an `event` delivery's event (its type and data say what to send) */
    eventId: uuid('event_id').references(() => events.id, { onDelete: 'cascade' }),
    /** an erasure's address (the entry no longer has it), until the provider deleted the person */
    email: text('email'),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lockedUntil: ts('locked_until'),
    leaseToken: uuid('lease_token'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('integration_deliveries_pending_uq')
      .on(t.integrationId, t.entryId, t.kind)
      .where(sql`${t.status} = 'pending' and ${t.kind} <> 'event'`),
    // an event reaches each connection once per person it names
    uniqueIndex('integration_deliveries_event_uq')
      .on(t.integrationId, t.eventId, t.entryId)
      .where(sql`${t.eventId} is not null`),
    index('integration_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('integration_deliveries_integration_idx').on(t.integrationId, t.createdAt),
    index('integration_deliveries_entry_idx').on(t.entryId),
    index('integration_deliveries_backfill_idx').on(t.backfillId, t.status).where(sql`${t.backfillId} is not null`),
    check('integration_deliveries_kind_ck', sql`${t.kind} in ('person', 'erase', 'event')`),
    check('integration_deliveries_status_ck', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);
