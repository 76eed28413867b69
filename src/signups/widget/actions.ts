/**
 * The contest's bonus actions in their order, each done or not: `auto` completes on a click,
 * `click` opens its address in a new tab and completes, `manual` asks for the answer or a link
 * and waits for the team's review. Points show at once (the view is read again).
 */
import { COLOUR_RRGGBB } from '../../lib/share-channels.js';
import type { Action, Me } from './api.js';
import { el, put } from './dom.js';
import type { View } from './view.js';

export async function fillActions(v: View, box: HTMLElement, me: Me, token: string, gen: number) {
  const path = `/api/v1/entries/${me.entryId}/bonus-actions`;
  const got = await v.api<{ actions: Action[] }>('GET', path, { token }).catch(() => null);
  if (gen !== v.generation || !got?.actions.length) return;
  const complete = async (a: Action, body: Record<string, string> = {}) => {
    await v.api('POST', `${path}/${a.id}/complete`, { token, body }).catch(() => null);
    if (gen === v.generation) v.refresh(token);
  };
  const items = got.actions.map((a) => {
    const head = el(
      'span',
      { class: 'act' },
      el('span', { class: 'dot', 'aria-hidden': 'true' }),
      a.description || a.action,
      ` ${v.t('actionPoints', { points: a.points }, 'points')}`,
    );
    const dot = head.firstChild as HTMLElement;
    if (COLOUR_RRGGBB.test(a.iconColor)) dot.style.background = a.iconColor;
    const li = el('li', {}, head);
    // a manual completion waits for the team's review (the list counts it as completed)
    if (a.completionStatus === 'pending') put(li, el('span', { class: 'note' }, v.t('actionWaiting')));
    else if (a.completed) put(li, el('span', { class: 'done' }, v.t('actionDone')));
    else if (a.confirmationType === 'manual') put(li, answerForm(v, a, complete));
    else if (a.confirmationType === 'click' && a.destinationUrl) {
      const go = el(
        'a',
        { class: 'btn', href: a.destinationUrl, target: '_blank', rel: 'noopener noreferrer' },
        v.t('actionVisit'),
      );
      go.addEventListener('click', () => void complete(a));
      put(li, go);
    } else {
      const b = el('button', { type: 'button' }, v.t('actionDo'));
      b.addEventListener('click', () => void complete(a));
      put(li, b);
    }
    return li;
  });
  box.replaceChildren(el('h3', {}, v.t('actionsTitle')), el('ul', { class: 'actions' }, ...items));
}

/** a manual action's answer (or a link, sent as proof): a form of its own, so Enter sends it */
function answerForm(v: View, a: Action, complete: (a: Action, body: Record<string, string>) => Promise<void>) {
  const id = `cs-act-${a.id}`;
  const input = el('input', { id, type: 'text', maxlength: '2000' }) as HTMLInputElement;
  const form = el(
    'form',
    { class: 'answer' },
    el('label', { for: id }, v.t('actionAnswer')),
    input,
    el('button', { type: 'submit' }, v.t('actionSend')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const answer = input.value.trim();
    if (answer) void complete(a, /^https?:\/\//.test(answer) ? { proof: answer } : { answer });
  });
  return form;
}
