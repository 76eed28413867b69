/**
 * Email delivery from the outbox (issue 6 fills this in): reads due rows, sends them through the
 * Mailer, marks them sent, retries failures with backoff, marks them failed past the limit.
 */
import type { Db } from '../db/client.js';
import type { Mailer } from '../deps.js';

export async function deliverDueEmails(_db: Db, _mailer: Mailer, _now: Date, _opts: { limit?: number } = {}): Promise<{ sent: number; failed: number }> {
  return { sent: 0, failed: 0 };
}
