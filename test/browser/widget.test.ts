/**
 * The instant-win widget in a real headless Chromium (Debian's package, driven by playwright-core;
 * never a downloaded browser) against the real app: createApp(deps) served by @hono/node-server on
 * one port, the "shop" page that embeds /widget.js served from ANOTHER port (another origin), so
 * CORS preflights, the x-api-key header and the JSON bodies all cross origins for real.
 *
 * Without Chromium the suite is skipped, loudly. Screenshots go to test/artifacts/ (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryRateLimiter, type RateLimiter } from '../../src/deps.js';
import { createTestEnv, query, type TeamFixture, type TestEnv, testClock } from '../support/harness.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';

warnIfNoChromium('the widget BROWSER tests');

const ARTIFACTS = join(process.cwd(), 'test/artifacts');
const HOUR = 3_600_000;

describe.skipIf(!CHROMIUM)('the widget in a real browser, against the real API on another origin', () => {
  let env: TestEnv;
  let team: TeamFixture;
  let browser: Browser;
  let api: Server;
  let shop: Server;
  let apiOrigin = '';
  let shopOrigin = '';
  /** what reached the API server: method, path and Origin header */
  const seen: { method: string; path: string; origin: string | null }[] = [];
  /** flips the real rate limiter's answer to "over the limit" (Retry-After 42) */
  let throttled = false;

  beforeAll(async () => {
    const clock = testClock();
    const real = memoryRateLimiter(30, 60, clock);
    const rateLimiter: RateLimiter = {
      limit: async (key) => (throttled ? { success: false, retryAfterSeconds: 42 } : real.limit(key)),
    };
    env = await createTestEnv({ clock, rateLimiter });
    team = await env.team('Browser shop');
    mkdirSync(ARTIFACTS, { recursive: true });

    api = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (req, bindings) => {
        const url = new URL(req.url);
        seen.push({ method: req.method, path: url.pathname, origin: req.headers.get('origin') });
        return env.app.fetch(req, bindings);
      },
    }) as Server;
    await listening(api);
    apiOrigin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

    // the shop: a plain page on another port that embeds the widget with the two-line snippet
    shop = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const widgets = u.searchParams.getAll('w').map((spec) => {
        const [id, game, key] = spec.split('|');
        return `<instant-win-game id="${attr(id!)}" game="${attr(game!)}" api-key="${attr(key!)}"></instant-win-game>`;
      });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A shop</title></head>
<body style="margin:0;padding:8px;font-family:sans-serif;background:#fafafa"><h1>A shop</h1>
<script src="${apiOrigin}/widget.js" defer></script>
${widgets.join('\n')}
</body></html>`);
    });
    shop.listen(0, '127.0.0.1');
    await listening(shop);
    shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([api, shop].map((s) => s && new Promise((r) => s.close(r))));
    await env?.close();
  });

  // ---------- helpers ----------

  async function createGame(body: Record<string, unknown>) {
    const r = await env.request('POST', '/api/v1/instant-win-games', {
      key: team.privateKey,
      body: { slug: 'spin-to-win', layout: 'default', publishAs: 'landing', ...body },
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data as { id: string; tiers: { id: string; name: string; color: string | null }[] };
  }

  function shopUrl(...widgets: [id: string, game: string, key: string][]) {
    const q = new URLSearchParams();
    for (const w of widgets) q.append('w', w.join('|'));
    return `${shopOrigin}/?${q}`;
  }

  async function newPage(
    opts: { reducedMotion?: boolean; width?: number } = {},
  ): Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> {
    const ctx = await browser.newContext({
      viewport: { width: opts.width ?? 375, height: 860 },
      reducedMotion: opts.reducedMotion ? 'reduce' : 'no-preference',
    });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // the browser logs every non-2xx fetch as "Failed to load resource"; those are expected here
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
        problems.push(`console: ${m.text()}`);
    });
    return { ctx, page, problems };
  }

  /** the id of the wheel segment just under the pointer's tip, as the browser hit-tests it */
  function segmentUnderPointer(page: Page, host = 'instant-win-game') {
    return page.evaluate((sel) => {
      const root = document.querySelector(sel)!.shadowRoot!;
      const svg = root.querySelector('svg')!;
      const box = svg.getBoundingClientRect();
      const scale = box.width / 220; // viewBox -110 -110 220 220; the tip is at y = -84
      const hit = root.elementFromPoint(box.left + 110 * scale, box.top + (110 - 78) * scale);
      return hit?.getAttribute('data-tier-id') ?? null;
    }, host);
  }

  const focused = (page: Page, host = 'instant-win-game') =>
    page.evaluate((sel) => {
      const a = document.querySelector(sel)?.shadowRoot?.activeElement;
      return a ? `${a.tagName.toLowerCase()}:${(a.textContent ?? '').trim() || a.getAttribute('id')}` : null;
    }, host);

  const playsOf = (gameId: string) =>
    query<{ id: string; status: string; tier_id: string | null; email: string | null; code: string | null }>(
      env.db,
      sql`select p.id, p.status, p.tier_id, p.email, ic.code
          from instant_win_plays p left join instant_win_codes ic on ic.id = p.code_id
          where p.game_id = ${gameId} order by p.created_at`,
    );

  // ---------- the journey ----------

  let wheelGame: Awaited<ReturnType<typeof createGame>>;
  let device: BrowserContext;

  it('a player spins the wheel by keyboard, sees the result the API chose, claims with an email and sees the code', async () => {
    wheelGame = await createGame({
      title: 'Spin to win',
      mechanic: 'wheel',
      entryLimit: 'device',
      tiers: [
        { name: 'Try again', oddsPercent: 0, isMiss: true, color: '#e5e7eb' },
        { name: '10% off', oddsPercent: 0, isMiss: false, color: '#ef4444', redeemCode: 'TENOFF' },
        {
          name: 'Free shipping',
          oddsPercent: 100,
          isMiss: false,
          color: '#10b981',
          deliveryType: 'unique_code',
          codes: ['SHIP-AAA-111', 'SHIP-BBB-222'],
          redeemUrl: 'https://shop.example/redeem',
        },
        {
          name: 'Mystery gift',
          oddsPercent: 0,
          isMiss: false,
          color: '#f59e0b',
          redeemUrl: 'https://shop.example/gift',
        },
        { name: 'Nothing', oddsPercent: 0, isMiss: true, color: '#0ea5e9' },
      ],
    });
    const prize = wheelGame.tiers[2]!;
    expect(prize.name).toBe('Free shipping');
    const { ctx, page, problems } = await newPage();
    await page.goto(shopUrl(['spin', wheelGame.id, team.publicKey]));
    const w = page.locator('instant-win-game');
    const spin = w.getByRole('button', { name: 'Spin the wheel' });
    await spin.waitFor();

    // the wheel is drawn from the game's tiers: every name and colour, and an accessible label
    const drawn = await page.evaluate(() => {
      const root = document.querySelector('instant-win-game')!.shadowRoot!;
      return {
        labels: [...root.querySelectorAll('svg text')].map((t) => t.textContent),
        fills: [...root.querySelectorAll('svg path.seg')].map((p) => p.getAttribute('fill')),
        ids: [...root.querySelectorAll('svg path.seg')].map((p) => p.getAttribute('data-tier-id')),
        aria: root.querySelector('svg')!.getAttribute('aria-label'),
      };
    });
    expect(drawn.labels).toEqual(['Try again', '10% off', 'Free shipping', 'Mystery gift', 'Nothing']);
    expect(drawn.fills).toEqual(['#e5e7eb', '#ef4444', '#10b981', '#f59e0b', '#0ea5e9']);
    expect(drawn.ids).toEqual(wheelGame.tiers.map((t) => t.id));
    expect(drawn.aria).toBe('Prize wheel with 5 segments: Try again, 10% off, Free shipping, Mystery gift, Nothing');
    // the game's public view carries no fulfilment: the page never saw the codes
    expect(await page.content()).not.toContain('SHIP-AAA-111');

    // keyboard only: Tab reaches the spin button, Enter spins
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Spin the wheel');
    const playResponse = page.waitForResponse((r) => r.url().endsWith('/play') && r.request().method() === 'POST');
    const before = Date.now();
    await page.keyboard.press('Enter');
    const played = await (await playResponse).json();
    expect(played.success).toBe(true);
    await w.getByRole('status').filter({ hasText: 'You won' }).waitFor();
    const spinMs = Date.now() - before;

    // what the player sees is what the server chose, and what the database holds
    const [row] = await playsOf(wheelGame.id);
    expect(row!.tier_id).toBe(prize.id);
    expect(row!.status).toBe('pending');
    expect(played.data.result).toEqual({ id: prize.id, name: 'Free shipping', isMiss: false, color: '#10b981' });
    expect(played.data.playId).toBe(row!.id);
    expect(await w.getByRole('status').textContent()).toBe(
      'You won \u201cFree shipping\u201d! Enter your email address to claim it.',
    );
    expect(await segmentUnderPointer(page)).toBe(prize.id);
    expect(spinMs).toBeGreaterThan(3000); // it was animated, not jumped
    await page.screenshot({ path: join(ARTIFACTS, 'browser-wheel-spun.png'), fullPage: true });

    // the server's device cookie is kept per game in localStorage
    const stored = JSON.parse((await page.evaluate((k) => localStorage.getItem(k), `instant-win:${wheelGame.id}`))!);
    expect(stored.cookie).toBe(played.data.playCookie);
    expect(stored.win.playId).toBe(row!.id);

    // the claim form got the focus; a labelled email field; Enter submits
    expect(await focused(page)).toBe('input:iw-email');
    await expect.poll(() => w.getByLabel('Your email address').isVisible()).toBe(true);
    await page.keyboard.type('  Player.One@Example.COM ');
    const claimResponse = page.waitForResponse((r) => r.url().endsWith('/claim'));
    await page.keyboard.press('Enter');
    const claimed = await (await claimResponse).json();
    await w.locator('.code').waitFor();

    const [after] = await playsOf(wheelGame.id);
    expect(after!.status).toBe('claimed');
    expect(after!.email).toBe('player.one@example.com');
    expect(after!.code).toMatch(/^SHIP-(AAA-111|BBB-222)$/);
    expect(claimed.data).toEqual({
      alreadyClaimed: false,
      prizeName: 'Free shipping',
      couponCode: after!.code,
      redeemUrl: 'https://shop.example/redeem',
    });
    expect(await w.locator('.code').textContent()).toBe(after!.code);
    expect(await w.getByRole('heading', { name: 'Your prize: Free shipping' }).isVisible()).toBe(true);
    expect(await w.getByRole('link', { name: 'Redeem your prize' }).getAttribute('href')).toBe(
      'https://shop.example/redeem',
    );
    expect(await w.getByRole('status').textContent()).toBe(`Prize claimed! Your coupon code is ${after!.code}.`);
    expect(await focused(page)).toBe('h3:Your prize: Free shipping');
    await expect
      .poll(() => env.sent.some((m) => m.to === 'player.one@example.com' && m.text.includes(after!.code!)))
      .toBe(true);

    // phone-sized: nothing sticks out of a 375 px screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-claim-code.png'), fullPage: true });

    // CORS for real: the browser preflighted the cross-origin calls from the shop's origin
    for (const path of [
      `/api/v1/instant-win-games/${wheelGame.id}`,
      `/api/v1/instant-win-games/${wheelGame.id}/play`,
    ]) {
      expect(seen).toContainEqual({ method: 'OPTIONS', path, origin: shopOrigin });
    }
    expect(seen).toContainEqual({
      method: 'POST',
      path: `/api/v1/instant-win-games/${wheelGame.id}/play`,
      origin: shopOrigin,
    });
    expect(new URL(page.url()).origin).not.toBe(apiOrigin);
    expect(problems).toEqual([]);
    device = ctx; // the same browser profile plays again in the next test
  });

  it('the same device spinning the device-limited game again sees the already-played message', async () => {
    expect(device, 'runs after the first test').toBeDefined();
    const page = await device.newPage();
    await page.goto(shopUrl(['spin', wheelGame.id, team.publicKey]));
    const w = page.locator('instant-win-game');
    const stored = JSON.parse((await page.evaluate((k) => localStorage.getItem(k), `instant-win:${wheelGame.id}`))!);
    expect(stored.cookie).toMatch(/^[A-Za-z0-9_-]{16,128}$/);

    const req = page.waitForRequest((r) => r.url().endsWith('/play') && r.method() === 'POST');
    const res = page.waitForResponse((r) => r.url().endsWith('/play') && r.request().method() === 'POST');
    await w.getByRole('button', { name: 'Spin the wheel' }).click();
    expect((await req).postDataJSON()).toEqual({ playCookie: stored.cookie }); // the kept cookie goes back
    expect((await res).status()).toBe(403);
    await expect
      .poll(() => w.getByRole('alert').textContent())
      .toBe('You have already played this game. Thanks for taking part!');
    expect(await w.getByRole('button', { name: /spin/i }).count()).toBe(0);
    expect((await playsOf(wheelGame.id)).length).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-already-played.png'), fullPage: true });
    await device.close();
  });

  it('every API error reaches the player as a sentence: invalid email, expired, not active, too many requests', async () => {
    const game = await createGame({
      title: 'Lucky spin',
      mechanic: 'wheel',
      entryLimit: 'none',
      tiers: [
        { name: 'Coffee', oddsPercent: 100, isMiss: false, color: '#92400e', redeemCode: 'COFFEE' },
        { name: 'Try again', oddsPercent: 0, isMiss: true },
      ],
    });
    const { ctx, page, problems } = await newPage({ reducedMotion: true });
    await page.goto(shopUrl(['g', game.id, team.publicKey]));
    const w = page.locator('instant-win-game');
    const alert = w.getByRole('alert');
    await w.getByRole('button', { name: 'Spin the wheel' }).click();
    await w.getByRole('status').filter({ hasText: 'You won \u201cCoffee\u201d' }).waitFor();
    expect(await segmentUnderPointer(page)).toBe(game.tiers[0]!.id);

    // 400 Invalid email (the server's check; the browser's own check only needs an @)
    await w.getByLabel('Your email address').fill('player@@example');
    await w.getByRole('button', { name: 'Claim prize' }).click();
    await expect.poll(() => alert.textContent()).toBe('Please enter a valid email address.');
    expect(await w.getByLabel('Your email address').getAttribute('aria-invalid')).toBe('true');

    // 410: the 24-hour reservation ran out (the server's clock moves)
    env.clock.advance(25 * HOUR);
    await w.getByLabel('Your email address').fill('late@example.com');
    await w.getByRole('button', { name: 'Claim prize' }).click();
    await expect
      .poll(() => alert.textContent())
      .toBe('This prize reservation has expired: prizes must be claimed within 24 hours of playing.');
    expect(await w.locator('form').isHidden()).toBe(true);
    env.clock.advance(-25 * HOUR);

    // 409: the game was paused while the page was open
    await page.reload();
    await w.getByRole('button', { name: 'Spin the wheel' }).waitFor();
    const paused = await env.request('PUT', `/api/v1/instant-win-games/${game.id}`, {
      key: team.privateKey,
      body: { status: 'paused' },
    });
    expect(paused.status).toBe(200);
    await w.getByRole('button', { name: 'Spin the wheel' }).click();
    await expect.poll(() => alert.textContent()).toBe('This game is not open right now. Please come back later.');
    // ... and on the next visit the widget says so before anyone can play
    await page.reload();
    await expect.poll(() => alert.textContent()).toBe('This game is not open right now. Please come back later.');
    expect(await w.getByRole('button', { name: 'Spin the wheel' }).count()).toBe(0);

    // 429 with Retry-After (exposed to the page by CORS)
    await env.request('PUT', `/api/v1/instant-win-games/${game.id}`, {
      key: team.privateKey,
      body: { status: 'active' },
    });
    await page.reload();
    throttled = true;
    try {
      await w.getByRole('button', { name: 'Spin the wheel' }).click();
      await expect
        .poll(() => alert.textContent())
        .toBe('Too many attempts in a short time. Please wait 42 seconds and try again.');
      expect(await w.getByRole('button', { name: 'Spin the wheel' }).getAttribute('aria-disabled')).toBe('true');
    } finally {
      throttled = false;
    }
    // one play only (the refused ones left nothing), never claimed
    const plays = await playsOf(game.id);
    expect(plays).toHaveLength(1);
    expect(plays[0]!.status).not.toBe('claimed');
    expect(plays[0]!.email).toBeNull();
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('other mechanics share a reveal; a wrong key or game is a sentence, never a blank widget; the demo page works', async () => {
    const box = await createGame({
      slug: 'mystery-box',
      title: 'Mystery box',
      mechanic: 'box',
      entryLimit: 'daily',
      tiers: [
        { name: 'Better luck next time', oddsPercent: 100, isMiss: true, color: '#6b7280' },
        { name: 'Tote bag', oddsPercent: 0, isMiss: false, redeemCode: 'TOTE' },
      ],
    });
    const { ctx, page, problems } = await newPage({ reducedMotion: true });
    await page.goto(
      shopUrl(
        ['box', box.id, team.publicKey],
        ['badkey', box.id, `pk_${'x'.repeat(40)}`],
        ['nogame', '3f0e9a57-0000-4000-8000-000000000000', team.publicKey],
        ['secret', box.id, team.privateKey],
      ),
    );
    const w = page.locator('#box');
    await w.getByRole('button', { name: 'Open the box' }).click();
    await w.getByRole('status').filter({ hasText: 'no prize this time' }).waitFor();
    expect(await w.getByRole('status').textContent()).toBe(
      'You revealed \u201cBetter luck next time\u201d: no prize this time. Thanks for playing!',
    );
    expect(await w.getByRole('img', { name: 'Mystery box: Better luck next time' }).textContent()).toBe(
      'Better luck next time',
    );
    expect(await w.locator('form').isHidden()).toBe(true);
    expect((await playsOf(box.id)).map((p) => [p.status, p.tier_id])).toEqual([['miss', box.tiers[0]!.id]]);

    await expect
      .poll(() => page.locator('#badkey').getByRole('alert').textContent())
      .toBe('This game cannot be shown: the API key on this page is not valid.');
    await expect
      .poll(() => page.locator('#nogame').getByRole('alert').textContent())
      .toBe('This game could not be found. It may have been removed.');
    expect(await page.locator('#secret').getByRole('alert').textContent()).toBe(
      'This game cannot be shown: a private API key was put on this page. Use the public key (pk_...) instead.',
    );
    // the private key was never sent anywhere by the widget
    expect(seen.filter((s) => s.method === 'GET' && s.path === `/api/v1/instant-win-games/${box.id}`).length).toBe(2);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-box-and-errors.png'), fullPage: true });

    // the demo page (same origin as the API, under its strict CSP) embeds a working widget
    const demo = await ctx.newPage();
    const cspErrors: string[] = [];
    demo.on('console', (m) => m.type() === 'error' && cspErrors.push(m.text())); // CSP refusals are console errors
    await demo.goto(`${apiOrigin}/demo/instant-win/${box.id}?key=${team.publicKey}`);
    await demo.locator('instant-win-game').getByRole('heading', { name: 'Mystery box' }).waitFor();
    expect(await demo.locator('instant-win-game').getByRole('button', { name: 'Open the box' }).isVisible()).toBe(true);
    expect(cspErrors).toEqual([]);
    expect(problems).toEqual([]);
    await ctx.close();
  });
});

function listening(server: Server): Promise<void> {
  return server.listening ? Promise.resolve() : new Promise((r) => server.once('listening', () => r()));
}

function attr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
