import { joinLoop } from '../lib/shared-loop.js';
import { deliverDueEmails } from '../domain/outbox.js';
import type { AppContext } from './context.js';


/**
 * Call after a request queued email: delivery runs after the response (Worker: ctx.waitUntil),
 * on a database handle of its own since the request's is released with the response.
 *
 * On Node (`eventKick: 'shared'`, as for outbound events) requests share one loop: under load a
 * pass claims and marks the emails of many requests at once (two statements for up to 25 emails)
 * instead of each request running its own pass (two statements for its one email). On Workers
 * each request runs its own pass (a request may not wait on another request's I/O); the
 * every-minute job is the safety net either way.
 */
export function triggerEmailDelivery(c: AppContext): void {
  const deps = c.var.deps;
  const pass = async () => {
    const handle = deps.database.acquire();
    try {
      await deliverDueEmails(handle.db, deps.mailer, deps.clock.now());
    } finally {
      await handle.release();
    }
  };
  if (deps.eventKick === 'per-request') {
    deps.background(c, pass());
    return;
  }
  deps.background(c, joinLoop(deps, 'email', async () => (await pass(), 1)));
}
