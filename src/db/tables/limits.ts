/** What bounds a stranger: risk windows, the emails a mailbox was sent, disposable-mail domains. */
import { sql } from 'drizzle-orm';
import { bigint, check, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';
import { contests, teams } from './core.js';

/**
 * Race-free risk counting (src/db/functions/risk.sql): one row per (contest, kind, key), kept by
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

/**
 * The emails a stranger can make the service send (a sign-up's confirmation, "your link") to one
 * mailbox (ce_email_norm: lower-cased, `+tag` removed, Gmail's dots), across the team's contests,
 * in the last hour: a sign-up sends one only while fewer than 3 are recent (the sign-up
 * statement's conditional upsert), so neither +aliases nor repeats nor other contests flood a
 * mailbox. Keyed by the SHA-256 of the normalised address; holds the last hour's send times only.
 */
export const mailboxSends = pgTable(
  'mailbox_sends',
  {
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    mailbox: text('mailbox').notNull(),
    times: ts('times').array().notNull().default(sql`'{}'::timestamptz[]`),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.mailbox] })],
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
