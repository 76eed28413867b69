import { joinLoop } from '../lib/shared-loop.js';
import { deliverDueEmails } from '../mail/outbox.js';
import type { AppContext } from './context.js';

/** Workers give a response's waitUntil work 30 s: a loop older than this is taken for cut off. */
const EMAIL_LOOP_STALE_MS = 25_000;

/**
 * Call after a request queued email: delivery runs after the response (Worker: ctx.waitUntil),
 * on a database handle of its own since the request's is released with the response.
 *
 * Requests share one loop per process (Node) or isolate (Workers): under load a pass claims and
 * marks the emails of many requests at once (two statements for up to 25 emails) instead of each
 * request running its own pass (two statements for its one email). On Workers the loop lives in
 * the waitUntil of the request that started it; the others only ask it to go round again. The
 * every-minute job is the safety net either way.
 */
export function triggerEmailDelivery(c: AppContext): void {
  const deps = c.var.deps;
  const pass = async () => {
    const handle = deps.database.acquire();
    try {
      await deliverDueEmails(handle.db, deps.mailer, deps.clock.now());
      return 1;
    } finally {
      await handle.release();
    }
  };
  // Workers: the loop is kept alive by the request that started it; a request that finds it
  // running only asks for another round (it must not hold another request's work)
  const workers = deps.eventKick === 'per-request';
  const loop = joinLoop(deps, 'email', pass, workers ? { staleAfterMs: EMAIL_LOOP_STALE_MS } : {});
  // one failure is reported once, by the request whose loop it was; the others only wait for it
  if (loop.started) deps.background(c, loop.promise);
  else if (!workers)
    deps.background(
      c,
      loop.promise.catch(() => {}),
    );
}
