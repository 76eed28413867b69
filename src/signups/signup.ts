/**
 * A sign-up from a page (POST /contests/{contestId}/signup): the shared entry create statement
 * (src/sql/entry-create.ts) with what a sign-up adds. The contest must take public sign-ups and,
 * with a consentText, the visitor must have agreed (else nothing is written and the answer says
 * which); the entry keeps when and the SHA-256 of the text; its token is stored; for an email
 * already entered, its owner gets a fresh token by email when the contest has a landing page, at
 * most once per 10 minutes. Either email goes only within the mailbox's hourly share across the
 * team's contests (src/sql/mailbox.ts), and a visitor's sign-up sends no name it typed. Its
 * customFields are checked against the contest's signupFields in the same statement
 * (ce_signup_fields_error): a wrong answer writes nothing and answers 400 naming the field.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, num } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { type CreateEntryInput, entryCreateInput } from '../entries/create.js';
import { Errors } from '../errors.js';
import { EMAIL_MAX } from '../lib/email.js';
import type { ShareChannel } from '../lib/share-channels.js';
import { SIGNUP_FIELD_TEXT_MAX } from '../lib/signup-fields.js';
import { sqlAllowedReturn, sqlContestOpen, sqlLandingUrl } from '../sql/contests.js';
import { type EntryCreateExtension, type EntryCreateResult, runEntryCreate } from '../sql/entry-create.js';
import { sqlMailboxWindow } from '../sql/mailbox.js';
import type { SqlEmail } from '../sql/outbox.js';
import { sqlQueueEmail } from '../sql/outbox.js';
import { sqlPosition } from '../sql/positions.js';
import { sqlNotErased } from '../sql/scope.js';

export interface SignupOptions {
  /**
   * the caller is a page's visitor (a public key, or none), not the team's server: the email must
   * be confirmed before the entry counts, whatever the contest says, and no email the sign-up
   * sends carries a name the visitor typed (a stranger could greet anyone with any words)
   */
  visitor: boolean;
  /** the visitor agreed to the contest's consentText */
  consent: boolean;
  /** a bot-check token came and siteverify accepted it (a contest with botCheck "turnstile" needs it) */
  botChecked: boolean;
  /** the answer when the contest needs the bot check and it did not pass (403, or 503 when siteverify was unreachable) */
  botCheckError?: Error;
  /** SHA-256 of the new entry's token */
  tokenHash: string;
  /** the share channel the visitor came by, or null */
  channel: ShareChannel | null;
  /** the page the visitor signs up on (kept, and the emails lead there, when its origin is one of the contest's allowedOrigins) */
  returnPage: { href: string; origin: string } | null;
  /** an email already entered: a new token for its owner and the email that carries it */
  statusLink: { tokenHash: string; mail: (p: { title: SQL; name: SQL; position?: SQL }) => SqlEmail };
}

/** The columns a sign-up adds to the entry create statement's answer. */
interface SignupRow {
  signup_closed: boolean;
  consent_missing: boolean;
  /** what is wrong with the sign-up's customFields for the contest's signupFields, or null */
  fields_error: string | null;
  bot_check_failed: boolean;
  new_confirmation_required: boolean | null;
  new_position: number | string | null;
  status_mails: number | string;
}

export interface SignupResult extends EntryCreateResult<SignupRow> {
  /**
   * whether the email must be confirmed, and the entry's position (null while it does not count);
   * `linkSent`: an email already entered was sent a link to its page by this sign-up
   */
  signup: { confirmationRequired: boolean; position: number | null; linkSent: boolean };
}

export async function createSignup(
  db: Db,
  ctx: { now: Date; random: RandomSource; publicUrl: string; ipHashSalt?: () => Promise<string> },
  contest: { id: string; team: Team },
  input: CreateEntryInput,
  signup: SignupOptions,
): Promise<SignupResult> {
  const parsed = entryCreateInput(contest.id, input);
  const result = await runEntryCreate(
    db,
    { ...ctx, source: 'signup' },
    contest,
    parsed,
    signupParts(signup, parsed.customFieldData, ctx.now, ctx.now.toISOString(), ctx.publicUrl),
  );
  const row = result.row;
  const position = row.new_position;
  // a sign-up for an email already entered mails its owner a fresh link (at most one per 10 minutes)
  const linkSent = num(row.status_mails) > 0;
  return {
    ...result,
    emailQueued: result.emailQueued || linkSent,
    signup: {
      confirmationRequired: row.new_confirmation_required === true,
      position: position === null ? null : num(position),
      linkSent,
    },
  };
}

/** The parts a sign-up adds to the entry create statement (the contract: src/sql/entry-create.ts). */
function signupParts(
  signup: SignupOptions,
  customFields: Record<string, unknown> | null,
  at: Date,
  now: string,
  publicUrl: string,
): EntryCreateExtension<SignupRow> {
  const open = sqlContestOpen(at, 'c');
  // the answers checked once per sign-up: what refuses it (fields_error) and what closes it (isOpen)
  const fieldsCheck = sql` cross join lateral (select ce_signup_fields_error(c.signup_fields,
              ${customFields === null ? null : JSON.stringify(customFields)}::jsonb, ${SIGNUP_FIELD_TEXT_MAX}::int,
              ${EMAIL_MAX}::int) as error) sf`;
  const link = signup.statusLink.mail({
    title: sql`c.title`,
    name: signup.visitor ? sql`null::text` : sql`sl.name`,
    position: sql`sl.position`,
  });
  return {
    requireConfirmation: signup.visitor ? sql`true as require_email_confirmation` : sql`c.require_email_confirmation`,
    creditOnConfirm: signup.visitor,
    mailWithoutName: signup.visitor,
    refuse: (row) => {
      if (row.signup_closed) throw Errors.signupClosed();
      if (row.bot_check_failed) throw signup.botCheckError ?? Errors.botCheckFailed();
      if (row.consent_missing) throw Errors.consentRequired();
      if (row.fields_error) throw Errors.validation(row.fields_error);
    },
    isOpen: sql`(${open} and c.public_signup and (c.bot_check = 'off' or ${signup.botChecked}::boolean)
              and (c.consent_text is null or ${signup.consent}::boolean) and sf.error is null)`,
    contestJoin: fieldsCheck,
    contestColumns: sql`, not c.public_signup as signup_closed,
              (c.public_signup and c.bot_check = 'turnstile' and not ${signup.botChecked}::boolean) as bot_check_failed,
              (c.public_signup and c.consent_text is not null and not ${signup.consent}::boolean) as consent_missing,
              case when c.public_signup then sf.error end as fields_error,
              c.consent_text, ${sqlAllowedReturn(signup.returnPage, 'c')} as return_url,
              coalesce(${sqlAllowedReturn(signup.returnPage, 'c')}, ${sqlLandingUrl('c', publicUrl)}) as landing_url`,
    insertColumns: sql`, consented_at, consent_text_sha256, channel, return_url`,
    insertValues: sql`,
              case when c.consent_text is not null then ${now}::timestamptz end,
              case when c.consent_text is not null then encode(sha256(convert_to(c.consent_text, 'UTF8')), 'hex') end,
              ${signup.channel}::text, c.return_url`,
    returning: sql`, contest_id, created_at, email_confirmed, disqualified, erased_at, admitted_at`,
    ctes: sql`tok as (
            insert into entry_tokens (token_hash, entry_id, kind, created_at)
            select ${signup.tokenHash}, ins.id, 'answer', ${now}::timestamptz from ins
            returning 1
          ), sl_due as (
            -- an email already entered: its owner's "your link", at most once per 10 minutes
            select e.id, e.email, e.name, ${sqlPosition('e')} as position
            from entries e, existing, c
            where e.id = existing.id and c.landing_url is not null and e.email is not null and ${sqlNotErased('e')}
              and (e.status_link_sent_at is null or e.status_link_sent_at <= ${now}::timestamptz - interval '10 minutes')
          ), ${sqlMailboxWindow(
            // the one email this sign-up may send, either kind: both count in the mailbox's share
            sql`select ins.email from ins where ins.confirmation_token_hash is not null
                union all select sl_due.email from sl_due`,
            sql`(select team_id from c)`,
            at,
          )} sl as (
            update entries e set status_link_sent_at = ${now}::timestamptz
            from sl_due
            where e.id = sl_due.id and exists (select 1 from mailbox)
            returning e.id, e.email, e.name, sl_due.position
          ), sl_tok as (
            insert into entry_tokens (token_hash, entry_id, created_at)
            select ${signup.statusLink.tokenHash}, sl.id, ${now}::timestamptz from sl
            returning 1
          ), sl_mail as (
            ${sqlQueueEmail('status_link', link, now, { teamId: sql`c.team_id`, contestId: sql`c.id`, to: sql`sl.email`, from: sql`sl, c` })}
          ), `,
    select: sql`,
            coalesce((select signup_closed from c), false) as signup_closed,
            coalesce((select consent_missing from c), false) as consent_missing,
            (select fields_error from c) as fields_error,
            coalesce((select bot_check_failed from c), false) as bot_check_failed,
            (select require_email_confirmation from c) as new_confirmation_required,
            (select ${sqlPosition('ins')} from ins) as new_position,
            (select count(*) from sl_mail) as status_mails`,
    mailAllowed: sql` and exists (select 1 from mailbox)`,
  };
}
