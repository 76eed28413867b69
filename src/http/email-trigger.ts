import type { Deps } from '../deps.js';
import { deliverDueEmails } from '../domain/outbox.js';
import type { AppContext } from './context.js';

/** Node: one delivery loop per process; requests that queue email while it runs make it go round again. */
const loops = new WeakMap<Deps, { running: Promise<void> | null; again: boolean }>();

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
  let state = loops.get(deps);
  if (!state) loops.set(deps, (state = { running: null, again: false }));
  const s = state;
  if (s.running) {
    s.again = true;
    deps.background(c, s.running);
    return;
  }
  s.running = (async () => {
    try {
      do {
        s.again = false;
        await pass();
      } while (s.again);
    } finally {
      s.running = null;
    }
  })();
  deps.background(c, s.running);
}
