/**
 * <contest-signup contest="…">: a contest's sign-up form on any page, then the visitor's own
 * place: position of total, points, referrals and their share link. Talks to the API without a
 * key (a contest that takes public sign-ups answers its visitors), or with the team's public key
 * (`api-key="pk_…"`), and with the visitor's entry token for their entry, which
 * it keeps in localStorage per contest and picks up from a `#ce-entry=` link. Everything renders
 * in a shadow root with a constructable stylesheet: no inline script or style, so a strict CSP
 * needs nothing but the API's origin in connect-src (and Turnstile's, when the contest uses it).
 *
 * This file is the element's life (attributes, the views and when they change); its parts are
 * beside it: api.ts (types and calls), form.ts, place.ts, sharing.ts, ladder.ts, actions.ts,
 * leaderboard.ts, storage.ts, dom.ts.
 */

import { themeSlots, themeVariables } from '../../lib/share-channels.js';
import { fillActions } from './actions.js';
import { ApiError, apiBase, type Config, callApi, type Me } from './api.js';
import { el, maskEmail } from './dom.js';
import { signupForm } from './form.js';
import { fillLadder } from './ladder.js';
import { fillBoard } from './leaderboard.js';
import { placeOf } from './place.js';
import { refOfPage, shareSection, viaOfPage } from './sharing.js';
import { firstTime, firstToday, isTokenKey, rememberToken, storedToken, tokenFromLink } from './storage.js';
import { fill, type Strings, stringsFrom } from './strings.js';
import { CSS } from './styles.js';
import type { View } from './view.js';

export { setDefaultApiBase } from './api.js';

export class ContestSignup extends HTMLElement implements View {
  static observedAttributes = ['contest', 'api-key', 'api-base', 'strings', 'lang', 'no-header', 'leaderboard'];
  private root: ShadowRoot;
  private box: HTMLElement;
  strings: Strings = stringsFrom(null);
  private settings: Config | null = null;
  generation = 0;

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

  get contest() {
    return this.getAttribute('contest') ?? '';
  }
  get path() {
    return `/api/v1/contests/${encodeURIComponent(this.contest)}`;
  }
  get apiBase() {
    return apiBase(this.getAttribute('api-base'));
  }
  /** the contest's settings (read before any view shows) */
  get config(): Config {
    return this.settings!;
  }
  private get pageLang() {
    return this.getAttribute('lang') || document.documentElement.lang || undefined;
  }
  t(key: keyof Strings, values: Record<string, number | string> = {}, count?: string): string {
    return fill(this.strings[key], values, this.pageLang, count);
  }
  num(v: string | number): string {
    return typeof v === 'number' ? fill('{n}', { n: v }, this.pageLang) : v;
  }
  api<T>(method: string, path: string, opts: { body?: unknown; token?: string } = {}): Promise<T> {
    return callApi<T>(this.apiBase, this.getAttribute('api-key'), method, path, opts);
  }
  refresh(token: string) {
    void this.showEntry(token, ++this.generation);
  }
  private remember(token: string | null) {
    rememberToken(this.contest, token);
  }

  private async load() {
    const gen = ++this.generation;
    this.strings = stringsFrom(this.getAttribute('strings'));
    const key = this.getAttribute('api-key');
    if (key !== null && key !== '' && !/^pk_/.test(key)) return this.fatal(this.t('noKey'));
    try {
      const config = await this.api<Config>('GET', `${this.path}/signup`);
      if (gen !== this.generation) return;
      this.settings = config;
      this.applyTheme(config.theme);
    } catch {
      if (gen === this.generation) this.fatal(this.t('error'));
      return;
    }
    this.countView();
    this.countVisit();
    const fromLink = tokenFromLink();
    const stored = storedToken(this.contest);
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
   * browser, contest and code (remembered in localStorage; without storage, never: counting on
   * every load would overcount); a failure is not retried.
   */
  private countVisit() {
    const ref = refOfPage();
    // a short link (/r/{code}) counted this visit at its redirect: remembered, not sent again
    const counted = location.hash === '#ce-counted';
    if (counted) history.replaceState(history.state, '', location.href.replace(/#ce-counted$/, ''));
    if (!ref || !firstTime(`ce-visit:${this.contest}:${ref}`) || counted) return;
    const via = viaOfPage();
    void this.api('POST', `${this.path}/visits`, {
      body: { referralCode: ref, ...(via ? { channel: via } : {}) },
    }).catch(() => {});
  }

  /** One page view per browser, contest and day (the funnel's first step); a failure is not retried. */
  private countView() {
    if (!firstToday(`ce-view:${this.contest}`)) return;
    void this.api('POST', `${this.path}/views`).catch(() => {});
  }

  /** A `#ce-entry=` link opened in this tab while it shows the page (only the fragment changed: no reload). */
  private readonly onHash = () => {
    if (new URLSearchParams(location.hash.slice(1)).has('ce-entry')) void this.load();
  };

  /** Another tab of this page changed the stored token (a confirmation's fresh one): follow it. */
  private readonly onStorage = (e: StorageEvent) => {
    if (!isTokenKey(e.key, this.contest) || !this.settings) return;
    if (e.newValue) void this.showEntry(e.newValue, ++this.generation);
    else this.showForm();
  };

  private header(): HTMLElement[] {
    const c = this.config;
    // a page that shows the contest's title itself (the hosted page): the widget does not repeat it
    if (this.hasAttribute('no-header')) return [];
    const h = el('h2', { tabindex: '-1' }, c.title);
    return c.description ? [h, el('p', { class: 'desc' }, c.description)] : [h];
  }

  private fatal(message: string) {
    this.box.replaceChildren(el('p', { class: 'msg err', role: 'alert' }, message));
  }

  private showForm(notice?: string) {
    if (!this.config.publicSignup) {
      this.box.replaceChildren(...this.header(), el('p', { class: 'msg' }, this.t('closed')));
      return;
    }
    const { form, mounted } = signupForm(this, notice, {
      signedUp: async (token) => {
        this.remember(token);
        await this.showEntry(token, this.generation);
        (this.root.querySelector('h2') as HTMLElement | null)?.focus();
      },
      already: (said) => this.showForm(said),
    });
    this.box.replaceChildren(...this.header(), form);
    mounted();
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
        const ended = storedToken(this.contest) === token;
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
        ...shareSection(this, me, token),
        el('p', { class: 'note' }, this.t('friendsNote')),
        leave,
      );
      this.watchConfirmation(token, gen);
      return;
    }
    const ladder = el('div', { class: 'ladder-box' });
    const actions = el('div', { class: 'actions-box' });
    const board = el('div', { class: 'board-box' });
    this.box.replaceChildren(
      ...this.header(),
      ...placeOf(this, me),
      ...shareSection(this, me, token),
      ladder,
      actions,
      board,
      leave,
    );
    // what needs more reads fills in when they answer (the view shows at once)
    void fillLadder(this, ladder, me, gen);
    void fillActions(this, actions, me, token, gen);
    void fillBoard(this, board, me, gen, Number(this.getAttribute('leaderboard')));
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
  private applyTheme(theme: Config['theme']) {
    for (const [name] of themeSlots({}, '--cs-t-')) this.style.removeProperty(name);
    for (const [name, value] of themeVariables(theme, '--cs-t-')) this.style.setProperty(name, value);
  }
}
