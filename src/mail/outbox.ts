/**
 * Email delivery from the outbox: claims due rows, sends them through the Mailer, marks them
 * sent, retries failures with exponential backoff, marks them failed past the limit.
 *
 * Guarantees:
 * - Claiming is one statement (`FOR UPDATE SKIP LOCKED` + a lease in `locked_until`): concurrent
 *   deliverers (the request trigger, the cron, several isolates) never take the same row while
 *   its lease runs.
 * - Nothing is lost: a row is only left `pending` → `sent`/`failed` by an explicit mark. If the
 *   process dies between send and mark, the lease expires and the row is claimed again.
 * - That retry reuses the row's `idempotency_key`: Resend answers a repeated key (24 h window)
 *   with the original response and sends nothing. SMTP has no such thing: at least once there.
 *   All retries of one email (1+2+...+64 min with the defaults) happen well within 24 h.
 * - Times come from the caller's clock (`now`), never SQL now().
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { query } from '../db/client.js';
import type { Logger, Mailer, OutgoingEmail } from '../deps.js';
import { sqlArray } from '../sql/arrays.js';
import { isPermanentMailError, mailErrorMessage } from './errors.js';

export interface DeliveryOptions {
  /** rows claimed per batch (default 25) */
  limit?: number;
  /** batches per call while rows keep coming (default 4) */
  maxBatches?: number;
  /** attempts before an email is marked failed (default 8) */
  maxAttempts?: number;
  /** delay after the first failure; doubles after each further one (default 60 s) */
  baseDelayMs?: number;
  /** how long a claimed row stays reserved for this deliverer (default 5 min) */
  leaseMs?: number;
  /** sends in flight at once (default 4) */
  concurrency?: number;
  logger?: Logger;
}

export interface DeliveryResult {
  /** marked sent by this call */
  sent: number;
  /** marked failed for good by this call */
  failed: number;
  /** failed this time, scheduled for another attempt */
  retrying: number;
}

export const OUTBOX_DEFAULTS = {
  limit: 25,
  maxBatches: 4,
  maxAttempts: 8,
  baseDelayMs: 60_000,
  leaseMs: 5 * 60_000,
  concurrency: 4,
} as const;

interface ClaimedRow {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  idempotency_key: string;
}

async function claimDue(db: Db, now: string, leaseUntil: string, limit: number): Promise<ClaimedRow[]> {
  return query<ClaimedRow>(
    db,
    sql`with due as (
          select id from email_outbox
          where status = 'pending'
            and next_attempt_at <= ${now}::timestamptz
            and (locked_until is null or locked_until <= ${now}::timestamptz)
          order by next_attempt_at, id
          limit ${limit}
          for update skip locked
        )
        update email_outbox o
           set locked_until = ${leaseUntil}::timestamptz
          from due
         where o.id = due.id
        returning o.id, o."to", o.subject, o.text, o.html, o.idempotency_key`,
  );
}

/** How often a "sent" mark is tried before the emails are left to their lease (and sent again) */
export const MARK_SENT_TRIES = 5;

/**
 * The emails of a batch that went out, marked in one statement (not one per email). The stored
 * copy keeps no credential once sent: entry tokens (`et_…`) and confirmation codes in its links
 * are blanked (the database keeps only their hashes). A mark that fails (a connection dropped)
 * is tried again, up to MARK_SENT_TRIES times over about 3 s, since an unmarked email goes out
 * again when its lease ends.
 */
async function markSent(db: Db, ids: string[], now: string): Promise<void> {
  if (ids.length === 0) return;
  const statement = sql`update email_outbox
           set status = 'sent', sent_at = ${now}::timestamptz, attempts = attempts + 1,
               locked_until = null, last_error = null,
               subject = ce_scrub_credentials(subject), text = ce_scrub_credentials(text), html = ce_scrub_credentials(html)
         where id = any(${sqlArray(ids, 'uuid')}) and status = 'pending'`;
  // not fenced by the lease: whoever sent it, it was sent
  for (let attempt = 1; ; attempt++) {
    try {
      await query(db, statement);
      return;
    } catch (e) {
      if (attempt >= MARK_SENT_TRIES) throw e;
      await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * attempts + 1; `failed` when the error is permanent or the limit is reached, else pending again
 * at now + base * 2^(attempts before this one). Fenced by our lease: a deliverer whose lease ran
 * out (and whose row someone else now holds) changes nothing. An email failed for good keeps no
 * credential either (subject, text and HTML scrubbed as when sent): nobody will send it again.
 */
async function markFailure(
  db: Db,
  id: string,
  now: string,
  leaseUntil: string,
  error: string,
  permanent: boolean,
  maxAttempts: number,
  baseDelayMs: number,
): Promise<'failed' | 'pending' | null> {
  const final = sql`(${permanent}::boolean or attempts + 1 >= ${maxAttempts}::int)`;
  const rows = await query<{ status: 'failed' | 'pending' }>(
    db,
    sql`update email_outbox
           set attempts = attempts + 1,
               last_error = ${error},
               locked_until = null,
               status = case when ${final} then 'failed' else 'pending' end,
               next_attempt_at = case when ${final}
                                      then next_attempt_at
                                      else ${now}::timestamptz
                                           + make_interval(secs => ${baseDelayMs / 1000}::float8 * power(2, attempts)) end,
               subject = case when ${final} then ce_scrub_credentials(subject) else subject end,
               text = case when ${final} then ce_scrub_credentials(text) else text end,
               html = case when ${final} then ce_scrub_credentials(html) else html end
         where id = ${id} and status = 'pending' and locked_until = ${leaseUntil}::timestamptz
        returning status`,
  );
  return rows[0]?.status ?? null;
}

async function inParallel<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  });
  await Promise.all(lanes);
}

export async function deliverDueEmails(
  db: Db,
  mailer: Mailer,
  now: Date,
  opts: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const o = { ...OUTBOX_DEFAULTS, ...opts };
  const nowIso = now.toISOString();
  const leaseUntil = new Date(now.getTime() + o.leaseMs).toISOString();
  const result: DeliveryResult = { sent: 0, failed: 0, retrying: 0 };

  for (let batch = 0; batch < o.maxBatches; batch++) {
    const rows = await claimDue(db, nowIso, leaseUntil, o.limit);
    if (rows.length === 0) break;
    const sentIds: string[] = [];
    await inParallel(rows, o.concurrency, async (row) => {
      const email: OutgoingEmail = {
        id: row.id,
        to: row.to,
        subject: row.subject,
        text: row.text,
        html: row.html,
        idempotencyKey: row.idempotency_key,
      };
      let sendError: unknown = null;
      try {
        await mailer.send(email);
      } catch (e) {
        sendError = e ?? new Error('send failed');
      }
      if (sendError === null) {
        sentIds.push(row.id);
        return;
      }
      const message = mailErrorMessage(sendError);
      const status = await markFailure(
        db,
        row.id,
        nowIso,
        leaseUntil,
        message,
        isPermanentMailError(sendError),
        o.maxAttempts,
        o.baseDelayMs,
      );
      if (status === 'failed') result.failed += 1;
      else if (status === 'pending') result.retrying += 1;
      o.logger?.error('email delivery failed', { emailId: row.id, error: message, status: status ?? 'lease lost' });
    });
    // what went out is marked once the batch's sends are done; a process that dies before this
    // leaves them leased, and they are sent again with the same idempotency keys (as before, when
    // it died between a send and its mark)
    await markSent(db, sentIds, nowIso);
    result.sent += sentIds.length;
    if (rows.length < o.limit) break;
  }
  return result;
}
