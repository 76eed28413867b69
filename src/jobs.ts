/**
 * The every-minute jobs, the same on both runtimes (the Worker's cron, the Node runner's timer):
 * expire unclaimed instant-win plays (their stock goes back), give reward codes to unlocks still
 * waiting for one, then deliver due emails (new ones
 * and retries), then due outbound events, then delete event deliveries past their 30 days. Each runs even when the other fails; failures are logged and the next minute
 * tries again.
 */

import { num, queryOne } from './db/client.js';
import type { Deps } from './deps.js';
import { cleanupEvents, deliverDueEvents, deliveryContext } from './events/deliver.js';
import { sweepExpiredPlays } from './instant-win/sweep.js';
import { describeError } from './lib/describe-error.js';
import { deliverDueEmails } from './mail/outbox.js';
import { giveWaitingCodes } from './rewards/rewards.js';
import { SQL_FOLD_POSITIONS } from './sql/positions.js';
import { sqlFoldVisits } from './sql/sharing.js';

export interface ScheduledResult {
  expiredPlays?: number;
  emails?: Awaited<ReturnType<typeof deliverDueEmails>>;
  events?: Awaited<ReturnType<typeof deliverDueEvents>>;
  eventsCleaned?: Awaited<ReturnType<typeof cleanupEvents>>;
  /** codes given to reward unlocks that were waiting for one (src/rewards/rewards.ts) */
  rewardCodesGiven?: number;
  /** position deltas folded into the totals (src/sql/positions.ts) */
  positionsFolded?: number;
  /** share-link visits folded into their referrers' totals (src/sql/sharing.ts) */
  visitsFolded?: number;
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
    ev?.retrying
  ) {
    deps.logger.info('cron', { expiredPlays: out.expiredPlays, ...out.emails, events: ev });
  }
  return out;
}
