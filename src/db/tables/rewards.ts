/**
 * Rewards at milestones (docs/rewards.md) and the email texts a team writes (docs/emails.md).
 *
 * A reward unlocks for an entry once (`reward_unlocks`, unique per reward and entry), in the
 * statement that takes the entry across its threshold: triggers on `entries` call
 * ce_unlock_rewards() (src/db/functions/rewards.sql). A pool's codes are given each once: a
 * code belongs to the unlock that `reward_codes.unlock_id` names, and a code is claimed under
 * `for update skip locked`.
 */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns.js';
import { contests, entries } from './core.js';

export const rewards = pgTable(
  'rewards',
  {
    id: id(),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    /** an image of the prize (https), shown by the hosted page's prize section */
    imageUrl: text('image_url'),
    /** exactly one threshold: confirmed referrals, or points */
    referralsRequired: integer('referrals_required'),
    pointsRequired: integer('points_required'),
    /** 'codes' (a pool, each code given once), 'code' (one code for everyone) or 'none' (a status) */
    kind: text('kind').notNull(),
    code: text('code'),
    /** codes ever added to the pool (their `seq` runs 1..codes_total) */
    codesTotal: integer('codes_total').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /** deleted: no new unlocks, hidden from lists; what was unlocked stays with its entries */
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('rewards_contest_idx').on(t.contestId).where(sql`${t.deletedAt} is null`),
    check('rewards_kind_ck', sql`${t.kind} in ('codes', 'code', 'none')`),
    check(
      'rewards_threshold_ck',
      sql`(${t.referralsRequired} is null) <> (${t.pointsRequired} is null) and coalesce(${t.referralsRequired}, ${t.pointsRequired}) >= 1`,
    ),
    check('rewards_code_ck', sql`(${t.kind} = 'code') = (${t.code} is not null)`),
    check('rewards_codes_total_ck', sql`${t.codesTotal} >= 0 and (${t.kind} = 'codes' or ${t.codesTotal} = 0)`),
  ],
);

export const rewardUnlocks = pgTable(
  'reward_unlocks',
  {
    id: id(),
    rewardId: uuid('reward_id')
      .notNull()
      .references(() => rewards.id, { onDelete: 'cascade' }),
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    /** null once the entry is erased: the unlock (and its code) stays, the link to the person goes */
    entryId: uuid('entry_id').references(() => entries.id, { onDelete: 'set null' }),
    unlockedAt: ts('unlocked_at').notNull(),
    /** a pool's unlock still waiting for a code (the pool was empty); given one when codes are added */
    codePending: boolean('code_pending').notNull().default(false),
  },
  (t) => [
    uniqueIndex('reward_unlocks_reward_entry_uq').on(t.rewardId, t.entryId),
    index('reward_unlocks_entry_idx').on(t.entryId).where(sql`${t.entryId} is not null`),
    index('reward_unlocks_reward_idx').on(t.rewardId, t.unlockedAt, t.id),
    index('reward_unlocks_pending_idx')
      .on(t.rewardId, t.unlockedAt, t.id)
      .where(sql`${t.codePending} and ${t.entryId} is not null`),
  ],
);

export const rewardCodes = pgTable(
  'reward_codes',
  {
    rewardId: uuid('reward_id')
      .notNull()
      .references(() => rewards.id, { onDelete: 'cascade' }),
    /** 1, 2, … in the order added: codes are given oldest first */
    seq: integer('seq').notNull(),
    code: text('code').notNull(),
    /** the unlock this code was given to (null: still free) */
    unlockId: uuid('unlock_id').references(() => rewardUnlocks.id, { onDelete: 'set null' }),
    givenAt: ts('given_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.rewardId, t.seq] }),
    uniqueIndex('reward_codes_reward_code_uq').on(t.rewardId, t.code),
    uniqueIndex('reward_codes_unlock_uq').on(t.unlockId).where(sql`${t.unlockId} is not null`),
    index('reward_codes_free_idx').on(t.rewardId, t.seq).where(sql`${t.givenAt} is null`),
  ],
);

/** A team's own text for one kind of email of a contest (absent: the default). */
export const emailTexts = pgTable(
  'email_texts',
  {
    contestId: uuid('contest_id')
      .notNull()
      .references(() => contests.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.contestId, t.kind] }),
    check('email_texts_kind_ck', sql`${t.kind} in ('confirmation', 'status-link', 'reward', 'admitted', 'winner')`),
  ],
);
