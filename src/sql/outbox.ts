/**
 * The email outbox's one insert: an email is queued by the statement whose change caused it, in
 * the same transaction, and delivered after the answer (src/mail/outbox.ts). Entry create, entry
 * update (a new email to confirm), admission, a draw's winners and the instant-win claim use it;
 * the reward triggers (ce_reward_notify, src/db/functions/rewards.sql) insert theirs themselves.
 * Both make the email with the database function ce_email_compose: when the contest has a text of
 * its own for the kind (src/mail/team-texts.ts), that text, filled with the email's placeholders,
 * replaces the default.
 */
import { type SQL, sql } from 'drizzle-orm';
import { REWARDS_MAY_COLUMN } from '../db/client.js';

/** What the outbox_kind check allows. */
export type EmailKind = 'confirmation' | 'prize' | 'status_link' | 'winner' | 'admitted' | 'reward';

/** The kinds a team may write (email_texts.kind), by outbox kind. */
const TEAM_KIND: Partial<Record<EmailKind, string>> = {
  confirmation: 'confirmation',
  status_link: 'status-link',
  winner: 'winner',
  admitted: 'admitted',
};

/** Subject, text and HTML as SQL expressions (rendered in the statement, from its own rows). */
export interface SqlEmail {
  subject: SQL;
  text: SQL;
  html: SQL;
  /** the values of the kind's placeholders (`{{name}}`...), for a text the team wrote */
  vars?: Record<string, SQL>;
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
  const k = sql.raw(`'${kind}'`);
  const teamKind = TEAM_KIND[kind];
  if (!teamKind || !mail.vars) {
    return sql`insert into email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
      select ${p.teamId}, ${p.contestId}, ${p.to}, ${k}, ${mail.subject}, ${mail.text}, ${mail.html},
        ${at}::timestamptz, ${at}::timestamptz
      from ${p.from}
      returning id`;
  }
  const vars = sql.join(
    Object.entries(mail.vars).map(([name, value]) => sql`${sql.raw(`'${name}'`)}, (${value})::text`),
    sql`, `,
  );
  return sql`insert into email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
      select x.team_id, x.contest_id, x."to", ${k}, m.subject, m.text, m.html, ${at}::timestamptz, ${at}::timestamptz
      from (
        select ${p.teamId} as team_id, ${p.contestId} as contest_id, ${p.to} as "to", ${mail.subject} as subject,
          ${mail.text} as text, ${mail.html} as html, jsonb_build_object(${vars}) as vars
        from ${p.from}
      ) x cross join lateral ce_email_compose(x.contest_id, ${sql.raw(`'${teamKind}'`)}, x.subject, x.text, x.html, x.vars) m
      returning id`;
}

/**
 * `, exists (…) as ce_rewards_may`, for the final SELECT of a statement that may move points or
 * make entries count in the contest `contestId`: true when the contest has rewards, whose
 * triggers may then have queued reward emails and events; the app sends them right after the
 * answer. A contest without rewards costs no statement more.
 */
export const sqlRewardsMay = (contestId: SQL): SQL =>
  sql`, exists (select 1 from rewards r where r.contest_id = ${contestId} and r.deleted_at is null) as ${sql.raw(REWARDS_MAY_COLUMN)}`;

/** `{{name}}`: the person's name, or "there" without one. */
export const sqlNameVar = (name: SQL): SQL => sql`coalesce((${name})::text, 'there')`;
