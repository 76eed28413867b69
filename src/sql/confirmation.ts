/**
 * Email confirmation (double opt-in, contract §4). A confirmation token is 32 random base62
 * characters sent only in the email link; the entry keeps only its SHA-256. The token does one
 * thing: confirm that entry's email. Clicking it again answers success again (mail scanners
 * and double clicks must not show an error); changing the entry's email replaces the token,
 * so the old link stops working.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { sha256Hex, toHex } from '../lib/crypto.js';
import { newEmailToken } from '../lib/codes.js';
import { confirmationEmail } from '../mail/templates.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlEntryEventData } from './events.js';
import { sqlClampedTotal } from './points.js';
import { sqlOwnReleased, sqlReleaseOnConfirm } from './risk.js';

export const TOKEN_RE = /^[A-Za-z0-9]{32}$/;

export function confirmationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/confirm/${token}`;
}

/** SQL twin of escapeHtml() in emails.ts. */
export function sqlEscapeHtml(expr: SQL): SQL {
  return sql`replace(replace(replace(replace(replace((${expr})::text, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')`;
}

export interface PendingConfirmation {
  /** what entries.confirmation_token_hash gets */
  tokenHash: string;
  /**
   * The email's subject, text and html as SQL expressions of the contest title and the
   * entrant's name (null: no name), so that the email can be queued by the same statement that
   * reads the contest and writes the entry.
   */
  content(p: { title: SQL; name: SQL }): { subject: SQL; text: SQL; html: SQL };
}

/**
 * A new token and its email. The content is rendered by confirmationEmail() with random
 * markers in place of the contest title and the name; SQL puts them in (escaped in the HTML
 * part; the subject on one line and at most 200 characters, as emails.ts does).
 */
export async function newConfirmation(random: RandomSource, publicUrl: string): Promise<PendingConfirmation> {
  const token = newEmailToken(random);
  const tag = toHex(random.bytes(8));
  const titleMarker = `[[contest-title-${tag}]]`;
  const nameMarker = `[[entrant-name-${tag}]]`;
  const rendered = confirmationEmail({
    contestTitle: titleMarker,
    name: nameMarker,
    link: confirmationLink(publicUrl, token),
  });
  // confirmationEmail greets with `Hi ${name},` or, without a name, `Hi,`
  const helloMarker = `Hi ${nameMarker},`;
  const hello = (name: SQL) =>
    sql`(case when (${name})::text is null then 'Hi,' else 'Hi ' || (${name})::text || ',' end)`;
  return {
    tokenHash: await sha256Hex(token),
    content: ({ title, name }) => ({
      subject: sql`left(btrim(regexp_replace(replace(${rendered.subject}::text, ${titleMarker}::text, (${title})::text), '[[:cntrl:]]+', ' ', 'g')), 200)`,
      text: sql`replace(replace(${rendered.text}::text, ${titleMarker}::text, (${title})::text), ${helloMarker}::text, ${hello(name)})`,
      html: sql`replace(replace(${rendered.html}::text, ${titleMarker}::text, ${sqlEscapeHtml(title)}), ${helloMarker}::text, ${sqlEscapeHtml(hello(name))})`,
    }),
  };
}

export interface ConfirmResult {
  entryId: string;
  emailConfirmed: true;
  /** true when the entry was confirmed before this click */
  alreadyConfirmed: boolean;
  contestTitle: string;
  email: string | null;
}

/** Confirms the entry whose token this is; unknown or malformed token: 404 Confirmation link not found. */
export async function confirmEmail(db: Db, token: string, now: Date): Promise<ConfirmResult> {
  if (!TOKEN_RE.test(token)) throw Errors.confirmationNotFound();
  const hash = await sha256Hex(token);
  const row = await queryOne<{ id: string; was_confirmed: boolean; title: string; email: string | null }>(
    db,
    sql`with t as (
          select e.id, e.email_confirmed, e.email, e.points, e.contest_id, c.title
          from entries e join contests c on c.id = e.contest_id
          where e.confirmation_token_hash = ${hash} and e.erased_at is null
          for update of e
        ), ${sqlReleaseOnConfirm(now.toISOString())} u as (
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
        ), ${sqlEmitEvent(
          'ev_confirmed',
          'entry.confirmed',
          sql`select c.team_id, u.contest_id, u.ev_data as data from u join contests c on c.id = u.contest_id`,
          now,
        )}
        select t.id, t.email_confirmed as was_confirmed, t.title, t.email, ${sqlEventDeliveries('ev_confirmed')} from t`,
  );
  if (!row) throw Errors.confirmationNotFound();
  return {
    entryId: row.id,
    emailConfirmed: true,
    alreadyConfirmed: row.was_confirmed,
    contestTitle: row.title,
    email: row.email,
  };
}
