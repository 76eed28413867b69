/**
 * The whole domain's schema (Drizzle; migrations/ is generated from it). Invariants live here as
 * constraints so that no code path, however concurrent, can break them: uniqueness for dedupe,
 * CHECKs for non-negative totals and inventory, foreign keys for ownership.
 *
 * Conventions: uuid primary keys (gen_random_uuid()), timestamptz everywhere, snake_case
 * columns. Money is numeric (exact); points are integers.
 *
 * The tables are in eight files: tables/core.ts (teams, keys, contests, entries, entry tokens),
 * tables/counters.ts (contest totals, the points ledger, positions, time series), tables/limits.ts
 * (risk windows, mailbox sends, disposable domains), tables/activity.ts (bonus actions,
 * purchases, webhooks in and out, the email outbox), tables/games.ts (instant-win games and giveaway draws), tables/rewards.ts (rewards, their codes
 * and unlocks, the email texts a team writes) and tables/sharing.ts (share links' visits and
 * share clicks).
 */

export * from './tables/activity.js';
export * from './tables/core.js';
export * from './tables/counters.js';
export * from './tables/games.js';
export * from './tables/integrations.js';
export * from './tables/limits.js';
export * from './tables/rewards.js';
export * from './tables/sharing.js';
