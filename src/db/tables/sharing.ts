/**
 * Share links and their visits (docs/design-decisions.md, "Counting visits at viral scale"):
 * every visit and share click is a row of its own, appended and never updated, so that no visit
 * waits on another, however many open one code at once. A referrer's total (/me's `visits`) is
 * kept by the every-minute job in `visit_counts` (and per hour in `visit_hours`) up to
 * `visit_fold.until`; a read adds the rows after it.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, shareChannelList, ts } from './columns.js';
import { entries } from './core.js';

const channelCheck = (col: string) => sql`${sql.raw(col)} in ${shareChannelList}`;

/** One row per visit of a share link (POST /contests/:id/visits): whose link, by which channel, when. */
export const linkVisits = pgTable(
  'link_visits',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    // no foreign keys: a key check would lock the referrer's row (FOR KEY SHARE) on every visit,
    // and every visit of a viral code would queue on that one row; a deleted contest's rows are
    // removed by its trigger (src/db/functions/sharing.sql)
    contestId: uuid('contest_id').notNull(),
    /**
     * the referrer: the entry whose code the link carried; null when the contest has no such
     * code (the visit is written all the same, so that a made-up code costs and answers what a
     * real one does; the fold deletes it)
     */
    entryId: uuid('entry_id'),
    channel: text('channel'),
    createdAt: createdAt(),
  },
  (t) => [
    // a referrer's visits since the fold (/me), and in a range (the funnel's top referrers)
    index('link_visits_entry_idx').on(t.entryId, t.createdAt),
    // a contest's visits by time (the funnel's buckets and channels)
    index('link_visits_contest_idx').on(t.contestId, t.createdAt),
    // the fold's range (the last minute's rows of every contest): a BRIN index costs an insert
    // almost nothing, and rows are appended in time order
    index('link_visits_created_brin').using('brin', t.createdAt),
    check('link_visits_channel_ck', sql`${t.channel} is null or ${channelCheck('channel')}`),
  ],
);

/**
 * One row per page view (POST /contests/:id/views: the sign-up widget once per browser and day,
 * the hosted page through it): the funnel's first step, counted per hour by the contest's series
 * like visits, and deleted with them past their retention once the series kept their hours.
 */
export const pageViews = pgTable(
  'page_views',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    // no foreign key, as for visits: a deleted contest's rows go with its trigger
    contestId: uuid('contest_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('page_views_contest_idx').on(t.contestId, t.createdAt),
    index('page_views_created_brin').using('brin', t.createdAt),
  ],
);

/** One row per click on a share button (POST /me/shares). */
export const linkShares = pgTable(
  'link_shares',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    // no foreign keys, as for visits
    contestId: uuid('contest_id').notNull(),
    entryId: uuid('entry_id').notNull(),
    channel: text('channel').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('link_shares_entry_idx').on(t.entryId),
    index('link_shares_contest_idx').on(t.contestId, t.createdAt),
    check('link_shares_channel_ck', channelCheck('channel')),
  ],
);

/** Each referrer's visits before `visit_fold.until` (folded by the every-minute job). */
export const visitCounts = pgTable('visit_counts', {
  entryId: uuid('entry_id')
    .primaryKey()
    .references(() => entries.id, { onDelete: 'cascade' }),
  n: bigint('n', { mode: 'number' }).notNull(),
});

/**
 * Each referrer's folded visits per UTC hour (the same fold as visit_counts): a range of whole
 * hours (the funnel's top referrers) sums these and counts only the visits after the fold.
 */
export const visitHours = pgTable(
  'visit_hours',
  {
    entryId: uuid('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    hour: ts('hour').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.hour] })],
);

/** Where the folded visits end: one row (id 1). */
export const visitFold = pgTable(
  'visit_fold',
  {
    id: smallint('id').primaryKey(),
    until: ts('until').notNull(),
  },
  (t) => [check('visit_fold_one_ck', sql`${t.id} = 1`)],
);
