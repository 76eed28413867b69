/**
 * <contest-signup contest="…" api-key="pk_…">: a contest's sign-up form on any page, then the
 * visitor's own place: position of total, points, referrals and their share link. Talks to the
 * API with the team's public key (the sign-up) and the visitor's entry token (their entry), which
 * it keeps in localStorage per contest and picks up from a `#ce-entry=` link. Everything renders
 * in a shadow root with a constructable stylesheet: no inline script or style, so a strict CSP
 * needs nothing but the API's origin in connect-src (and Turnstile's, when the contest uses it).
 */
import { CSS } from './styles.js';
import { fill, type Strings, stringsFrom } from './strings.js';

interface Config {
  contestId: string;
  title: string;
  description: string | null;
  publicSignup: boolean;
  consentText: string | null;
  botCheck: 'off' | 'turnstile';
  turnstileSiteKey: string | null;
}
interface Me {
  position: number | null;
  total: number;
  points: number;
  referralsCount: number;
  referralCode: string;
  confirmed: boolean;
  admittedAt: string | null;
  rewards: {
    unlocked: { name: string; code: string | null; waitingForCode: boolean }[];
    next: { name: string; referralsMissing: number | null; pointsMissing: number | null } | null;
  };
}
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let defaultApiBase = '';
export const setDefaultApiBase = (base: string) => {
  defaultApiBase = base;
};

const TURNSTILE_JS = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
const storageKey = (contest: string) => `ce-entry:${contest}`;

/** the `#ce-entry=et_…` of a link from an email, once (the fragment is then taken off the address bar) */
function tokenFromLink(): string | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('ce-entry');
  if (!token) return null;
  params.delete('ce-entry');
  const rest = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return /^et_[A-Za-z0-9]{40}$/.test(token) ? token : null;
}

export class ContestSignup extends HTMLElement {
  static observedAttributes = ['contest', 'api-key', 'api-base', 'strings', 'lang'];
  private root: ShadowRoot;
  private box: HTMLElement;
  private s: Strings = stringsFrom(null);
  private config: Config | null = null;
  private turnstileToken: string | null = null;
  private generation = 0;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    this.root.adoptedStyleSheets = [sheet];
    this.box = el('div', { class: 'cs' });
    this.root.appendChild(this.box);
  }

  connectedCallback() {
    void this.load();
  }

  attributeChangedCallback() {
    if (this.isConnected) void this.load();
  }

  private get contest() {
    return this.getAttribute('contest') ?? '';
  }
  private get base() {
    return (this.getAttribute('api-base') ?? defaultApiBase).replace(/\/+$/, '');
  }
  private get pageLang() {
    return this.getAttribute('lang') || document.documentElement.lang || undefined;
  }

  private async api<T>(method: string, path: string, opts: { body?: unknown; token?: string } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    else headers['x-api-key'] = this.getAttribute('api-key') ?? '';
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const json = (await res.json().catch(() => null)) as { data?: T; error?: string } | null;
    if (!res.ok) throw new ApiError(res.status, json?.error ?? '');
    return json!.data as T;
  }

  private async load() {
    const gen = ++this.generation;
    this.s = stringsFrom(this.getAttribute('strings'));
    if (!/^pk_/.test(this.getAttribute('api-key') ?? '')) return this.fatal(this.s.noKey);
    try {
      const config = await this.api<Config>('GET', `/api/v1/contests/${encodeURIComponent(this.contest)}/signup`);
      if (gen !== this.generation) return;
      this.config = config;
    } catch {
      if (gen === this.generation) this.fatal(this.s.error);
      return;
    }
    const fromLink = tokenFromLink();
    if (fromLink) this.remember(fromLink);
    const token = fromLink ?? this.stored();
    if (token) return this.showEntry(token, gen);
    this.showForm();
  }

  private stored(): string | null {
    try {
      return localStorage.getItem(storageKey(this.contest));
    } catch {
      return null;
    }
  }
  private remember(token: string | null) {
    try {
      if (token) localStorage.setItem(storageKey(this.contest), token);
      else localStorage.removeItem(storageKey(this.contest));
    } catch {
      /* storage refused (private mode): the visitor's page lasts this visit */
    }
  }

  private header(): HTMLElement[] {
    const c = this.config!;
    const h = el('h2', { tabindex: '-1' }, c.title);
    return c.description ? [h, el('p', { class: 'desc' }, c.description)] : [h];
  }

  private fatal(message: string) {
    this.box.replaceChildren(el('p', { class: 'msg err', role: 'alert' }, message));
  }

  private showForm(notice?: string) {
    const c = this.config!;
    if (!c.publicSignup) {
      this.box.replaceChildren(...this.header(), el('p', { class: 'msg' }, this.s.closed));
      return;
    }
    const email = el('input', {
      id: 'cs-email',
      type: 'email',
      name: 'email',
      autocomplete: 'email',
      required: '',
    }) as HTMLInputElement;
    const name = el('input', { id: 'cs-name', type: 'text', name: 'name', autocomplete: 'name' }) as HTMLInputElement;
    const consent = el('input', { id: 'cs-consent', type: 'checkbox', name: 'consent' }) as HTMLInputElement;
    const msg = el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' }, notice ?? '');
    const submit = el('button', { type: 'submit' }, this.s.submit);
    const bot = el('div', { class: 'bot' });
    const form = el(
      'form',
      { novalidate: '' },
      el('label', { for: 'cs-email' }, this.s.email),
      email,
      el('label', { for: 'cs-name' }, this.s.name),
      name,
      ...(c.consentText
        ? [el('label', { class: 'consent', for: 'cs-consent' }, consent, el('span', {}, c.consentText))]
        : []),
      bot,
      submit,
      msg,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit({ email, name, consent, submit, msg });
    });
    this.box.replaceChildren(...this.header(), form);
    if (c.botCheck === 'turnstile' && c.turnstileSiteKey) this.renderTurnstile(bot, c.turnstileSiteKey);
  }

  private renderTurnstile(container: HTMLElement, sitekey: string) {
    type T = { render(el: HTMLElement, o: Record<string, unknown>): string };
    const w = window as unknown as { turnstile?: T };
    const render = () =>
      w.turnstile?.render(container, {
        sitekey,
        callback: (t: string) => {
          this.turnstileToken = t;
        },
        'expired-callback': () => {
          this.turnstileToken = null;
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

  private async submit(f: {
    email: HTMLInputElement;
    name: HTMLInputElement;
    consent: HTMLInputElement;
    submit: HTMLElement;
    msg: HTMLElement;
  }) {
    if (f.submit.getAttribute('aria-disabled') === 'true') return;
    const say = (text: string, error = false) => {
      f.msg.textContent = text;
      f.msg.className = error ? 'msg err' : 'msg';
      f.msg.setAttribute('role', error ? 'alert' : 'status');
    };
    const email = f.email.value.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      say(this.s.invalidEmail, true);
      f.email.setAttribute('aria-invalid', 'true');
      f.email.focus();
      return;
    }
    if (this.config!.consentText && !f.consent.checked) {
      say(this.s.consentRequired, true);
      f.consent.focus();
      return;
    }
    f.submit.setAttribute('aria-disabled', 'true');
    say(this.s.joining);
    const ref = new URLSearchParams(location.search).get('ref');
    try {
      const created = await this.api<{ entryToken?: string; confirmationRequired?: boolean; alreadyExists?: boolean }>(
        'POST',
        `/api/v1/contests/${encodeURIComponent(this.contest)}/signup`,
        {
          body: {
            email,
            ...(f.name.value.trim() ? { name: f.name.value.trim() } : {}),
            ...(ref ? { referralCode: ref } : {}),
            ...(this.config!.consentText ? { consent: true } : {}),
            ...(this.turnstileToken ? { turnstileToken: this.turnstileToken } : {}),
          },
        },
      );
      if (created.alreadyExists) return this.showForm(this.s.already);
      this.remember(created.entryToken!);
      await this.showEntry(created.entryToken!, this.generation);
      (this.root.querySelector('h2') as HTMLElement | null)?.focus();
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(0, '');
      f.submit.removeAttribute('aria-disabled');
      const known: Record<string, keyof Strings> = {
        'consent is required': 'consentRequired',
        'Invalid email': 'invalidEmail',
        'Bot check failed': 'botCheck',
        'Sign-ups with a public key are off for this contest': 'closed',
      };
      const key: keyof Strings =
        known[err.message] ?? (err.status === 429 ? 'tooMany' : err.status === 503 ? 'unavailable' : 'error');
      say(this.s[key], true);
    }
  }

  private async showEntry(token: string, gen: number) {
    let me: Me;
    try {
      me = await this.api<Me>('GET', '/api/v1/me', { token });
    } catch (e) {
      if (gen !== this.generation) return;
      if (e instanceof ApiError && e.status === 401) {
        this.remember(null);
        return this.showForm();
      }
      return this.fatal(this.s.error);
    }
    if (gen !== this.generation) return;
    const leave = el('button', { type: 'button', class: 'link' }, this.s.leave);
    leave.addEventListener('click', () => {
      this.remember(null);
      this.showForm();
    });
    if (!me.confirmed) {
      this.box.replaceChildren(...this.header(), el('p', { class: 'msg', role: 'status' }, this.s.checkInbox), leave);
      return;
    }
    const lang = this.pageLang;
    const url = new URL(location.href);
    url.hash = '';
    url.searchParams.set('ref', me.referralCode);
    const link = url.toString();
    const linkInput = el('input', { id: 'cs-link', type: 'text', readonly: '', value: link }) as HTMLInputElement;
    const copy = el('button', { type: 'button' }, this.s.copy);
    const copied = el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' });
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(link);
      } catch {
        linkInput.select();
      }
      copied.textContent = this.s.copied;
    });
    const actions: HTMLElement[] = [linkInput, copy];
    if (typeof navigator.share === 'function') {
      const share = el('button', { type: 'button' }, this.s.share);
      share.addEventListener(
        'click',
        () => void navigator.share({ url: link, title: this.config!.title }).catch(() => {}),
      );
      actions.push(share);
    }
    this.box.replaceChildren(
      ...this.header(),
      el(
        'p',
        { class: 'big' },
        me.admittedAt !== null
          ? this.s.admitted
          : me.position === null
            ? this.s.notCounted
            : fill(this.s.position, { position: me.position, total: me.total }, lang),
      ),
      el('p', {}, fill(this.s.points, { points: me.points }, lang)),
      el('p', {}, fill(this.s.referrals, { referrals: me.referralsCount }, lang)),
      ...this.rewards(me, lang),
      el('label', { for: 'cs-link' }, this.s.shareTitle),
      el('div', { class: 'share' }, ...actions),
      copied,
      leave,
    );
  }

  /** What the entry unlocked (with its codes) and what it is closest to. */
  private rewards(me: Me, lang: string | undefined): HTMLElement[] {
    const out: HTMLElement[] = [];
    const { unlocked, next } = me.rewards;
    if (unlocked.length) {
      out.push(
        el('h3', {}, this.s.rewardsTitle),
        el('ul', { class: 'rewards' }, ...unlocked.map((r) => rewardLine(this.s, r, lang))),
      );
    }
    if (next) {
      const missing = next.referralsMissing ?? next.pointsMissing ?? 0;
      const line = next.referralsMissing !== null ? this.s.nextReferrals : this.s.nextPoints;
      out.push(el('p', { class: 'next' }, fill(line, { missing, reward: next.name }, lang)));
    }
    return out;
  }
}

function rewardLine(s: Strings, r: Me['rewards']['unlocked'][number], lang: string | undefined): HTMLElement {
  if (r.code !== null) return el('li', {}, `${r.name}: `, el('code', {}, fill(s.rewardCode, { code: r.code }, lang)));
  return el('li', {}, r.waitingForCode ? `${r.name}: ${s.rewardWaiting}` : r.name);
}

function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'value') (e as HTMLInputElement).value = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}
