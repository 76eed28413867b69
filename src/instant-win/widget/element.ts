/**
 * <instant-win-game game="GAME_ID" api-key="pk_..." api-base="https://...">
 *
 * Loads the game with the public key, draws it (the wheel, or the shared reveal tile for the other
 * mechanics), asks the server to play, shows the tier the server chose, keeps the server's
 * playCookie per game in localStorage, and on a win offers a claim form and shows the prize.
 * It never decides anything itself and never shows a blank box: every failure is a sentence.
 */
import { type Api, ApiFailure, type ClaimResult, createApi, type Game, type Tier } from './api.js';
import { failureSentence, type Stage, statusSentence } from './messages.js';
import { createTile, mechanicInfo } from './reveal.js';
import { loadSaved, type Saved, saveSaved } from './storage.js';
import { CSS } from './styles.js';
import { createWheel, type StageView, tierColor } from './wheel.js';

const DAY_MS = 86_400_000;
/** the playCookie format the API accepts (docs/instant-win.md: server-made, 128+ random bits) */
const COOKIE_RE = /^[A-Za-z0-9_-]{16,128}$/;

const TEMPLATE = `<style>${CSS}</style>
<section class="iw" part="container" aria-labelledby="iw-title">
<h2 id="iw-title" part="title"></h2>
<p class="desc" part="description" hidden></p>
<div class="stage" part="stage"></div>
<button class="play" part="button" type="button" hidden></button>
<p class="status" part="status" role="status" aria-live="polite" tabindex="-1"></p>
<p class="error" part="error" role="alert"></p>
<form class="claim" part="claim" novalidate hidden>
<label for="iw-email">Your email address</label>
<div class="row"><input id="iw-email" name="email" type="email" autocomplete="email" inputmode="email" autocapitalize="off" spellcheck="false" maxlength="254" required aria-describedby="iw-hint"><button type="submit" part="button">Claim prize</button></div>
<p class="hint" id="iw-hint">We will also email your prize to this address.</p>
</form>
<div class="prize" part="prize" hidden></div>
<details class="odds" part="odds" hidden><summary>Prizes and odds</summary><ul></ul></details>
</section>`;

let defaultBase = '';
/** Set once by index.ts from the <script src> the widget was loaded from. */
export function setDefaultApiBase(base: string) {
  defaultBase = base;
}

const quoted = (s: string) => `\u201c${s}\u201d`;
const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

export class InstantWinGame extends HTMLElement {
  static observedAttributes = ['game', 'api-key', 'api-base'];

  private readonly root: ShadowRoot;
  private readonly $: {
    section: HTMLElement;
    title: HTMLElement;
    desc: HTMLElement;
    stage: HTMLElement;
    play: HTMLButtonElement;
    status: HTMLElement;
    error: HTMLElement;
    form: HTMLFormElement;
    email: HTMLInputElement;
    submit: HTMLButtonElement;
    prize: HTMLElement;
    odds: HTMLDetailsElement;
  };
  private api?: Api;
  private game?: Game;
  private gameId = '';
  private saved: Saved = {};
  private view?: StageView;
  private started = false;
  private reloadQueued = false;
  private busy = false;
  private claiming = false;
  /** bumped on every (re)load; async work from an older load is dropped */
  private generation = 0;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.innerHTML = TEMPLATE;
    const q = <T extends Element>(s: string) => this.root.querySelector(s) as T;
    this.$ = {
      section: q('section'),
      title: q('h2'),
      desc: q('.desc'),
      stage: q('.stage'),
      play: q('.play'),
      status: q('.status'),
      error: q('.error'),
      form: q('form'),
      email: q('input'),
      submit: q('form button'),
      prize: q('.prize'),
      odds: q('details'),
    };
    this.$.play.addEventListener('click', () => void this.play());
    this.$.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.claim();
    });
    this.$.email.addEventListener('input', () => this.$.email.removeAttribute('aria-invalid'));
  }

  connectedCallback() {
    if (this.started) return;
    this.started = true;
    void this.load();
  }

  attributeChangedCallback(_name: string, oldValue: string | null, newValue: string | null) {
    if (!this.started || oldValue === newValue || this.reloadQueued) return;
    this.reloadQueued = true;
    queueMicrotask(() => {
      this.reloadQueued = false;
      void this.load();
    });
  }

  // ---------- small view helpers ----------

  private say(text: string) {
    this.$.status.textContent = text;
  }

  private fail(text: string) {
    this.$.error.textContent = text;
  }

  private setPlayEnabled(enabled: boolean) {
    this.$.play.setAttribute('aria-disabled', String(!enabled));
  }

  private emit(type: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private persist() {
    saveSaved(this.gameId, this.saved);
  }

  // ---------- load ----------

  private async load() {
    const gen = ++this.generation;
    const $ = this.$;
    this.busy = this.claiming = false;
    this.game = undefined;
    $.title.textContent = 'Instant win';
    $.desc.hidden = $.play.hidden = $.form.hidden = $.prize.hidden = $.odds.hidden = true;
    $.stage.replaceChildren();
    this.fail('');
    this.say('Loading the game\u2026');

    const gameId = (this.getAttribute('game') ?? '').trim();
    const key = (this.getAttribute('api-key') ?? '').trim();
    const base = (this.getAttribute('api-base') ?? '').trim() || defaultBase;
    const setupError = !gameId
      ? 'This game cannot be shown: the page does not say which game to load (the game attribute is missing).'
      : !key
        ? 'This game cannot be shown: the api-key attribute is missing.'
        : key.startsWith('sk_')
          ? 'This game cannot be shown: a private API key was put on this page. Use the public key (pk_...) instead.'
          : !base
            ? 'This game cannot be shown: the api-base attribute is missing.'
            : null;
    if (setupError) {
      this.say('');
      this.fail(setupError);
      return;
    }
    this.gameId = gameId;
    this.api = createApi(base.replace(/\/+$/, ''), key, gameId);
    let game: Game;
    try {
      game = await this.api.game();
    } catch (e) {
      if (gen !== this.generation) return;
      this.say('');
      this.fail(this.sentence(e, 'load'));
      return;
    }
    if (gen !== this.generation) return;
    this.render(game);
  }

  private render(game: Game) {
    const $ = this.$;
    const tiers = Array.isArray(game.tiers) ? game.tiers : [];
    this.game = { ...game, tiers };
    this.saved = loadSaved(this.gameId);
    $.section.classList.toggle('full', game.layout === 'fullscreen');
    $.title.textContent = game.title || 'Instant win';
    $.desc.textContent = game.description ?? '';
    $.desc.hidden = !game.description;

    this.view = game.mechanic === 'wheel' ? createWheel(tiers) : createTile(game.mechanic);
    $.stage.replaceChildren(this.view.el);

    const list = $.odds.querySelector('ul')!;
    list.replaceChildren(
      ...tiers.map((t, i) => {
        const li = document.createElement('li');
        const sw = document.createElement('span');
        sw.className = 'sw';
        sw.style.background = tierColor(t, i);
        const name = document.createElement('span');
        name.textContent = t.isMiss ? `${t.name} (no prize)` : t.name;
        li.appendChild(sw);
        li.appendChild(name);
        if (typeof t.oddsPercent === 'number') {
          const pct = document.createElement('span');
          pct.className = 'pct';
          pct.textContent = `${+t.oddsPercent.toFixed(2)}%`;
          li.appendChild(pct);
        }
        return li;
      }),
    );
    $.odds.hidden = tiers.length === 0;

    $.play.textContent = mechanicInfo(game.mechanic)[1];
    $.play.hidden = false;
    this.setPlayEnabled(true);
    this.say('');

    const closed = statusSentence(game.status);
    if (closed) {
      $.play.hidden = true;
      this.fail(closed);
    }

    // an unclaimed win from an earlier visit (within the 24-hour reservation) can still be claimed
    const win = this.saved.win;
    if (win && Date.now() - win.at < DAY_MS) {
      this.say(`You won ${quoted(win.result.name)}! Claim it below before the reservation expires.`);
      $.form.hidden = false;
    } else if (win) {
      delete this.saved.win;
      this.persist();
    }
  }

  private sentence(e: unknown, stage: Stage): string {
    return e instanceof ApiFailure
      ? failureSentence(e, stage)
      : 'Something went wrong in this game. Please reload the page and try again.';
  }

  // ---------- play ----------

  private async play() {
    const $ = this.$;
    const game = this.game;
    if (!this.api || !game || this.busy || $.play.getAttribute('aria-disabled') === 'true') return;
    const gen = this.generation;
    this.busy = true;
    this.setPlayEnabled(false);
    this.fail('');
    $.form.hidden = $.prize.hidden = true;
    this.say(game.mechanic === 'wheel' ? 'Spinning\u2026' : 'Revealing\u2026');

    let played: Awaited<ReturnType<typeof this.api.play>>;
    try {
      // the server only takes cookies it could have made; anything else (edited storage) is not sent
      const cookie = this.saved.cookie;
      played = await this.api.play(cookie && COOKIE_RE.test(cookie) ? cookie : undefined);
    } catch (e) {
      if (gen !== this.generation) return;
      this.busy = false;
      this.say('');
      this.fail(this.sentence(e, 'play'));
      const f = e instanceof ApiFailure ? e : null;
      if (f && (f.status === 403 || f.status === 409 || f.status === 410 || f.status === 404 || f.status === 401)) {
        this.hidePlay();
      } else if (f && f.status === 429) {
        setTimeout(
          () => gen === this.generation && !this.busy && this.setPlayEnabled(true),
          (f.retryAfter ?? 60) * 1000,
        );
      } else {
        this.setPlayEnabled(true);
      }
      return;
    }
    if (gen !== this.generation) return;

    const result: Tier = played.result;
    this.saved.cookie = played.playCookie || this.saved.cookie;
    if (result.isMiss) delete this.saved.win;
    else this.saved.win = { playId: played.playId, result, at: Date.now() };
    this.persist();

    await this.view!.show(result, reducedMotion());
    if (gen !== this.generation) return;
    this.busy = false;

    const what = game.mechanic === 'wheel' ? 'The wheel stopped on' : 'You revealed';
    this.emit('instant-win:play', { playId: played.playId, result });
    if (result.isMiss) {
      this.say(`${what} ${quoted(result.name)}: no prize this time. Thanks for playing!`);
    } else {
      this.say(`You won ${quoted(result.name)}! Enter your email address to claim it.`);
      $.form.hidden = false;
    }
    if (game.entryLimit === 'none' || !game.entryLimit) {
      $.play.textContent = game.mechanic === 'wheel' ? 'Spin again' : 'Play again';
      this.setPlayEnabled(true);
    } else {
      this.hidePlay();
    }
    if (!result.isMiss) $.email.focus();
  }

  /** hides the play button, keeping keyboard focus inside the widget */
  private hidePlay() {
    const hadFocus = this.root.activeElement === this.$.play;
    this.$.play.hidden = true;
    if (hadFocus) this.$.status.focus();
  }

  // ---------- claim ----------

  private async claim() {
    const $ = this.$;
    const win = this.saved.win;
    if (!this.api || !win || this.claiming) return;
    const email = $.email.value.trim();
    if (!email?.includes('@')) {
      this.fail(email ? 'Please enter a valid email address.' : 'Please enter your email address to claim your prize.');
      $.email.setAttribute('aria-invalid', 'true');
      $.email.focus();
      return;
    }
    const gen = this.generation;
    this.claiming = true;
    $.submit.setAttribute('aria-disabled', 'true');
    this.fail('');
    this.say('Claiming your prize\u2026');
    let claimed: ClaimResult;
    try {
      claimed = await this.api.claim(win.playId, email, this.saved.cookie);
    } catch (e) {
      if (gen !== this.generation) return;
      this.claiming = false;
      $.submit.setAttribute('aria-disabled', 'false');
      this.say('');
      this.fail(this.sentence(e, 'claim'));
      const f = e instanceof ApiFailure ? e : null;
      if (f && f.status === 400 && f.apiMessage === 'Invalid email') {
        $.email.setAttribute('aria-invalid', 'true');
        $.email.focus();
      } else if (f && [400, 403, 404, 409, 410].includes(f.status)) {
        // this win can no longer be claimed from here: forget it
        delete this.saved.win;
        this.persist();
        $.form.hidden = true;
        $.status.focus();
      }
      return;
    }
    if (gen !== this.generation) return;
    this.claiming = false;
    $.submit.setAttribute('aria-disabled', 'false');
    delete this.saved.win;
    this.persist();
    $.form.hidden = true;
    this.showPrize(claimed, email);
    this.emit('instant-win:claim', claimed);
  }

  private showPrize(c: ClaimResult, email: string) {
    const $ = this.$;
    const el = (tag: string, text?: string, cls?: string) => {
      const e = document.createElement(tag);
      if (text !== undefined) e.textContent = text;
      if (cls) e.className = cls;
      return e;
    };
    const heading = el('h3', `Your prize: ${c.prizeName}`);
    heading.tabIndex = -1;
    const parts: Node[] = [heading];
    if (c.alreadyClaimed) parts.push(el('p', 'You had already claimed this prize. Here it is again.'));
    if (c.couponCode) {
      parts.push(el('p', 'Your coupon code:'));
      const line = el('p');
      const code = el('code', c.couponCode, 'code');
      line.appendChild(code);
      if (navigator.clipboard && typeof navigator.clipboard.writeText === 'function') {
        const copy = el('button', 'Copy code', 'copy') as HTMLButtonElement;
        copy.type = 'button';
        copy.setAttribute('aria-label', `Copy the code ${c.couponCode}`);
        copy.addEventListener('click', () => {
          navigator.clipboard.writeText(c.couponCode!).then(
            () => {
              copy.textContent = 'Copied!';
              this.say('The code is copied.');
            },
            () => this.say('Copying did not work: select the code and copy it by hand.'),
          );
        });
        line.appendChild(document.createTextNode(' '));
        line.appendChild(copy);
      }
      parts.push(line);
    }
    const href = safeUrl(c.redeemUrl);
    if (href) {
      const a = el('a', 'Redeem your prize') as HTMLAnchorElement;
      a.href = href;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      parts.push(a);
    }
    parts.push(el('p', `We have also sent it to ${email}.`, 'hint'));
    $.prize.replaceChildren(...parts);
    $.prize.hidden = false;
    this.say(
      c.couponCode
        ? `Prize claimed! Your coupon code is ${c.couponCode}.`
        : href
          ? 'Prize claimed! Use the link below to redeem it.'
          : 'Prize claimed!',
    );
    heading.focus();
  }
}

/** Only http(s) links are ever put into an href (never javascript: or data:). */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}
