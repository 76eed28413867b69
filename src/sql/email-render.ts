/**
 * An email rendered once in JavaScript with markers in place of what only the statement knows
 * (a contest's title, a name, a link), and the SQL that puts those in: plain in the subject (on
 * one line, at most 200 characters) and the text, escaped in the HTML part. What lets one
 * statement queue an email about the rows it writes.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { EmailContent } from '../mail/templates.js';
import { sqlEmailSubject, sqlEscapeHtml } from './confirmation.js';
import type { SqlEmail } from './outbox.js';

export interface Marker {
  /** the text in the rendered email */
  marker: string;
  /** what replaces it */
  value: SQL;
}

/** `Hi <name>,` or `Hi,` (no name), as the templates greet. */
export const sqlHello = (name: SQL): SQL =>
  sql`(case when (${name})::text is null then 'Hi,' else 'Hi ' || (${name})::text || ',' end)`;

export function sqlEmailFrom(rendered: EmailContent, markers: readonly Marker[]): SqlEmail {
  const fill = (text: string, html: boolean) =>
    markers.reduce<SQL>(
      (acc, m) => sql`replace(${acc}, ${m.marker}::text, ${html ? sqlEscapeHtml(m.value) : sql`(${m.value})::text`})`,
      sql`${text}::text`,
    );
  return {
    subject: sqlEmailSubject(fill(rendered.subject, false)),
    text: fill(rendered.text, false),
    html: fill(rendered.html, true),
  };
}
