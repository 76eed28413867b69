/**
 * A mailbox's share of confirmation emails (docs/fraud-and-privacy.md): a contest's sign-ups send
 * at most MAILBOX_CONFIRMATIONS_PER_HOUR confirmation emails to one mailbox in any hour, however
 * the address is spelled (ce_email_norm: lower-cased, `+tag` removed, Gmail's dots), so that a
 * stranger cannot flood someone's inbox with `victim+1@…`, `victim+2@…`. The row is keyed by the
 * SHA-256 of the normalised address and holds the last hour's send times only.
 */
import { type SQL, sql } from 'drizzle-orm';

export const MAILBOX_CONFIRMATIONS_PER_HOUR = 3;

/**
 * CTE `mailbox` (followed by a comma): one row when the new entry of CTE `reads.entry` (columns
 * email, confirmation_token_hash) may be sent its confirmation email, and the send counted; no row
 * when its mailbox had its share this hour. Reads the contest's `id` from CTE `reads.contest`.
 * A conditional upsert: concurrent sign-ups of one mailbox take turns on its row.
 */
export function sqlMailboxWindow(reads: { contest: 'c'; entry: 'ins' }, at: Date): SQL {
  const c = sql.raw(reads.contest);
  const e = sql.raw(reads.entry);
  const now = at.toISOString();
  const hourAgo = new Date(at.getTime() - 3_600_000).toISOString();
  return sql`mailbox as (
      insert into mailbox_windows as w (contest_id, mailbox, times)
      select ${c}.id, encode(sha256(convert_to(ce_email_norm(${e}.email), 'UTF8')), 'hex'), array[${now}::timestamptz]
      from ${e}, ${c} where ${e}.email is not null and ${e}.confirmation_token_hash is not null
      on conflict (contest_id, mailbox) do update
        set times = array(select t from unnest(w.times) t where t > ${hourAgo}::timestamptz) || ${now}::timestamptz
        where (select count(*) from unnest(w.times) t where t > ${hourAgo}::timestamptz) < ${MAILBOX_CONFIRMATIONS_PER_HOUR}
      returning 1
    ),`;
}
