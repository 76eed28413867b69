/**
 * The every-minute jobs, the same on both runtimes (the Worker's cron, the Node runner's timer):
 * expire unclaimed instant-win plays (their stock goes back), give reward codes to unlocks still
 * waiting for one, then deliver due emails (new ones and retries), then due outbound events, then
 * what the connections owe the other tools, then delete event deliveries past their 30 days, fold
 * positions and share-link visits, and delete visits past VISIT_RETENTION_DAYS. Each runs even
 * when the other fails; failures are logged and the next minute tries again.
 */

import { contestSeries, seriesRange } from './analytics/series.js';
import { num, query, queryOne } from './db/client.js';
import { teamOfContest } from './db/team.js';
import type { Deps } from './deps.js';
import { cleanupEvents, deliverDueEvents, deliveryContext } from './events/deliver.js';
import { sweepExpiredPlays } from './instant-win/sweep.js';
import { deliverIntegrations } from './integrations/deliver.js';
import { describeError } from './lib/describe-error.js';
import { deliverDueEmails } from './mail/outbox.js';
import { giveWaitingCodes } from './rewards/rewards.js';
import { SQL_FOLD_POSITIONS } from './sql/positions.js';
import { sqlFoldVisits, sqlPruneVisits, sqlVisitsAwaitingSeries, visitRetentionCut } from './sql/sharing.js';

export interface ScheduledResult {
  expiredPlays?: number;
  emails?: Awaited<ReturnType<typeof deliverDueEmails>>;
  events?: Awaited<ReturnType<typeof deliverDueEvents>>;
  /** what the connections owed the other tools (src/integrations/deliver.ts) */
  integrations?: Awaited<ReturnType<typeof deliverIntegrations>>;
  eventsCleaned?: Awaited<ReturnType<typeof cleanupEvents>>;
  /** codes given to reward unlocks that were waiting for one (src/rewards/rewards.ts) */
  rewardCodesGiven?: number;
  /** position deltas folded into the totals (src/sql/positions.ts) */
  positionsFolded?: number;
  /** share-link visits folded into their referrers' totals (src/sql/sharing.ts) */
  visitsFolded?: number;
  /** share-link visits past VISIT_RETENTION_DAYS deleted, their hours kept */
  visitsPruned?: number;
}

/** Contests whose series the retention reads first, per run (each one statement). */
const SERIES_FILLS_PER_RUN = 20;

/**
 * Share-link visits past the retention: the contests whose time series has not counted them yet
 * are read first (a one-hour series read counts their history into series_hours), then the
 * visits every count kept are deleted (ce_prune_visits).
 */
async function pruneVisits(db: Parameters<typeof queryOne>[0], now: Date, days: number): Promise<number> {
  const before = visitRetentionCut(now, days);
  for (const c of await query<{ id: string }>(db, sqlVisitsAwaitingSeries(before, SERIES_FILLS_PER_RUN)))
    await contestSeries(db, teamOfContest(c.id), c.id, seriesRange('hour', now, now, now), now);
  return num((await queryOne<{ pruned: unknown }>(db, sqlPruneVisits(before)))?.pruned);
}

export async function runScheduledJobs(deps: Deps): Promise<ScheduledResult> {
  const handle = deps.database.acquire();
  const now = deps.clock.now();
  const out: ScheduledResult = {};
  try {
    try {
      out.expiredPlays = await sweepExpiredPlays(handle.db, now);
    } catch (e) {
      deps.logger.error('cron: instant-win sweep failed', { ...describeError(e) });
    }
    try {
      out.rewardCodesGiven = await giveWaitingCodes(handle.db, now);
    } catch (e) {
      deps.logger.error('cron: giving reward codes failed', { ...describeError(e) });
    }
    try {
      out.emails = await deliverDueEmails(handle.db, deps.mailer, now, { logger: deps.logger });
    } catch (e) {
      deps.logger.error('cron: email delivery failed', { ...describeError(e) });
    }
    try {
      // outbound events: due first attempts (the safety net of the after-response trigger) and retries
      out.events = await deliverDueEvents(handle.db, deliveryContext(deps), deps.clock);
    } catch (e) {
      deps.logger.error('cron: event delivery failed', { ...describeError(e) });
    }
    try {
      out.integrations = await deliverIntegrations(handle.db, deps, now);
    } catch (e) {
      deps.logger.error('cron: integration delivery failed', { ...describeError(e) });
    }
    try {
      out.eventsCleaned = await cleanupEvents(handle.db, now);
    } catch (e) {
      deps.logger.error('cron: event cleanup failed', { ...describeError(e) });
    }
    try {
      out.positionsFolded = num((await queryOne<{ folded: unknown }>(handle.db, SQL_FOLD_POSITIONS))?.folded);
    } catch (e) {
      deps.logger.error('cron: folding positions failed', { ...describeError(e) });
    }
    try {
      out.visitsFolded = num((await queryOne<{ folded: unknown }>(handle.db, sqlFoldVisits(now)))?.folded);
    } catch (e) {
      deps.logger.error('cron: folding visits failed', { ...describeError(e) });
    }
    try {
      out.visitsPruned = await pruneVisits(handle.db, now, deps.config.visitRetentionDays ?? 30);
    } catch (e) {
      deps.logger.error('cron: visit retention failed', { ...describeError(e) });
    }
  } finally {
    await handle.release();
  }
  const ev = out.events;
  if (
    out.expiredPlays ||
    out.emails?.sent ||
    out.emails?.failed ||
    out.emails?.retrying ||
    ev?.delivered ||
    ev?.failed ||
    ev?.retrying ||
    out.integrations?.delivered ||
    out.integrations?.failed ||
    out.integrations?.retrying
  ) {
    deps.logger.info('cron', {
      expiredPlays: out.expiredPlays,
      ...out.emails,
      events: ev,
      integrations: out.integrations,
    });
  }
  return out;
}
