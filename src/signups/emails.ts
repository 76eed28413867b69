/**
 * The "your link" email to the owner of an email that signs up again, as SQL over the contest's
 * title, the entrant's name and the contest's `landing_url` (the CTE `c` of the sign-up's
 * statement): the link is the landing page, `#ce-entry=` and a fresh token (a fragment never
 * reaches a server's log).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { RandomSource } from '../deps.js';
import { toHex } from '../lib/crypto.js';
import { admittedEmail, statusLinkEmail } from '../mail/templates.js';
import { sqlEmailFrom, sqlHello } from '../sql/email-render.js';
import { type SqlEmail, sqlNameVar } from '../sql/outbox.js';

export function statusLinkContent(random: RandomSource, token: string) {
  const tag = toHex(random.bytes(8));
  const m = { title: `[[contest-title-${tag}]]`, name: `[[entrant-name-${tag}]]`, link: `[[link-${tag}]]` };
  const rendered = statusLinkEmail({ contestTitle: m.title, name: m.name, link: m.link });
  const link = sql`(c.landing_url || ${`#ce-entry=${token}`}::text)`;
  return (p: { title: SQL; name: SQL; position?: SQL }): SqlEmail => ({
    ...sqlEmailFrom(rendered, [
      { marker: m.title, value: p.title },
      { marker: `Hi ${m.name},`, value: sqlHello(p.name) },
      { marker: m.link, value: link },
    ]),
    vars: { name: sqlNameVar(p.name), contest: p.title, link, position: p.position ?? sql`null` },
  });
}

/**
 * The "You're in" email to an entry a waitlist let in, as SQL over the contest's title and the
 * entrant's name; `tag` keeps the markers apart from any text (the contest's id).
 */
export function admittedContent(tag: string) {
  const t = tag.replace(/[^A-Za-z0-9]/g, '');
  const m = { title: `[[contest-title-${t}]]`, name: `[[entrant-name-${t}]]` };
  const rendered = admittedEmail({ contestTitle: m.title, name: m.name });
  return (p: { title: SQL; name: SQL; link: SQL }): SqlEmail => ({
    ...sqlEmailFrom(rendered, [
      { marker: m.title, value: p.title },
      { marker: `Hi ${m.name},`, value: sqlHello(p.name) },
    ]),
    vars: { name: sqlNameVar(p.name), contest: p.title, link: sql`coalesce(${p.link}, '')` },
  });
}
