/**
 * The email to a draw's winner, as SQL over the contest's title, the winner's name and the draw's
 * label (src/sql/email-render.ts), so that the reveal's (or the replacement's) statement queues it.
 */
import type { SQL } from 'drizzle-orm';
import { winnerEmail } from '../mail/templates.js';
import { sqlEmailFrom, sqlHello } from '../sql/email-render.js';
import { type SqlEmail, sqlNameVar } from '../sql/outbox.js';

/** `tag` keeps the markers apart from any text (the draw's id). */
export function winnerContent(tag: string) {
  const t = tag.replace(/[^A-Za-z0-9]/g, '');
  const m = { title: `[[contest-title-${t}]]`, name: `[[winner-name-${t}]]`, label: `[[draw-label-${t}]]` };
  const rendered = winnerEmail({ contestTitle: m.title, name: m.name, drawLabel: m.label });
  return (p: { title: SQL; name: SQL; label: SQL }): SqlEmail => ({
    ...sqlEmailFrom(rendered, [
      { marker: m.title, value: p.title },
      { marker: `Hi ${m.name},`, value: sqlHello(p.name) },
      { marker: m.label, value: p.label },
    ]),
    vars: { name: sqlNameVar(p.name), contest: p.title, reward: p.label },
  });
}
