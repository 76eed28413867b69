/** `leaderboard="N"`: the top N (names masked), and the visitor's own row when outside them. */
import type { Me, Row } from './api.js';
import { el } from './dom.js';
import type { View } from './view.js';

export async function fillBoard(v: View, box: HTMLElement, me: Me, gen: number, n: number) {
  if (!Number.isInteger(n) || n < 1) return;
  const rows = await v.api<Row[]>('GET', `${v.path}/leaderboard?limit=${Math.min(n, 100)}`).catch(() => null);
  if (gen !== v.generation || !rows) return;
  const tr = (cells: (string | number)[], mine = false) =>
    el(
      'tr',
      mine ? { class: 'me' } : {},
      ...cells.map((c, i) => el(i ? 'td' : 'th', i ? {} : { scope: 'row' }, v.num(c))),
    );
  // the leaderboard's rows name the entry `id`, /me names it `entryId`
  const body = rows.map((r) =>
    tr(
      [r.rank, r.id === me.entryId ? v.t('boardYou') : (r.name ?? '—'), r.points, r.referralsCount],
      r.id === me.entryId,
    ),
  );
  if (me.position !== null && !rows.some((r) => r.id === me.entryId))
    body.push(tr([me.position, v.t('boardYou'), me.points, me.referralsCount], true));
  const heads = (['boardRank', 'boardName', 'boardPoints', 'boardReferrals'] as const).map((k) =>
    el('th', { scope: 'col' }, v.t(k)),
  );
  box.replaceChildren(
    el(
      'table',
      { class: 'board' },
      el('caption', {}, v.t('boardTitle')),
      el('thead', {}, el('tr', {}, ...heads)),
      el('tbody', {}, ...body),
    ),
  );
}
