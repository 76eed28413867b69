/**
 * The "your link" email to the owner of an email that signs up again: rendered by
 * statusLinkEmail() with markers, which SQL replaces by the contest's title, the entrant's name
 * and the link (the contest's landing page, `#ce-entry=` and a fresh token: a fragment never
 * reaches a server's log), so that the sign-up's one statement queues it.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { RandomSource } from '../deps.js';
import { toHex } from '../lib/crypto.js';
import { statusLinkEmail } from '../mail/templates.js';
import { sqlEscapeHtml } from '../sql/confirmation.js';
import type { SqlEmail } from '../sql/outbox.js';

/** The email for a token, as SQL over the contest's title, the name and the contest's landing_url. */
export function statusLinkContent(random: RandomSource, token: string) {
  const tag = toHex(random.bytes(8));
  const m = { title: `[[contest-title-${tag}]]`, name: `[[entrant-name-${tag}]]`, link: `[[link-${tag}]]` };
  const rendered = statusLinkEmail({ contestTitle: m.title, name: m.name, link: m.link });
  const helloMarker = `Hi ${m.name},`;
  return (p: { title: SQL; name: SQL }): SqlEmail => {
    const hello = sql`(case when (${p.name})::text is null then 'Hi,' else 'Hi ' || (${p.name})::text || ',' end)`;
    const link = sql`(c.landing_url || ${`#ce-entry=${token}`}::text)`;
    const fill = (text: string, html: boolean) => {
      const e = (x: SQL) => (html ? sqlEscapeHtml(x) : x);
      return sql`replace(replace(replace(${text}::text, ${m.title}::text, ${e(p.title)}), ${helloMarker}::text, ${e(hello)}), ${m.link}::text, ${e(link)})`;
    };
    return {
      subject: sql`left(btrim(regexp_replace(replace(${rendered.subject}::text, ${m.title}::text, (${p.title})::text), '[[:cntrl:]]+', ' ', 'g')), 200)`,
      text: fill(rendered.text, false),
      html: fill(rendered.html, true),
    };
  };
}
