/**
 * The widget in a real browser (Debian's Chromium, driven by playwright-core; never a browser
 * download). The API runs as a real Node server (createApp over the test database) on one port and
 * the shop page on ANOTHER port, so CORS is exercised for real. Screenshots of the wheel and of
 * the claim step go to test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/client.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../support/harness.js';

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
if (!CHROMIUM) {
  console.warn('\n*** No Chromium (apt-get install -y chromium): the browser tests of the widget are SKIPPED. ***\n');
}
const ARTIFACTS = 'test/artifacts';

let env: TestEnv;
let team: TeamFixture;
let api: ReturnType<typeof serve>;
let apiBase: string;
let shop: Server;
let shopBase: string;
let browser: Browser;

function listen(server: { address(): AddressInfo | string | null }) {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A shop page on its own origin that embeds the widget the way the README shows. */
function shopPage(gameId: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title></head>
<body style="margin:0;padding:16px;font-family:sans-serif">
<h1>Our shop</h1>
<script src="${apiBase}/widget.js"></script>
<instant-win-game game="${gameId}" api-key="${team.publicKey}" api-base="${apiBase}"></instant-win-game>
</body></html>`;
}

async function createGame(entryLimit: 'none' | 'device', code: string) {
  const r = await env.request('POST', '/api/v1/instant-win-games', {
    key: team.privateKey,
    body: {
      slug: 'spin-to-win',
      title: 'Summer wheel',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit,
      publishAs: 'embed',
      embedUrl: 'https://shop.example/wheel',
      tiers: [
        { name: '10% off', oddsPercent: 100, isMiss: false, color: '#16a34a', deliveryType: 'code', redeemCode: code },
        { name: 'Try again', oddsPercent: 0, isMiss: true, color: '#9ca3af' },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

describe.skipIf(!CHROMIUM)('instant-win widget in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    env = await createTestEnv();
    team = await env.team();
    api = serve({ fetch: env.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => api.once('listening', r));
    apiBase = listen(api);
    const pages = new Map<string, string>();
    shop = createServer((req, res) => {
      const html = pages.get(req.url ?? '');
      res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html ?? 'not found');
    });
    shop.listen(0, '127.0.0.1');
    await new Promise((r) => shop.once('listening', r));
    shopBase = listen(shop);
    (globalThis as { __pages?: Map<string, string> }).__pages = pages;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage', '--disable-component-update', '--no-first-run'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => shop?.close(r));
    await new Promise((r) => api?.close(r));
    await env?.close();
  });

  const pages = () => (globalThis as { __pages?: Map<string, string> }).__pages!;

  it('spins on a page of another origin, shows the server’s result, claims with an email and shows the code', async () => {
    const gameId = await createGame('none', 'SPIN-WIN-42');
    pages().set('/wheel', shopPage(gameId));
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const apiCalls: string[] = [];
    page.on('request', (req) => {
      if (req.url().startsWith(apiBase)) apiCalls.push(`${req.method()} ${new URL(req.url()).pathname}`);
    });
    await page.goto(`${shopBase}/wheel`);
    expect(new URL(page.url()).origin).not.toBe(apiBase);

    const spin = page.locator('instant-win-game button.play');
    await expect.poll(() => spin.isVisible(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => page.locator('instant-win-game h2').textContent()).toBe('Summer wheel');
    // keyboard: the spin button is reachable and works with Enter
    await spin.focus();
    await page.keyboard.press('Enter');

    const status = page.locator('instant-win-game .status');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('You won');
    expect(await status.textContent()).toContain('10% off');
    await page.screenshot({ path: `${ARTIFACTS}/widget-wheel.png` });

    // what the page shows is what the server decided and stored
    const plays = await query<{ id: string; status: string; name: string }>(
      env.db,
      sql`select p.id, p.status, t.name from instant_win_plays p join instant_win_tiers t on t.id = p.tier_id where p.game_id = ${gameId}`,
    );
    expect(plays).toHaveLength(1);
    expect(plays[0]).toMatchObject({ status: 'pending', name: '10% off' });
    const cookie = await page.evaluate(() => JSON.stringify(localStorage));
    expect(cookie).toMatch(/[A-Za-z0-9_-]{16,}/);

    const email = page.locator('instant-win-game input[type=email]');
    await expect.poll(() => email.isVisible()).toBe(true);
    expect(await email.getAttribute('id')).toBe('iw-email');
    expect(await page.locator('instant-win-game label[for=iw-email]').count()).toBe(1);
    await email.fill('Winner@Example.com');
    await page.locator('instant-win-game form button[type=submit]').click();

    const code = page.locator('instant-win-game .prize code');
    await expect.poll(() => code.textContent(), { timeout: 15_000 }).toBe('SPIN-WIN-42');
    await page.screenshot({ path: `${ARTIFACTS}/widget-claim.png` });

    const claimed = await query<{ status: string; email: string }>(env.db, sql`select status, email from instant_win_plays where id = ${plays[0]!.id}`);
    expect(claimed[0]).toEqual({ status: 'claimed', email: 'winner@example.com' });
    const emails = await query<{ to: string; text: string }>(env.db, sql`select "to", text from email_outbox where kind = 'prize'`);
    expect(emails.some((e) => e.to === 'winner@example.com' && e.text.includes('SPIN-WIN-42'))).toBe(true);
    // the browser really crossed origins: preflighted POSTs to the API's port
    expect(apiCalls).toContain(`POST /api/v1/instant-win-games/${gameId}/play`);
    expect(apiCalls).toContain(`POST /api/v1/instant-win-games/${gameId}/plays/${plays[0]!.id}/claim`);
    await context.close();
  }, 60_000);

  it('a second spin on a device-limited game shows the already-played message', async () => {
    const gameId = await createGame('device', 'ONCE-ONLY');
    pages().set('/device', shopPage(gameId));
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${shopBase}/device`);
    const spin = page.locator('instant-win-game button.play');
    await expect.poll(() => spin.isVisible(), { timeout: 15_000 }).toBe(true);
    await spin.click();
    await expect.poll(() => page.locator('instant-win-game .status').textContent(), { timeout: 20_000 }).toContain('You won');
    // the same visitor comes back: the page reloads, the saved playCookie goes with the next spin
    await page.reload();
    await expect.poll(() => spin.isVisible(), { timeout: 15_000 }).toBe(true);
    await spin.click();
    const error = page.locator('instant-win-game .error');
    await expect.poll(() => error.textContent(), { timeout: 15_000 }).toBe('You have already played this game. Thanks for taking part!');
    const n = await query<{ n: number }>(env.db, sql`select count(*)::int as n from instant_win_plays where game_id = ${gameId}`);
    expect(n[0]!.n).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/widget-already-played.png` });
    await context.close();
  }, 60_000);
});
