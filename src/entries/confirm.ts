import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import { Errors } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { TOKEN_RE } from '../sql/confirmation.js';
import { sqlReturnUrl } from '../sql/contests.js';
import { sqlEmitEvent, sqlEntryEventData, sqlEventDeliveries } from '../sql/events.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { sqlClampedTotal } from '../sql/points.js';
import { sqlOwnReleased, sqlReleaseOnConfirm } from '../sql/risk.js';
import { sqlNotErased } from '../sql/scope.js';

export interface ConfirmResult {
  entryId: string;
  emailConfirmed: true;
  /** true when the entry was confirmed before this click */
  alreadyConfirmed: boolean;
  contestTitle: string;
  email: string | null;
  /** the page the person signed up on (an allowed origin's), else the contest's landing page, or its hosted page while it takes public sign-ups: the confirmation leads the person there */
  landingUrl: string | null;
}

/**
 * Confirms the entry whose token this is; unknown or malformed token: 404 Confirmation link not found.
 * The same statement ends the entry tokens handed out in sign-up answers (whoever signed up held
 * them, not necessarily the email's owner) and stores `freshTokenHash`, a token of kind `email`
 * that the confirmation's redirect hands to whoever clicked the link from the mailbox.
 */
export async function confirmEmail(
  db: Db,
  token: string,
  now: Date,
  freshTokenHash: string,
  publicUrl: string,
): Promise<ConfirmResult> {
  if (!TOKEN_RE.test(token)) throw Errors.confirmationNotFound();
  const hash = await sha256Hex(token);
  const row = await queryOne<{
    id: string;
    was_confirmed: boolean;
    title: string;
    email: string | null;
    landing_url: string | null;
  }>(
    db,
    sql`with t as (
          select e.id, e.email_confirmed, e.email, e.points, e.contest_id, c.title, ${sqlReturnUrl('e', 'c', publicUrl)} as landing_url
          from entries e join contests c on c.id = e.contest_id
          where e.confirmation_token_hash = ${hash} and ${sqlNotErased('e')}
          for update of e
        ), ${sqlReleaseOnConfirm({ confirmed: 't' }, now.toISOString())} u as (
          update entries e set email_confirmed = true, confirmed_at = coalesce(e.confirmed_at, ${now.toISOString()}::timestamptz),
            points = ${sqlClampedTotal(sql`t.points`, sqlOwnReleased(sql`t.id`))},
            updated_at = ${now.toISOString()}::timestamptz
          from t where e.id = t.id and not t.email_confirmed
          returning e.id, e.contest_id, ${sqlEntryEventData('e')} as ev_data, e.points - t.points as delta
        ), own_ledger as (
          insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
          select u.id, t.contest_id, u.delta, ${sqlOwnReleased(sql`t.id`)}, 'referral', r.reason, r.ref_id, ${now.toISOString()}::timestamptz
          from u, t, (select reason, ref_id from rel where entry_id = (select id from t) and status = 'released' limit 1) r
          returning 1
        ), ended as (
          delete from entry_tokens et using t where et.entry_id = t.id and et.kind = 'answer'
          returning 1
        ), fresh as (
          insert into entry_tokens (token_hash, entry_id, kind, created_at)
          select ${freshTokenHash}::text, t.id, 'email', ${now.toISOString()}::timestamptz from t where t.landing_url is not null
          returning 1
        ), ${sqlEmitEvent(
          'ev_confirmed',
          'entry.confirmed',
          sql`select c.team_id, u.contest_id, u.ev_data as data from u join contests c on c.id = u.contest_id`,
          now,
        )}
        select t.id, t.email_confirmed as was_confirmed, t.title, t.email, t.landing_url,
          ${sqlEventDeliveries('ev_confirmed')}${sqlRewardsMay(sql`t.contest_id`)} from t`,
  );
  if (!row) throw Errors.confirmationNotFound();
  return {
    entryId: row.id,
    emailConfirmed: true,
    alreadyConfirmed: row.was_confirmed,
    contestTitle: row.title,
    email: row.email,
    landingUrl: row.landing_url,
  };
}
