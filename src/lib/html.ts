/**
 * HTML's five special characters escaped, for every page and email this service renders in
 * JavaScript. Statements escape with the database's twin, ce_escape_html
 * (src/db/functions/email-rendering.sql, called by sqlEscapeHtml); src/lib/html.test.ts holds
 * the two to the same answers.
 */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
