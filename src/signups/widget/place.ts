/** The visitor's place: position of total (or admitted), how many count after them, their points and friends. */
import type { Me } from './api.js';
import { el } from './dom.js';
import type { View } from './view.js';

export function placeOf(v: View, me: Me): HTMLElement[] {
  // how many count after the visitor (a waitlist's "people behind you"), once they have a place
  const behind = me.position === null || me.admittedAt !== null ? 0 : Math.max(0, me.total - me.position);
  return [
    el(
      'p',
      { class: 'big' },
      me.admittedAt !== null
        ? v.t('admitted')
        : me.position === null
          ? v.t('notCounted')
          : v.t('position', { position: me.position, total: me.total }, 'total'),
    ),
    ...(behind > 0 ? [el('p', { class: 'behind' }, v.t('behind', { behind }, 'behind'))] : []),
    // points and friends as tiles; one count of friends with the ladder's (those who count), the
    // ones still to confirm said apart
    el(
      'dl',
      { class: 'tiles' },
      el('div', { class: 'tile' }, el('dt', {}, v.t('points')), el('dd', {}, v.num(me.points))),
      el('div', { class: 'tile' }, el('dt', {}, v.t('referrals')), el('dd', {}, v.num(me.confirmedReferrals))),
    ),
    ...(me.pendingReferrals > 0
      ? [el('p', { class: 'note' }, v.t('pendingFriends', { pending: me.pendingReferrals }, 'pending'))]
      : []),
  ];
}
