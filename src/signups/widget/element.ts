/**
 * <contest-signup contest="…">: a contest's sign-up form on any page, then the visitor's own
 * place: position of total, points, referrals and their share link. Talks to the API without a
 * key (a contest that takes public sign-ups answers its visitors), or with the team's public key
 * (`api-key="pk_…"`), and with the visitor's entry token for their entry, which
 * it keeps in localStorage per contest and picks up from a `#ce-entry=` link. Everything renders
 * in a shadow root with a constructable stylesheet: no inline script or style, so a strict CSP
 * needs nothing but the API's origin in connect-src (and Turnstile's, when the contest uses it).
 */

import {
  COLOUR_RRGGBB,
  SHARE_CHANNELS,
  type ShareChannel,
  type Theme,
  textOnAccent,
  themeSlots,
  themeVariables,
} from '../../lib/share-channels.js';
import { CHANNEL_LOOKS, iconOf } from './icons.js';
import { fill, type Strings, stringsFrom } from './strings.js';
import { CSS } from './styles.js';

interface Config {
  contestId: string;
  title: string;
  description: string | null;
  publicSignup: boolean;
  consentText: string | null;
  botCheck: 'off' | 'turnstile';
  turnstileSiteKey: string | null;
  /** an email already entered is sent a link to its page (the contest has a page to send it to) */
  sendsLink: boolean;
  shareMessage: string;
  shareChannels: string[];
  theme: Theme;
}
interface Me {
  entryId: string;
  email: string | null;
  position: number | null;
  total: number;
  points: number;
  referralsCount: number;
  /** friends who count (the rewards' rule), and those who may still (not confirmed or not reviewed yet) */
  confirmedReferrals: number;
  pendingReferrals: number;
  referralCode: string;
  confirmed: boolean;
  admittedAt: string | null;
  rewards: {
    unlocked: { rewardId: string; name: string; code: string | null; waitingForCode: boolean }[];
    next: { rewardId: string; name: string; referralsMissing: number | null; pointsMissing: number | null } | null;
  };
}
type NextReward = NonNullable<Me['rewards']['next']>;
/** how many friends or points the visitor still needs for their next reward */
const missingOf = (next: NextReward) => next.referralsMissing ?? next.pointsMissing ?? 0;
interface Reward {
  id: string;
  name: string;
  description: string | null;
  referralsRequired: number | null;
  pointsRequired: number | null;
}
interface Action {
  id: string;
  action: string;
  description: string;
  iconColor: string;
  points: number;
  confirmationType: 'auto' | 'click' | 'manual';
  destinationUrl: string | null;
  completed: boolean;
  completionStatus: string | null;
}
interface Row {
  rank: number;
  /** the entry's id (the leaderboard's rows name it `id`, /me names it `entryId`) */
  id: string;
  name: string | null;
  points: number;
  referralsCount: number;
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
  static observedAttributes = ['contest', 'api-key', 'api-base', 'strings', 'lang', 'no-header', 'leaderboard'];
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
    window.addEventListener('storage', this.onStorage);
    window.addEventListener('hashchange', this.onHash);
    void this.load();
  }

  disconnectedCallback() {
    window.removeEventListener('storage', this.onStorage);
    window.removeEventListener('hashchange', this.onHash);
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
  /** a string of the widget's, with its placeholders filled (plural forms chosen by `count`) */
  private t(key: keyof Strings, values: Record<string, number | string> = {}, count?: string): string {
    return fill(this.s[key], values, this.pageLang, count);
  }

  private async api<T>(method: string, path: string, opts: { body?: unknown; token?: string } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    const key = this.getAttribute('api-key');
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    // no key: a contest that takes public sign-ups answers its visitors without one
    else if (key) headers['x-api-key'] = key;
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
    const key = this.getAttribute('api-key');
    if (key !== null && key !== '' && !/^pk_/.test(key)) return this.fatal(this.t('noKey'));
    try {
      const config = await this.api<Config>('GET', `/api/v1/contests/${encodeURIComponent(this.contest)}/signup`);
      if (gen !== this.generation) return;
      this.config = config;
      this.applyTheme(config.theme);
    } catch {
      if (gen === this.generation) this.fatal(this.t('error'));
      return;
    }
    this.countVisit();
    const fromLink = tokenFromLink();
    const stored = this.stored();
    if (fromLink && stored && fromLink !== stored) return this.offerSwitch(fromLink, stored, gen);
    if (fromLink) this.remember(fromLink);
    const token = fromLink ?? stored;
    if (token) return this.showEntry(token, gen);
    this.showForm();
  }

  /**
   * A `#ce-entry=` link for another entry than the one this browser keeps: whose entry it opens
   * (its email masked), and a switch only when the visitor says so. A link of the same entry (a
   * fresh token after the confirmation), or one whose stored token ended, is taken at once.
   */
  private async offerSwitch(fromLink: string, stored: string, gen: number) {
    const read = (token: string) => this.api<Me>('GET', '/api/v1/me', { token }).catch(() => null);
    const [linked, mine] = await Promise.all([read(fromLink), read(stored)]);
    if (gen !== this.generation) return;
    if (!linked) return this.showEntry(stored, gen);
    if (!mine || mine.entryId === linked.entryId) {
      this.remember(fromLink);
      return this.showEntry(fromLink, gen);
    }
    const yes = el('button', { type: 'button' }, this.t('switchYes'));
    const no = el('button', { type: 'button', class: 'link' }, this.t('switchNo'));
    yes.addEventListener('click', () => {
      this.remember(fromLink);
      void this.showEntry(fromLink, this.generation);
    });
    no.addEventListener('click', () => void this.showEntry(stored, this.generation));
    this.box.replaceChildren(
      ...this.header(),
      el('p', { class: 'msg', role: 'status' }, this.t('switchPrompt', { email: maskEmail(linked.email ?? '') })),
      el('div', { class: 'share' }, yes, no),
    );
    yes.focus();
  }

  /**
   * A page opened from a share link (`?ref=<code>&via=<channel>`): the visit is counted once per
   * browser, contest and code (remembered in localStorage); a failure is not retried.
   */
  private countVisit() {
    const ref = refOfPage();
    if (!ref) return;
    const seen = `ce-visit:${this.contest}:${ref}`;
    try {
      if (localStorage.getItem(seen)) return;
      localStorage.setItem(seen, '1');
    } catch {
      return; // no storage: counting on every load would overcount
    }
    const via = viaOfPage();
    void this.api('POST', `/api/v1/contests/${encodeURIComponent(this.contest)}/visits`, {
      body: { referralCode: ref, ...(via ? { channel: via } : {}) },
    }).catch(() => {});
  }

  /** A `#ce-entry=` link opened in this tab while it shows the page (only the fragment changed: no reload). */
  private readonly onHash = () => {
    if (new URLSearchParams(location.hash.slice(1)).has('ce-entry')) void this.load();
  };

  /** Another tab of this page changed the stored token (a confirmation's fresh one): follow it. */
  private readonly onStorage = (e: StorageEvent) => {
    if (e.key !== storageKey(this.contest) || !this.config) return;
    if (e.newValue) void this.showEntry(e.newValue, ++this.generation);
    else this.showForm();
  };

  /** Whether this browser shows the reward `rewardId` unlocked for the first time (then remembered). */
  private firstSight(rewardId: string): boolean {
    const key = `ce-unlocked:${this.contest}:${rewardId}`;
    try {
      if (localStorage.getItem(key)) return false;
      localStorage.setItem(key, '1');
      return true;
    } catch {
      return false;
    }
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
    // a page that shows the contest's title itself (the hosted page): the widget does not repeat it
    if (this.hasAttribute('no-header')) return [];
    const h = el('h2', { tabindex: '-1' }, c.title);
    return c.description ? [h, el('p', { class: 'desc' }, c.description)] : [h];
  }

  private fatal(message: string) {
    this.box.replaceChildren(el('p', { class: 'msg err', role: 'alert' }, message));
  }

  private showForm(notice?: string) {
    const c = this.config!;
    if (!c.publicSignup) {
      this.box.replaceChildren(...this.header(), el('p', { class: 'msg' }, this.t('closed')));
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
    const submit = el('button', { type: 'submit' }, this.t('submit'));
    const bot = el('div', { class: 'bot' });
    const form = el(
      'form',
      { novalidate: '' },
      el('label', { for: 'cs-email' }, this.t('email')),
      email,
      el('label', { for: 'cs-name' }, this.t('name')),
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
      say(this.t('invalidEmail'), true);
      f.email.setAttribute('aria-invalid', 'true');
      f.email.focus();
      return;
    }
    if (this.config!.consentText && !f.consent.checked) {
      say(this.t('consentRequired'), true);
      f.consent.focus();
      return;
    }
    f.submit.setAttribute('aria-disabled', 'true');
    say(this.t('joining'));
    const ref = refOfPage();
    const via = viaOfPage();
    try {
      const created = await this.api<{
        entryToken?: string;
        confirmationRequired?: boolean;
        alreadyExists?: boolean;
        linkSent?: boolean;
      }>('POST', `/api/v1/contests/${encodeURIComponent(this.contest)}/signup`, {
        body: {
          email,
          ...(f.name.value.trim() ? { name: f.name.value.trim() } : {}),
          ...(ref ? { referralCode: ref } : {}),
          ...(via ? { channel: via } : {}),
          ...(this.config!.consentText ? { consent: true } : {}),
          ...(this.turnstileToken ? { turnstileToken: this.turnstileToken } : {}),
        },
      });
      if (created.alreadyExists)
        return this.showForm(
          this.t(!this.config!.sendsLink ? 'alreadyNoLink' : created.linkSent ? 'already' : 'alreadyRecent'),
        );
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
      say(this.t(key), true);
    }
  }

  private async showEntry(token: string, gen: number) {
    let me: Me;
    try {
      me = await this.api<Me>('GET', '/api/v1/me', { token });
    } catch (e) {
      if (gen !== this.generation) return;
      if (e instanceof ApiError && e.status === 401) {
        // the token ended (the email was confirmed elsewhere, the entry was erased): say so, and
        // the form sends the "your link" email to whoever owns the address
        const ended = this.stored() === token;
        this.remember(null);
        return this.showForm(ended ? this.t('ended') : undefined);
      }
      return this.fatal(this.t('error'));
    }
    if (gen !== this.generation) return;
    const leave = el('button', { type: 'button', class: 'link' }, this.t('leave'));
    leave.addEventListener('click', () => {
      this.remember(null);
      this.showForm();
    });
    if (!me.confirmed) {
      // the link and the buttons at once, while the visitor is still here
      this.box.replaceChildren(
        ...this.header(),
        el('p', { class: 'msg', role: 'status' }, this.t('checkInbox')),
        ...this.shareSection(me, token),
        el('p', { class: 'note' }, this.t('friendsNote')),
        leave,
      );
      this.watchConfirmation(token, gen);
      return;
    }
    const ladder = el('div', { class: 'ladder-box' });
    const actions = el('div', { class: 'actions-box' });
    const board = el('div', { class: 'board-box' });
    // how many count after the visitor (a waitlist's "people behind you"), once they have a place
    const behind = me.position === null || me.admittedAt !== null ? 0 : Math.max(0, me.total - me.position);
    this.box.replaceChildren(
      ...this.header(),
      el(
        'p',
        { class: 'big' },
        me.admittedAt !== null
          ? this.t('admitted')
          : me.position === null
            ? this.t('notCounted')
            : this.t('position', { position: me.position, total: me.total }, 'total'),
      ),
      ...(behind > 0 ? [el('p', { class: 'behind' }, this.t('behind', { behind }, 'behind'))] : []),
      // points and friends as tiles; one count of friends with the ladder's (those who count), the
      // ones still to confirm said apart
      el(
        'dl',
        { class: 'tiles' },
        el('div', { class: 'tile' }, el('dt', {}, this.t('points')), el('dd', {}, this.num(me.points))),
        el('div', { class: 'tile' }, el('dt', {}, this.t('referrals')), el('dd', {}, this.num(me.confirmedReferrals))),
      ),
      ...(me.pendingReferrals > 0
        ? [el('p', { class: 'note' }, this.t('pendingFriends', { pending: me.pendingReferrals }, 'pending'))]
        : []),
      ...this.shareSection(me, token),
      ladder,
      actions,
      board,
      leave,
    );
    // what needs more reads fills in when they answer (the view shows at once)
    void this.fillLadder(ladder, me, gen);
    void this.fillActions(actions, me, token, gen);
    void this.fillBoard(board, me, gen);
  }

  /** Every reward with its threshold: the unlocked ones with their code, a progress bar to the next. */
  private async fillLadder(box: HTMLElement, me: Me, gen: number) {
    const list = await this.api<Reward[]>('GET', `/api/v1/contests/${encodeURIComponent(this.contest)}/rewards`).catch(
      () => null,
    );
    if (gen !== this.generation) return;
    // without the list (its request failed): what /me says, the codes won and the next reward
    if (!list) return box.replaceChildren(...this.rewards(me));
    if (!list.length) return;
    const unlocked = new Map(me.rewards.unlocked.map((u) => [u.rewardId, u]));
    const next = me.rewards.next;
    const items = list.map((r) => {
      const count = r.referralsRequired ?? r.pointsRequired ?? 0;
      const what = this.t(r.referralsRequired !== null ? 'ladderReferrals' : 'ladderPoints', { count }, 'count');
      const li = el('li', {}, el('strong', {}, r.name), ` · ${what}`);
      const u = unlocked.get(r.id);
      if (u) {
        // the moment: a reward this browser shows unlocked for the first time is highlighted once
        // (an animation only without prefers-reduced-motion: the stylesheet's media query)
        li.classList.add('unlocked');
        if (this.firstSight(r.id)) li.classList.add('fresh');
        put(li, ` · ${this.t('ladderUnlocked')}`);
        if (r.description) put(li, ' ', el('span', { class: 'desc' }, r.description));
        if (u.code !== null) {
          const code = u.code;
          const said = el('span', { class: 'note', role: 'status' });
          const copy = el('button', { type: 'button', class: 'link' }, this.t('copyCode'));
          copy.addEventListener('click', () => void copyText(code, said, this.t('codeCopied')));
          put(li, ' ', el('code', {}, this.t('rewardCode', { code })), ' ', copy, ' ', said);
        } else if (u.waitingForCode) put(li, ` · ${this.t('rewardWaiting')}`);
      } else if (next?.rewardId === r.id) {
        const value = Math.max(0, count - missingOf(next));
        put(
          li,
          el('progress', {
            max: String(count),
            value: String(value),
            'aria-label': this.t('ladderProgress', { reward: r.name }),
          }),
          el('span', { class: 'note' }, ` ${this.nextLine(next)}`),
        );
      }
      return li;
    });
    box.replaceChildren(el('h3', {}, this.t('ladderTitle')), el('ol', { class: 'ladder' }, ...items));
  }

  /**
   * The contest's bonus actions in their order, each done or not: `auto` completes on a click,
   * `click` opens its address in a new tab and completes, `manual` asks for the answer or a link
   * and waits for the team's review. Points show at once.
   */
  private async fillActions(box: HTMLElement, me: Me, token: string, gen: number) {
    const path = `/api/v1/entries/${me.entryId}/bonus-actions`;
    const got = await this.api<{ actions: Action[] }>('GET', path, { token }).catch(() => null);
    if (gen !== this.generation || !got?.actions.length) return;
    const complete = async (a: Action, body: Record<string, string> = {}) => {
      await this.api('POST', `${path}/${a.id}/complete`, { token, body }).catch(() => null);
      if (gen === this.generation) void this.showEntry(token, ++this.generation);
    };
    const items = got.actions.map((a) => {
      const head = el(
        'span',
        { class: 'act' },
        el('span', { class: 'dot', 'aria-hidden': 'true' }),
        a.description || a.action,
        ` ${this.t('actionPoints', { points: a.points }, 'points')}`,
      );
      const dot = head.firstChild as HTMLElement;
      if (COLOUR_RRGGBB.test(a.iconColor)) dot.style.background = a.iconColor;
      const li = el('li', {}, head);
      // a manual completion waits for the team's review (the list counts it as completed)
      if (a.completionStatus === 'pending') put(li, el('span', { class: 'note' }, this.t('actionWaiting')));
      else if (a.completed) put(li, el('span', { class: 'done' }, this.t('actionDone')));
      else if (a.confirmationType === 'manual') {
        const id = `cs-act-${a.id}`;
        const input = el('input', { id, type: 'text', maxlength: '2000' }) as HTMLInputElement;
        // a form of its own: Enter in the field sends it, like the button
        const form = el(
          'form',
          { class: 'answer' },
          el('label', { for: id }, this.t('actionAnswer')),
          input,
          el('button', { type: 'submit' }, this.t('actionSend')),
        );
        form.addEventListener('submit', (e) => {
          e.preventDefault();
          const v = input.value.trim();
          if (v) void complete(a, /^https?:\/\//.test(v) ? { proof: v } : { answer: v });
        });
        put(li, form);
      } else if (a.confirmationType === 'click' && a.destinationUrl) {
        const go = el(
          'a',
          { class: 'btn', href: a.destinationUrl, target: '_blank', rel: 'noopener noreferrer' },
          this.t('actionVisit'),
        );
        go.addEventListener('click', () => void complete(a));
        put(li, go);
      } else {
        const b = el('button', { type: 'button' }, this.t('actionDo'));
        b.addEventListener('click', () => void complete(a));
        put(li, b);
      }
      return li;
    });
    box.replaceChildren(el('h3', {}, this.t('actionsTitle')), el('ul', { class: 'actions' }, ...items));
  }

  /** `leaderboard="N"`: the top N (names masked), and the visitor's own row when outside them. */
  private async fillBoard(box: HTMLElement, me: Me, gen: number) {
    const n = Number(this.getAttribute('leaderboard'));
    if (!Number.isInteger(n) || n < 1) return;
    const rows = await this.api<Row[]>(
      'GET',
      `/api/v1/contests/${encodeURIComponent(this.contest)}/leaderboard?limit=${Math.min(n, 100)}`,
    ).catch(() => null);
    if (gen !== this.generation || !rows) return;
    const tr = (cells: (string | number)[], mine = false) =>
      el(
        'tr',
        mine ? { class: 'me' } : {},
        ...cells.map((c, i) => el(i ? 'td' : 'th', i ? {} : { scope: 'row' }, this.num(c))),
      );
    const body = rows.map((r) =>
      tr(
        [r.rank, r.id === me.entryId ? this.t('boardYou') : (r.name ?? '—'), r.points, r.referralsCount],
        r.id === me.entryId,
      ),
    );
    if (me.position !== null && !rows.some((r) => r.id === me.entryId))
      body.push(tr([me.position, this.t('boardYou'), me.points, me.referralsCount], true));
    box.replaceChildren(
      el(
        'table',
        { class: 'board' },
        el('caption', {}, this.t('boardTitle')),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...(['boardRank', 'boardName', 'boardPoints', 'boardReferrals'] as const).map((k) =>
              el('th', { scope: 'col' }, this.t(k)),
            ),
          ),
        ),
        el('tbody', {}, ...body),
      ),
    );
  }

  private num(v: string | number): string {
    return typeof v === 'number' ? fill('{n}', { n: v }, this.pageLang) : v;
  }

  /**
   * The visitor's link and a button per channel of the contest's `shareChannels`, in that order:
   * plain links to each network's share address (nothing is loaded from a network until the
   * visitor clicks), Copy (`copy`), the browser's share sheet (`native`, where the browser has
   * one). A channel not in the list has no button. Each click is counted (POST /api/v1/me/shares).
   */
  private shareSection(me: Me, token: string): HTMLElement[] {
    const c = this.config!;
    const count = (channel: string) =>
      void this.api('POST', '/api/v1/me/shares', { token, body: { channel } }).catch(() => {});
    const link = shareLink(me.referralCode, 'copy');
    const linkInput = el('input', { id: 'cs-link', type: 'text', readonly: '', value: link }) as HTMLInputElement;
    const copied = el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' });
    const buttons: HTMLElement[] = [];
    const phone = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
    for (const channel of c.shareChannels ?? []) {
      if (channel === 'copy') {
        const copy = el('button', { type: 'button', 'data-channel': 'copy' }, this.t('copy'));
        copy.addEventListener('click', () => {
          count('copy');
          void copyText(link, copied, this.t('copied'), linkInput);
        });
        buttons.push(copy);
        continue;
      }
      if (channel === 'native') {
        if (typeof navigator.share !== 'function') continue;
        const native = el('button', { type: 'button', 'data-channel': 'native' }, this.t('share'));
        native.addEventListener('click', () => {
          count('native');
          const url = shareLink(me.referralCode, 'native');
          void navigator.share({ url, text: message(c.shareMessage, url), title: c.title }).catch(() => {});
        });
        buttons.push(native);
        continue;
      }
      if (channel === 'sms' && !phone) continue;
      const key = `share${channel[0]!.toUpperCase()}${channel.slice(1)}` as keyof Strings;
      if (!(key in this.s)) continue;
      const url = shareUrl(channel, shareLink(me.referralCode, channel), c.shareMessage, c.title);
      const a = el(
        'a',
        { class: 'btn', href: url, target: '_blank', rel: 'noopener noreferrer', 'data-channel': channel },
        this.t(key),
      );
      // the network's icon and colour, its text white or black, whichever reads on it
      const look = CHANNEL_LOOKS[channel as ShareChannel];
      if (look) {
        a.insertBefore(iconOf(look), a.firstChild);
        a.style.setProperty('--cs-ch', look.colour);
        a.style.setProperty('--cs-ch-text', textOnAccent(look.colour));
      }
      a.addEventListener('click', () => count(channel));
      buttons.push(a);
    }
    return [
      el('label', { for: 'cs-link' }, this.t('shareTitle')),
      el('div', { class: 'share' }, linkInput),
      el('div', { class: 'share', role: 'group', 'aria-label': this.t('shareVia') }, ...buttons),
      copied,
    ];
  }

  /**
   * While the visitor's email is not confirmed and the page is visible: /me every 5 s at first,
   * less often as time goes (up to a minute), for 30 minutes. The confirmation opened in another
   * tab of this browser hands this one its fresh token (the storage event): the view turns to the
   * visitor's place. Opened on another device, it ends this tab's token: the poll sees it and the
   * view says so, with the form that emails a fresh link.
   */
  private watchConfirmation(token: string, gen: number) {
    const started = Date.now();
    let delay = 5000;
    const tick = async () => {
      if (gen !== this.generation || !this.isConnected || Date.now() - started > 30 * 60_000) return;
      if (document.visibilityState === 'visible') {
        const me = await this.api<Me>('GET', '/api/v1/me', { token }).catch((e: unknown) => e);
        if (gen !== this.generation) return;
        // confirmed: the place; the token ended (the email was confirmed on another device, which
        // ends the sign-up's token): the form says so and sends a fresh link to the mailbox
        if ((me as Me)?.confirmed || (me instanceof ApiError && me.status === 401))
          return void this.showEntry(token, ++this.generation);
        delay = Math.min(60_000, Math.round(delay * 1.3));
      }
      setTimeout(tick, delay);
    };
    setTimeout(tick, delay);
  }

  /** The contest's theme as the widget's defaults: a page's own CSS variables still win. */
  private applyTheme(theme: Theme) {
    for (const [name] of themeSlots({}, '--cs-t-')) this.style.removeProperty(name);
    for (const [name, value] of themeVariables(theme, '--cs-t-')) this.style.setProperty(name, value);
  }

  /** What the entry unlocked (with its codes) and what it is closest to. */
  private rewards(me: Me): HTMLElement[] {
    const out: HTMLElement[] = [];
    const { unlocked, next } = me.rewards;
    if (unlocked.length) {
      out.push(
        el('h3', {}, this.t('rewardsTitle')),
        el('ul', { class: 'rewards' }, ...unlocked.map((r) => this.rewardLine(r))),
      );
    }
    if (next) out.push(el('p', { class: 'next' }, this.nextLine(next)));
    return out;
  }

  /** "N more … to unlock <reward>": how far the visitor is from the reward closest to them. */
  private nextLine(next: NextReward): string {
    const line = next.referralsMissing !== null ? 'nextReferrals' : 'nextPoints';
    return this.t(line, { missing: missingOf(next), reward: next.name }, 'missing');
  }

  private rewardLine(r: Me['rewards']['unlocked'][number]): HTMLElement {
    if (r.code !== null) return el('li', {}, `${r.name}: `, el('code', {}, this.t('rewardCode', { code: r.code })));
    return el('li', {}, r.waitingForCode ? `${r.name}: ${this.t('rewardWaiting')}` : r.name);
  }
}

/** the contest's share message with the visitor's link for one channel */
const message = (template: string, link: string) => template.split('{{link}}').join(link);

/** a network's share address for the link (`template`: the team's words around it) */
function shareUrl(channel: string, link: string, template: string, title: string): string {
  const e = encodeURIComponent;
  const text = message(template, link);
  const words = message(template, '').trim() || title;
  switch (channel) {
    case 'x':
      return `https://x.com/intent/post?text=${e(text)}`;
    case 'facebook':
      return `https://www.facebook.com/sharer/sharer.php?u=${e(link)}`;
    case 'linkedin':
      return `https://www.linkedin.com/sharing/share-offsite/?url=${e(link)}`;
    case 'whatsapp':
      return `https://wa.me/?text=${e(text)}`;
    case 'telegram':
      return `https://t.me/share/url?url=${e(link)}&text=${e(words)}`;
    case 'reddit':
      return `https://www.reddit.com/submit?url=${e(link)}&title=${e(words)}`;
    case 'email':
      return `mailto:?subject=${e(title)}&body=${e(text)}`;
    default:
      return `sms:?&body=${e(text)}`;
  }
}

/** the referral code of a share link this page was opened with (`?ref=`) */
function refOfPage(): string | null {
  const ref = new URLSearchParams(location.search).get('ref')?.trim();
  return ref && ref.length <= 100 ? ref : null;
}
/** its channel (`&via=`), when it is one the service knows */
function viaOfPage(): string | null {
  const via = new URLSearchParams(location.search).get('via');
  return via && (SHARE_CHANNELS as readonly string[]).includes(via) ? via : null;
}
/** this page's address as the visitor's share link for `channel` */
function shareLink(code: string, channel: string): string {
  const url = new URL(location.href);
  url.hash = '';
  url.searchParams.set('ref', code);
  url.searchParams.set('via', channel);
  return url.toString();
}

/**
 * `text` to the clipboard, said in `status` (a live region); where the browser refuses, the field
 * that shows it (if any) is selected for the visitor to copy.
 */
async function copyText(text: string, status: HTMLElement, said: string, field?: HTMLInputElement) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = said;
  } catch {
    field?.select();
  }
}

/** children added to a node (strings as text) */
function put(node: HTMLElement, ...children: (Node | string)[]) {
  for (const c of children) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
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

/** `a***@example.com`: enough to tell whose entry a link opens, not the address */
function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 1 ? '***' : `${email[0]}***${email.slice(at)}`;
}
