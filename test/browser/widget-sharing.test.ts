/**
 * The sign-up widget's sharing, keyless, in a real headless Chromium: embedded on a page of
 * ANOTHER origin under a strict CSP (scripts and requests only to the API's origin), with no
 * api-key. Right after the sign-up the visitor sees their link and a button per channel of the
 * contest's shareChannels, in that order, each a plain link to the network's share address with
 * the team's message (nothing requested from any other origin until a click); a click is counted
 * in the funnel's channels; the open tab turns to the visitor's place by itself once the email is
 * confirmed elsewhere (polling /me); the contest's theme shows, the page's own CSS variable wins.
 * axe-core: 0 serious or critical violations at 320 and 1280 px.
 */
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../support/harness.js';
import { axeAtTwoWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { closeAll, serveApp, serveShop } from './support/shop.js';

warnIfNoChromium('the widget sharing BROWSER tests');

describe.skipIf(!CHROMIUM)('the widget shares, keyless, on a page of another origin', () => {
  let env: TestEnv;
  let team: TeamFixture;
  let browser: Browser;
  let api: Server;
  let shop: Server;
  let apiOrigin = '';
  let shopOrigin = '';
  let contestId = '';

  beforeAll(async () => {
    env = await createTestEnv();
    team = await env.team('Sharing shop');
    ({ server: api, origin: apiOrigin } = await serveApp(env));
    ({ server: shop, origin: shopOrigin } = await serveShop(apiOrigin, () => ({
      title: 'Share and win',
      body: `<h1>Share and win</h1>\n<contest-signup contest="${contestId}"></contest-signup>`,
    })));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await closeAll(api, shop);
    await env?.close();
  });

  const axe = (page: Page, name: string) => axeAtTwoWidths(page, 'widget', name);

  it('share buttons right after the sign-up, a click counted, the tab turning by itself, the theme', async () => {
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false, title: 'Share and win' });
    contestId = c.id;
    const patched = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        shareMessage: 'I am in the Acme giveaway, join me: {{link}}',
        shareChannels: ['whatsapp', 'x', 'linkedin', 'email', 'telegram'],
        theme: { accent: '#0f766e' },
      },
    });
    expect(patched.status, patched.text).toBe(200);

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // the sign-up's token, ended by the confirmation on "another device", read by the poll: 401
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(apiOrigin) && !r.url().startsWith(shopOrigin)) elsewhere.push(r.url());
    });
    await page.goto(`${shopOrigin}/`);
    const w = page.locator('contest-signup');
    await w.getByLabel('Email').fill('sharer@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    await w.getByText('A friend counts once both of your emails are confirmed.').waitFor();

    // the buttons, in the contest's order, each the network's share address with the team's message
    const code = (await env.request('GET', `/api/v1/contests/${c.id}/entries?limit=1`, { key: team.privateKey })).body
      .data[0].referralCode as string;
    const linkOf = (via: string) => `${shopOrigin}/?ref=${code}&via=${via}`;
    const msg = (via: string) => encodeURIComponent(`I am in the Acme giveaway, join me: ${linkOf(via)}`);
    const buttons = await w
      .locator('a.btn')
      .evaluateAll((as) =>
        as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel'), a.getAttribute('target')]),
      );
    expect(buttons).toEqual([
      ['WhatsApp', `https://wa.me/?text=${msg('whatsapp')}`, 'noopener noreferrer', '_blank'],
      ['X', `https://x.com/intent/post?text=${msg('x')}`, 'noopener noreferrer', '_blank'],
      [
        'LinkedIn',
        `https://www.linkedin.com/sharing/share-offsite/?url=${encodeURIComponent(linkOf('linkedin'))}`,
        'noopener noreferrer',
        '_blank',
      ],
      [
        'Email',
        `mailto:?subject=${encodeURIComponent('Share and win')}&body=${msg('email')}`,
        'noopener noreferrer',
        '_blank',
      ],
      [
        'Telegram',
        `https://t.me/share/url?url=${encodeURIComponent(linkOf('telegram'))}&text=${encodeURIComponent('I am in the Acme giveaway, join me:')}`,
        'noopener noreferrer',
        '_blank',
      ],
    ]);
    expect(await w.getByLabel('Move up: share your link').inputValue()).toBe(linkOf('copy'));
    await axe(page, 'unconfirmed');
    expect(elsewhere).toEqual([]);

    // a click on WhatsApp: counted as a share of that channel (the network's page opens in a new tab)
    const popup = ctx.waitForEvent('page');
    await w.getByRole('link', { name: 'WhatsApp' }).click();
    await (await popup).close().catch(() => {});
    await expect
      .poll(async () => {
        const f = await env.request('GET', `/api/v1/contests/${c.id}/funnel?interval=hour`, { key: team.privateKey });
        return f.body.data.channels.find((x: { channel: string }) => x.channel === 'whatsapp').shares;
      })
      .toBe(1);

    // the confirmation opened in a second tab: it lands on the hosted page... here the shop has no
    // landingUrl, so on the contest's hosted page of the API's origin; the first tab (the shop)
    // keeps its own storage and learns it from its poll: its sign-up token ended, it says so
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'sharer@example.com')!;
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const second = await ctx.newPage();
    await second.goto(`${apiOrigin}/api/confirm/${confirm}`);
    await second
      .locator('contest-signup')
      .getByText(/You are #\d+ of \d+/)
      .waitFor();
    await second.close();
    await w.getByText('Your link to this page has ended', { exact: false }).waitFor({ timeout: 30_000 });

    // with the shop as the landing page, the confirmation in a second tab turns the first one
    await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { landingUrl: `${shopOrigin}/` },
    });
    await w.getByLabel('Email').fill('sharer2@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    await env.settle();
    const mail2 = env.sent.find((m) => m.to === 'sharer2@example.com')!;
    const confirm2 = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail2.text)![1]!;
    const third = await ctx.newPage();
    await third.goto(`${apiOrigin}/api/confirm/${confirm2}`);
    await third
      .locator('contest-signup')
      .getByText(/You are #\d+ of \d+/)
      .waitFor();
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    await third.close();
    await axe(page, 'status');

    // the contest's accent on the buttons; the page's own variable wins where it sets one
    const accent = () =>
      w.getByRole('button', { name: 'Copy link' }).evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(await accent()).toBe('rgb(15, 118, 110)');
    // a page's own variable (set by its script: this page's CSP allows no inline style) wins
    await w.evaluate((e) => (e as HTMLElement).style.setProperty('--cs-accent', '#7c2d12'));
    expect(await accent()).toBe('rgb(124, 45, 18)');
    expect(problems).toEqual([]);
    await ctx.close();
  });
});
