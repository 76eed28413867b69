/**
 * The email outbox's one insert: an email is queued by the statement whose change caused it, in
 * the same transaction, and delivered after the answer (src/mail/outbox.ts). Written once here;
 * entry create, entry update (a new email to confirm) and the instant-win claim use it.
 */
import { type SQL, sql } from 'drizzle-orm';

/** What the outbox_kind check allows. */
export type EmailKind = 'confirmation' | 'prize' | 'status_link' | 'winner' | 'admitted';

/** Subject, text and HTML as SQL expressions (rendered in the statement, from its own rows). */
export interface SqlEmail {
  subject: SQL;
  text: SQL;
  html: SQL;
}

/**
 * `insert into email_outbox … returning id`: one email of `kind` for each row of `from`, where
 * `teamId`, `contestId` and `to` are expressions over the tables and CTEs that `from` names
 * (the caller states them: this fragment reads no CTE by a name of its own).
 */
export function sqlQueueEmail(
  kind: EmailKind,
  mail: SqlEmail,
  at: string,
  p: { teamId: SQL; contestId: SQL; to: SQL; from: SQL },
): SQL {
  return sql`insert into email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
      select ${p.teamId}, ${p.contestId}, ${p.to}, ${sql.raw(`'${kind}'`)}, ${mail.subject}, ${mail.text}, ${mail.html},
        ${at}::timestamptz, ${at}::timestamptz
      from ${p.from}
      returning id`;
}
