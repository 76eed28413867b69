/**
 * Email confirmation (double opt-in, docs/contests-and-entries.md). A confirmation token is 32 random base62
 * characters sent only in the email link; the entry keeps only its SHA-256. The token does one
 * thing: confirm that entry's email. Clicking it again answers success again (mail scanners
 * and double clicks must not show an error); changing the entry's email replaces the token,
 * so the old link stops working.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { RandomSource } from '../deps.js';
import { newEmailToken } from '../lib/codes.js';
import { sha256Hex, toHex } from '../lib/crypto.js';
import { confirmationEmail } from '../mail/templates.js';
import { type SqlEmail, sqlNameVar } from './outbox.js';

export const TOKEN_RE = /^[A-Za-z0-9]{32}$/;

export function confirmationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/confirm/${token}`;
}

/** `expr` escaped for HTML by the database's ce_escape_html (the twin of escapeHtml, src/lib/html.ts). */
/** An email's subject line, by the database's one rule (ce_email_subject; emailSubject in mail/templates.ts). */
export const sqlEmailSubject = (expr: SQL): SQL => sql`ce_email_subject(${expr})`;

export function sqlEscapeHtml(expr: SQL): SQL {
  return sql`ce_escape_html((${expr})::text)`;
}

export interface PendingConfirmation {
  /** what entries.confirmation_token_hash gets */
  tokenHash: string;
  /**
   * The email's subject, text and html as SQL expressions of the contest title (the default text
   * carries no name; `name` is only the `{{name}}` of a text the team wrote), so that the email
   * can be queued by the same statement that reads the contest and writes the entry.
   */
  content(p: { title: SQL; name: SQL }): SqlEmail;
}

/**
 * A new token and its email. The content is rendered by confirmationEmail() with a random
 * marker in place of the contest title; SQL puts it in (escaped in the HTML
 * part; the subject on one line and at most 200 characters, as emails.ts does).
 */
export async function newConfirmation(
  random: RandomSource,
  publicUrl: string,
  /** added to the link (a sign-up's `#ce-entry=<token>`: a fragment, never sent to a server) */
  fragment = '',
): Promise<PendingConfirmation> {
  const token = newEmailToken(random);
  const tag = toHex(random.bytes(8));
  const titleMarker = `[[contest-title-${tag}]]`;
  const link = `${confirmationLink(publicUrl, token)}${fragment}`;
  const rendered = confirmationEmail({ contestTitle: titleMarker, link });
  return {
    tokenHash: await sha256Hex(token),
    content: ({ title, name }) => ({
      subject: sqlEmailSubject(sql`replace(${rendered.subject}::text, ${titleMarker}::text, (${title})::text)`),
      text: sql`replace(${rendered.text}::text, ${titleMarker}::text, (${title})::text)`,
      html: sql`replace(${rendered.html}::text, ${titleMarker}::text, ${sqlEscapeHtml(title)})`,
      vars: { name: sqlNameVar(name), contest: title, link: sql`${link}::text` },
    }),
  };
}
