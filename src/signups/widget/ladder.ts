/**
 * The reward ladder: every reward of the contest with its threshold, the unlocked ones with their
 * code (a reward this browser shows unlocked for the first time is highlighted once), a progress
 * bar to the next. Without the list (its request failed): what /me says.
 */
import { type Me, missingOf, type NextReward, type Reward, type Unlocked } from './api.js';
import { copyText, el, put } from './dom.js';
import { firstTime } from './storage.js';
import type { View } from './view.js';

export async function fillLadder(v: View, box: HTMLElement, me: Me, gen: number) {
  const list = await v.api<Reward[]>('GET', `${v.path}/rewards`).catch(() => null);
  if (gen !== v.generation) return;
  if (!list) return box.replaceChildren(...rewardsOf(v, me));
  if (!list.length) return;
  const unlocked = new Map(me.rewards.unlocked.map((u) => [u.rewardId, u]));
  const next = me.rewards.next;
  const items = list.map((r) => {
    const count = r.referralsRequired ?? r.pointsRequired ?? 0;
    const what = v.t(r.referralsRequired !== null ? 'ladderReferrals' : 'ladderPoints', { count }, 'count');
    const li = el('li', {}, el('strong', {}, r.name), ` · ${what}`);
    const u = unlocked.get(r.id);
    if (u) {
      // the moment: highlighted once (an animation only without prefers-reduced-motion: the
      // stylesheet's media query)
      li.classList.add('unlocked');
      if (firstTime(`ce-unlocked:${v.contest}:${r.id}`)) li.classList.add('fresh');
      put(li, ` · ${v.t('ladderUnlocked')}`);
      if (r.description) put(li, ' ', el('span', { class: 'desc' }, r.description));
      if (u.code !== null) {
        const code = u.code;
        const said = el('span', { class: 'note', role: 'status' });
        const copy = el('button', { type: 'button', class: 'link' }, v.t('copyCode'));
        copy.addEventListener('click', () => void copyText(code, said, v.t('codeCopied')));
        put(li, ' ', el('code', {}, v.t('rewardCode', { code })), ' ', copy, ' ', said);
      } else if (u.waitingForCode) put(li, ` · ${v.t('rewardWaiting')}`);
    } else if (next?.rewardId === r.id) {
      const value = Math.max(0, count - missingOf(next));
      put(
        li,
        el('progress', {
          max: String(count),
          value: String(value),
          'aria-label': v.t('ladderProgress', { reward: r.name }),
        }),
        el('span', { class: 'note' }, ` ${nextLine(v, next)}`),
      );
    }
    return li;
  });
  box.replaceChildren(el('h3', {}, v.t('ladderTitle')), el('ol', { class: 'ladder' }, ...items));
}

/** What the entry unlocked (with its codes) and what it is closest to. */
function rewardsOf(v: View, me: Me): HTMLElement[] {
  const out: HTMLElement[] = [];
  const { unlocked, next } = me.rewards;
  if (unlocked.length) {
    out.push(
      el('h3', {}, v.t('rewardsTitle')),
      el('ul', { class: 'rewards' }, ...unlocked.map((r) => rewardLine(v, r))),
    );
  }
  if (next) out.push(el('p', { class: 'next' }, nextLine(v, next)));
  return out;
}

/** "N more … to unlock <reward>": how far the visitor is from the reward closest to them. */
function nextLine(v: View, next: NextReward): string {
  const line = next.referralsMissing !== null ? 'nextReferrals' : 'nextPoints';
  return v.t(line, { missing: missingOf(next), reward: next.name }, 'missing');
}

function rewardLine(v: View, r: Unlocked): HTMLElement {
  if (r.code !== null) return el('li', {}, `${r.name}: `, el('code', {}, v.t('rewardCode', { code: r.code })));
  return el('li', {}, r.waitingForCode ? `${r.name}: ${v.t('rewardWaiting')}` : r.name);
}
