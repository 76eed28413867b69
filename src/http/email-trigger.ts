import { deliverDueEmails } from '../domain/outbox.js';
import type { AppContext } from './context.js';

/**
 * Call after a request queued email: delivery runs after the response (Worker: ctx.waitUntil),
 * on a database handle of its own since the request's is released with the response.
 */
export function triggerEmailDelivery(c: AppContext): void {
  const deps = c.var.deps;
  const work = (async () => {
    const handle = deps.database.acquire();
    try {
      await deliverDueEmails(handle.db, deps.mailer, deps.clock.now());
    } finally {
      await handle.release();
    }
  })();
  deps.background(c, work);
}
