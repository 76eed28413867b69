/**
 * The sign-up form: email, name, the contest's own fields (fields.ts), its consent (when it asks
 * for one), Turnstile (when the contest uses it), and what the API answers said in the visitor's
 * words.
 */
import { ApiError, type SignedUp } from './api.js';
import { el } from './dom.js';
import { type CustomFields, customFields } from './fields.js';
import { refOfPage, returnUrlOfPage, viaOfPage } from './sharing.js';
import type { Strings } from './strings.js';
import type { View } from './view.js';

const TURNSTILE_JS = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

/** the API's messages the widget says in its own (translatable) words */
const KNOWN: Record<string, keyof Strings> = {
  'consent is required': 'consentRequired',
  'Invalid email': 'invalidEmail',
  'Bot check failed': 'botCheck',
  'Sign-ups with a public key are off for this contest': 'closed',
};

interface Fields {
  email: HTMLInputElement;
  name: HTMLInputElement;
  consent: HTMLInputElement;
  custom: CustomFields;
  submit: HTMLElement;
  msg: HTMLElement;
}

export interface FormOutcome {
  /** signed up: the new entry's token */
  signedUp(token: string): Promise<void>;
  /** the email was entered before: the form again, saying so */
  already(notice: string): void;
}

/** The form, and what to run once it is in the page (Turnstile renders into it). */
export function signupForm(v: View, notice: string | undefined, outcome: FormOutcome) {
  const c = v.config;
  const f: Fields = {
    email: el('input', {
      id: 'cs-email',
      type: 'email',
      name: 'email',
      autocomplete: 'email',
      required: '',
    }) as HTMLInputElement,
    name: el('input', { id: 'cs-name', type: 'text', name: 'name', autocomplete: 'name' }) as HTMLInputElement,
    consent: el('input', { id: 'cs-consent', type: 'checkbox', name: 'consent' }) as HTMLInputElement,
    custom: customFields(v, c.signupFields ?? []),
    submit: el('button', { type: 'submit' }, v.t('submit')),
    msg: el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' }, notice ?? ''),
  };
  const bot = el('div', { class: 'bot' });
  const form = el(
    'form',
    { novalidate: '' },
    el('label', { for: 'cs-email' }, v.t('email')),
    f.email,
    el('label', { for: 'cs-name' }, v.t('name')),
    f.name,
    ...f.custom.nodes,
    ...(c.consentText
      ? [el('label', { class: 'consent', for: 'cs-consent' }, f.consent, el('span', {}, c.consentText))]
      : []),
    bot,
    f.submit,
    f.msg,
  );
  const turnstile = { token: null as string | null };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit(v, f, turnstile.token, outcome);
  });
  const mounted = () => {
    if (c.botCheck === 'turnstile' && c.turnstileSiteKey) renderTurnstile(bot, c.turnstileSiteKey, turnstile);
  };
  return { form, mounted };
}

function renderTurnstile(container: HTMLElement, sitekey: string, state: { token: string | null }) {
  type T = { render(el: HTMLElement, o: Record<string, unknown>): string };
  const w = window as unknown as { turnstile?: T };
  const render = () =>
    w.turnstile?.render(container, {
      sitekey,
      callback: (t: string) => {
        state.token = t;
      },
      'expired-callback': () => {
        state.token = null;
      },
    });
  if (w.turnstile) return void render();
  let script = document.querySelector<HTMLScriptElement>(`script[src="${TURNSTILE_JS}"]`);
  if (!script) {
    script = el('script', { src: TURNSTILE_JS, async: '' }) as HTMLScriptElement;
    document.head.appendChild(script);
  }
  script.addEventListener('load', render);
}

async function submit(v: View, f: Fields, turnstileToken: string | null, outcome: FormOutcome) {
  if (f.submit.getAttribute('aria-disabled') === 'true') return;
  const say = (text: string, error = false) => {
    f.msg.textContent = text;
    f.msg.className = error ? 'msg err' : 'msg';
    f.msg.setAttribute('role', error ? 'alert' : 'status');
  };
  const c = v.config;
  const email = f.email.value.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    say(v.t('invalidEmail'), true);
    f.email.setAttribute('aria-invalid', 'true');
    f.email.focus();
    return;
  }
  const problem = f.custom.problem();
  if (problem) {
    say(problem.message, true);
    problem.input.focus();
    return;
  }
  if (c.consentText && !f.consent.checked) {
    say(v.t('consentRequired'), true);
    f.consent.focus();
    return;
  }
  f.submit.setAttribute('aria-disabled', 'true');
  say(v.t('joining'));
  const ref = refOfPage();
  const via = viaOfPage();
  const name = f.name.value.trim();
  const returnUrl = returnUrlOfPage();
  const custom = f.custom.values();
  try {
    const created = await v.api<SignedUp>('POST', `${v.path}/signup`, {
      body: {
        email,
        ...(name ? { name } : {}),
        ...(custom ? { customFields: custom } : {}),
        ...(ref ? { referralCode: ref } : {}),
        ...(via ? { channel: via } : {}),
        ...(c.consentText ? { consent: true } : {}),
        ...(turnstileToken ? { turnstileToken } : {}),
        // the emails lead back here when this site is one of the contest's allowedOrigins
        ...(returnUrl ? { returnUrl } : {}),
      },
    });
    if ('alreadyExists' in created)
      return outcome.already(v.t(!c.sendsLink ? 'alreadyNoLink' : created.linkSent ? 'already' : 'alreadyRecent'));
    await outcome.signedUp(created.entryToken);
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError(0, '');
    f.submit.removeAttribute('aria-disabled');
    const field = err.status === 400 ? f.custom.named(err.message) : null;
    if (field) {
      say(field.message, true);
      field.input.focus();
      return;
    }
    const key = KNOWN[err.message] ?? (err.status === 429 ? 'tooMany' : err.status === 503 ? 'unavailable' : 'error');
    say(v.t(key), true);
  }
}
