/**
 * A mailbox's share of the emails a stranger can make the service send (docs/fraud-and-privacy.md):
 * a sign-up's confirmation and the "your link" email of a repeated sign-up together, at most
 * MAILBOX_EMAILS_PER_HOUR to one mailbox in any hour across the team's contests, however the
 * address is spelled (ce_email_norm: lower-cased, `+tag` removed, Gmail's dots), so that a
 * stranger cannot flood someone's inbox with `victim+1@…`, `victim+2@…`, repeats, or the team's
 * other contests. The row is keyed by the SHA-256 of the normalised address and holds the last
 * hour's send times only.
 */
import { type SQL, sql } from 'drizzle-orm';

export const MAILBOX_EMAILS_PER_HOUR = 3;

/** The key of the mailbox an address reaches: SHA-256 (hex) of ce_email_norm(email). */
export const sqlMailboxKey = (email: SQL): SQL =>
  sql`encode(sha256(convert_to(ce_email_norm(${email}), 'UTF8')), 'hex')`;

/**
 * CTE `mailbox` (followed by a comma): one row when the email the statement is about to send to
 * the address `to` selects (a query answering one row with an `email` column, or none) may go,
 * and the send counted; no row when its mailbox had its share this hour, or nothing is to be sent.
 * A conditional upsert: concurrent sign-ups of one mailbox take turns on its row.
 */
export function sqlMailboxWindow(to: SQL, teamId: SQL, at: Date): SQL {
  const now = at.toISOString();
  const hourAgo = new Date(at.getTime() - 3_600_000).toISOString();
  return sql`mailbox as (
      insert into mailbox_sends as w (team_id, mailbox, times)
      select ${teamId}, ${sqlMailboxKey(sql`x.email`)}, array[${now}::timestamptz]
      from (${to}) x where x.email is not null
      on conflict (team_id, mailbox) do update
        set times = array(select t from unnest(w.times) t where t > ${hourAgo}::timestamptz) || ${now}::timestamptz
        where (select count(*) from unnest(w.times) t where t > ${hourAgo}::timestamptz) < ${MAILBOX_EMAILS_PER_HOUR}
      returning 1
    ),`;
}
