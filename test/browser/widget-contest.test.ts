/**
 * The visitor's whole contest in `<contest-signup>`, keyless, in a real headless Chromium on a page
 * of ANOTHER origin under a strict CSP (scripts and requests only to the service's origin), on both
 * runtimes: the app on Node and the Worker as `npm run dev` runs it.
 *
 * Sharing: right after the sign-up, the visitor's link and a button per channel of the contest's
 * shareChannels, in that order, each a plain link to the network's share address with the team's
 * message (nothing requested from any other origin until a click); a click counted in the funnel's
 * channels; the open tab turning to the visitor's place by itself once the email is confirmed in a
 * second tab (polling /me); the contest's theme, the page's own CSS variable winning.
 *
 * The contest: the bonus actions of the three kinds (auto on a click, click opening its address and
 * completing, manual waiting for review until the operator approves it in the console), points at
 * once, the reward ladder (a code unlocked by points, a progress bar to the next, which moves when a
 * friend confirms), `leaderboard="5"` with the visitor's own row, the look set in the console's
 * Embed section showing on the page; everything done with the keyboard only.
 *
 * axe-core: 0 serious or critical violations in each view at 320, 390 and 1280 px. The Node run's
 * screenshots of the views are docs/signups.md's (taken again when the widget's bundle changed).
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshShots, WIDGET_SHOTS } from '../support/docs-shots.js';
import type { TeamFixture } from '../support/harness.js';
import { ARTIFACTS, axeAtWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { availableRuntimes, confirmationCode, makeContest, makeTeam, type Runtime } from './support/runtimes.js';
import { closeAll, serveShop } from './support/shop.js';

warnIfNoChromium('the widget contest BROWSER tests');

/** the number on one of the visitor's tiles ("Points", "Confirmed friends") */
const tile = (w: Locator, name: string) => w.locator('.tile', { hasText: name }).locator('dd').textContent();
const runtimes = await availableRuntimes('the widget contest BROWSER tests');

/** Tab (forward) until `target` has the focus: it is reachable with the keyboard. */
async function tabTo(page: Page, target: Locator, max = 60) {
  for (let i = 0; i < max; i++) {
    if (
      await target.evaluate((e) =>
        e.getRootNode() instanceof ShadowRoot
          ? (e.getRootNode() as ShadowRoot).activeElement === e
          : document.activeElement === e,
      )
    )
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`not reached with ${max} presses of Tab: ${target}`);
}

describe.skipIf(!CHROMIUM).each(runtimes)('the whole contest in the widget, keyless, on $name', ({ name, start }) => {
  let rt: Runtime;
  let team: TeamFixture;
  let browser: Browser;
  let shop: Server;
  let shopOrigin = '';
  const pages = { share: '', climb: '' };
  const prefix = `widget-${name.toLowerCase()}`;
  const axe = (page: Page, view: string) => axeAtWidths(page, prefix, view);

  beforeAll(async () => {
    rt = await start();
    team = await makeTeam(rt, 'Contest shop');
    ({ server: shop, origin: shopOrigin } = await serveShop(rt.origin, (path) =>
      path.startsWith('/thanks')
        ? { title: 'Thanks', body: '<p>Thanks</p>' }
        : path.startsWith('/climb')
          ? {
              title: 'Climb the board',
              body: `<h1>Climb the board</h1>\n<contest-signup contest="${pages.climb}" leaderboard="5"></contest-signup>`,
            }
          : {
              title: 'Share and win',
              body: `<h1>Share and win</h1>\n<contest-signup contest="${pages.share}"></contest-signup>`,
            },
    ));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await closeAll(shop);
    await rt?.close();
  }, 60_000);

  /** A visitor's browser (it may use the clipboard) and what went wrong on its page. */
  async function visitor() {
    const ctx = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // a sign-up's token, ended by the confirmation on "another device", read by the poll: 401
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    return { ctx, page, problems };
  }

  /** the confirmation link of the last email to `email`, opened in a tab of `ctx` */
  async function confirmIn(ctx: BrowserContext, email: string, close = true) {
    const code = await confirmationCode(rt, email);
    const tab = await ctx.newPage();
    await tab.goto(`${rt.origin}/api/confirm/${code}`);
    await tab
      .locator('contest-signup')
      .getByText(/You are #\d+ of \d+/)
      .waitFor({ timeout: 20_000 });
    if (close) await tab.close();
    return tab;
  }

  it('share buttons right after the sign-up, a click counted, the tab turning by itself, the theme', async () => {
    const c = await makeContest(rt, team, { requireEmailConfirmation: false, title: 'Share and win' });
    pages.share = c.id;
    const patched = await rt.call('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        shareMessage: 'I am in the Acme giveaway, join me: {{link}}',
        shareChannels: ['whatsapp', 'x', 'copy', 'linkedin', 'email', 'telegram'],
        theme: { accent: '#0f766e' },
      },
    });
    expect(patched.status, patched.text).toBe(200);

    const { ctx, page, problems } = await visitor();
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(rt.origin) && !r.url().startsWith(shopOrigin)) elsewhere.push(r.url());
    });
    await page.goto(`${shopOrigin}/`);
    const w = page.locator('contest-signup');
    await w.getByLabel('Email').waitFor({ timeout: 20_000 });
    await axe(page, 'form');
    await w.getByLabel('Email').fill('sharer@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    await w.getByText('A friend counts once both of your emails are confirmed.').waitFor();

    // the buttons, in the contest's order, each the network's share address with the team's message
    const code = (await rt.call('GET', `/api/v1/contests/${c.id}/entries?limit=1`, { key: team.privateKey })).body
      .data[0].referralCode as string;
    const linkOf = (via: string) => `${shopOrigin}/?ref=${code}&via=${via}`;
    const msg = (via: string) => encodeURIComponent(`I am in the Acme giveaway, join me: ${linkOf(via)}`);
    const buttons = await w
      .locator('a.btn[data-channel]')
      .evaluateAll((as) =>
        as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel'), a.getAttribute('target')]),
      );
    const opens = ['noopener noreferrer', '_blank'];
    expect(buttons).toEqual([
      ['WhatsApp', `https://wa.me/?text=${msg('whatsapp')}`, ...opens],
      ['X', `https://x.com/intent/post?text=${msg('x')}`, ...opens],
      [
        'LinkedIn',
        `https://www.linkedin.com/sharing/share-offsite/?url=${encodeURIComponent(linkOf('linkedin'))}`,
        ...opens,
      ],
      ['Email', `mailto:?subject=${encodeURIComponent('Share and win')}&body=${msg('email')}`, ...opens],
      [
        'Telegram',
        `https://t.me/share/url?url=${encodeURIComponent(linkOf('telegram'))}&text=${encodeURIComponent('I am in the Acme giveaway, join me:')}`,
        ...opens,
      ],
    ]);
    // each network's icon (inline, hidden from screen readers: the name is the text) in its colour,
    // its text white or black, whichever reads on it
    const looks = await w
      .locator('a.btn[data-channel]')
      .evaluateAll((as) =>
        as.map((a) => [
          a.getAttribute('data-channel'),
          a.querySelector('svg')?.getAttribute('aria-hidden'),
          getComputedStyle(a).backgroundColor,
          getComputedStyle(a).color,
        ]),
      );
    expect(looks).toEqual([
      ['whatsapp', 'true', 'rgb(37, 211, 102)', 'rgb(0, 0, 0)'],
      ['x', 'true', 'rgb(0, 0, 0)', 'rgb(255, 255, 255)'],
      ['linkedin', 'true', 'rgb(10, 102, 194)', 'rgb(255, 255, 255)'],
      ['email', 'true', 'rgb(75, 85, 99)', 'rgb(255, 255, 255)'],
      ['telegram', 'true', 'rgb(38, 165, 228)', 'rgb(0, 0, 0)'],
    ]);
    // every button in the list's order, Copy where the list puts it; no share sheet: not in the list
    expect(
      await w
        .locator('[role="group"] [data-channel]')
        .evaluateAll((xs) => xs.map((x) => x.getAttribute('data-channel'))),
    ).toEqual(['whatsapp', 'x', 'copy', 'linkedin', 'email', 'telegram']);
    expect(await w.getByLabel('Move up: share your link').inputValue()).toBe(linkOf('copy'));
    await w.getByRole('button', { name: 'Copy link' }).click();
    await w.getByRole('status').filter({ hasText: 'Link copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(linkOf('copy'));
    await axe(page, 'unconfirmed');
    expect(elsewhere).toEqual([]);

    // a click on WhatsApp: counted as a share of that channel (the network's page opens in a new tab)
    const popup = ctx.waitForEvent('page');
    await w.getByRole('link', { name: 'WhatsApp' }).click();
    await (await popup).close().catch(() => {});
    await expect
      .poll(async () => {
        const f = await rt.call('GET', `/api/v1/contests/${c.id}/funnel?interval=hour`, { key: team.privateKey });
        return f.body.data.channels.find((x: { channel: string }) => x.channel === 'whatsapp')?.shares;
      })
      .toBe(1);

    // the confirmation opened in a second tab lands on the contest's hosted page (the shop is not
    // its landing page yet); the first tab keeps its own storage and learns it from its poll: its
    // sign-up token ended, it says so
    await confirmIn(ctx, 'sharer@example.com');
    await w.getByText('Your link to this page has ended', { exact: false }).waitFor({ timeout: 30_000 });

    // with the shop as the landing page, the confirmation in a second tab turns the first one
    await rt.call('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { landingUrl: `${shopOrigin}/` },
    });
    await w.getByLabel('Email').fill('sharer2@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    const third = await confirmIn(ctx, 'sharer2@example.com', false);
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
  }, 120_000);

  it('bonus actions of three kinds (the manual one approved in the console), the ladder moving, leaderboard="5", the look from the console, by keyboard', async () => {
    const c = await makeContest(rt, team, { requireEmailConfirmation: false, mode: 'leaderboard', title: 'Climb' });
    pages.climb = c.id;
    const patched = await rt.call('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        landingUrl: `${shopOrigin}/climb`,
        referral: { advocatePoints: 0, friendPoints: 0 },
      },
    });
    expect(patched.status, patched.text).toBe(200);
    const action = async (body: Record<string, unknown>) => {
      const r = await rt.call('POST', `/api/v1/contests/${c.id}/bonus-actions`, { key: team.privateKey, body });
      expect(r.status, r.text).toBe(201);
      return r.body.data as { id: string };
    };
    await action({
      action: 'follow',
      description: 'Follow us',
      iconColor: '#be123c',
      points: 3,
      confirmationType: 'auto',
      order: 1,
    });
    await action({
      action: 'visit',
      description: 'Visit our shop',
      points: 2,
      confirmationType: 'click',
      destinationUrl: `${shopOrigin}/thanks`,
      order: 2,
    });
    await action({ action: 'quiz', description: 'Name our mascot', points: 5, confirmationType: 'manual', order: 3 });
    for (const body of [
      { name: 'Sticker pack', pointsRequired: 3, code: 'STICKERS3' },
      { name: 'Friend bonus', referralsRequired: 1, code: 'FRIEND1' },
    ]) {
      const r = await rt.call('POST', `/api/v1/contests/${c.id}/rewards`, { key: team.privateKey, body });
      expect(r.status, r.text).toBe(201);
    }
    // six people ahead on the board
    for (let i = 0; i < 6; i++) {
      const e = await rt.call('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: `ahead${i}@example.com`, name: `Ahead ${i}` },
      });
      expect(e.status, e.text).toBe(201);
      const p = await rt.call('POST', `/api/v1/entries/${e.body.data.entryId}/points`, {
        key: team.privateKey,
        body: { points: 100 - i, reason: 'seed' },
      });
      expect(p.status, p.text).toBe(200);
    }

    // the operator sets the look in the console's Embed section: the preview follows as they type
    const op = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const consolePage = await op.newPage();
    await consolePage.goto(`${rt.origin}/console`);
    await consolePage.getByLabel('Private key or admin token').fill(team.privateKey);
    await consolePage.keyboard.press('Enter');
    await consolePage.getByRole('heading', { name: 'Contests' }).waitFor();
    await consolePage.goto(`${rt.origin}/console/contests/${c.id}/embed`);
    const preview = consolePage.frameLocator('iframe.preview').locator('contest-signup');
    await preview.getByRole('button', { name: 'Join' }).waitFor({ timeout: 20_000 });
    const previewAccent = () =>
      preview.getByRole('button', { name: 'Join' }).evaluate((b) => getComputedStyle(b).backgroundColor);
    await consolePage.getByLabel('Accent colour (#rrggbb)').fill('#9d174d');
    await expect.poll(previewAccent).toBe('rgb(157, 23, 77)');
    await consolePage.getByLabel('Corner radius in px (0-32)').fill('4');
    await consolePage.getByLabel('Font').selectOption('serif');
    await consolePage.getByRole('button', { name: 'Save the look' }).click();
    await consolePage.getByText('Saved: every page with the widget shows it.').waitFor();
    const settings = await rt.call('GET', `/api/v1/contests/${c.id}/settings`, { key: team.privateKey });
    expect(settings.body.data.theme).toEqual({ accent: '#9d174d', radius: 4, font: 'serif' });

    // the visitor, with the keyboard only
    const { ctx, page, problems } = await visitor();
    await page.goto(`${shopOrigin}/climb`);
    const w = page.locator('contest-signup');
    const email = w.getByLabel('Email');
    await email.waitFor({ timeout: 20_000 });
    // the look saved in the console, on the shop's page
    const join = w.getByRole('button', { name: 'Join' });
    expect(await join.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(157, 23, 77)');
    const box = w.locator('.cs').first();
    expect(await box.evaluate((b) => getComputedStyle(b).borderRadius)).toBe('4px');
    expect(await box.evaluate((b) => getComputedStyle(b).fontFamily)).toMatch(/^Georgia/);
    await tabTo(page, email);
    await page.keyboard.type('climber@example.com');
    await tabTo(page, join);
    await page.keyboard.press('Enter');
    await w.getByText('Check your inbox').waitFor();
    await confirmIn(ctx, 'climber@example.com');
    await w.getByText(/You are #7 of 7/).waitFor({ timeout: 30_000 });

    // the actions, in order, each with its points; the ladder; the board with the own row
    await w.getByRole('heading', { name: 'More ways to earn' }).waitFor();
    expect(await w.locator('ul.actions li .act').allTextContents()).toEqual([
      'Follow us +3 points',
      'Visit our shop +2 points',
      'Name our mascot +5 points',
    ]);
    await w.getByRole('table', { name: 'Leaderboard' }).waitFor();
    const board = async () =>
      (await w.locator('table.board tbody tr').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect((await board()).length).toBe(6);
    expect((await board()).at(-1)).toBe('7You00');
    expect((await board())[0]).toMatch(/^1A\S* \S+1000$/);
    // a progress bar to the reward the visitor is closest to (both are 100% away: either)
    const bar = w.getByRole('progressbar');
    await bar.waitFor();
    expect(['Progress to Sticker pack', 'Progress to Friend bonus']).toContain(await bar.getAttribute('aria-label'));
    expect(await bar.getAttribute('value')).toBe('0');
    await axe(page, 'status-actions');

    // auto: Enter on its button, points at once, the sticker code unlocked
    await tabTo(page, w.getByRole('button', { name: 'Do it' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => tile(w, 'Points')).toBe('3');
    await w.locator('ol.ladder').getByText('Your code: STICKERS3').waitFor();
    // its code copied with its button, and said so
    await tabTo(page, w.locator('ol.ladder').getByRole('button', { name: 'Copy code' }));
    await page.keyboard.press('Enter');
    await w.locator('ol.ladder').getByRole('status').filter({ hasText: 'Code copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('STICKERS3');
    await w.getByRole('progressbar', { name: 'Progress to Friend bonus' }).waitFor();
    // (each completion draws the actions again: move on once the list shows it done)
    await expect.poll(() => w.locator('ul.actions .done').count()).toBe(1);
    // click: Enter on its link opens the address in a new tab, and completes
    const popup = ctx.waitForEvent('page');
    await tabTo(page, w.getByRole('link', { name: 'Go' }));
    await page.keyboard.press('Enter');
    const opened = await popup;
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${shopOrigin}/thanks`);
    await opened.close();
    await page.bringToFront();
    await expect.poll(() => tile(w, 'Points')).toBe('5');
    await expect.poll(() => w.locator('ul.actions .done').count()).toBe(2);
    // manual: the answer, then "waiting for review" until the team approves it
    await tabTo(page, w.getByLabel('Your answer or a link'));
    await page.keyboard.type('Sparky');
    await page.keyboard.press('Enter');
    await w.getByText('Waiting for review').waitFor();

    // the operator approves it in the console's review queue
    await consolePage.goto(`${rt.origin}/console/contests/${c.id}/review`);
    const completions = consolePage.locator('section[aria-labelledby="completions-h"]');
    await expect.poll(() => completions.textContent(), { timeout: 20_000 }).toContain('Sparky');
    await consolePage.getByRole('checkbox', { name: 'Select climber@example.com for quiz' }).check();
    await completions.getByRole('button', { name: 'Approve selected' }).click();
    await expect.poll(() => completions.textContent()).toContain('Nothing waits for review.');
    await op.close();

    await page.reload();
    await expect.poll(() => tile(w, 'Points')).toBe('10');
    // the actions list arrives in a request of its own after the status: wait for it, then count
    await w.getByRole('heading', { name: 'More ways to earn' }).waitFor();
    expect(await w.locator('ul.actions li').count()).toBe(3);
    expect(await w.locator('ul.actions .done').count()).toBe(3);

    // a friend signs up with the visitor's link (from an address of their own: the referrer's own
    // address would flag it self_referral) and confirms: the ladder's Friend bonus unlocks
    const code = (await w.getByLabel('Move up: share your link').inputValue()).match(/ref=([^&]+)/)![1]!;
    const friend = await rt.call('POST', `/api/v1/contests/${c.id}/signup`, {
      body: { email: 'friend-of-climber@example.com', referralCode: code },
      elsewhere: true,
    });
    expect(friend.status, friend.text).toBe(201);
    const other = await browser.newContext();
    await confirmIn(other, 'friend-of-climber@example.com');
    await other.close();
    await page.reload();
    await w.locator('ol.ladder').getByText('Your code: FRIEND1').waitFor();
    // one count of friends with the ladder's
    await expect.poll(() => tile(w, 'Confirmed friends')).toBe('1');
    // the visitor climbs into the top 5: their row shows once, as "You", in its place
    const top = await rt.call('GET', `/api/v1/contests/${c.id}/leaderboard?limit=10`, { key: team.privateKey });
    const mine = top.body.data.find((r: { email: string }) => r.email === 'climber@example.com');
    const up = await rt.call('POST', `/api/v1/entries/${mine.id}/points`, {
      key: team.privateKey,
      body: { points: 200, reason: 'climb' },
    });
    expect(up.status, up.text).toBe(200);
    await page.reload();
    await expect.poll(() => tile(w, 'Points')).toBe('210');
    await w.getByRole('table', { name: 'Leaderboard' }).waitFor();
    // first of all who count (the six ahead before, and the friend who confirmed): everyone else behind
    const of = Number(/You are #1 of (\d+)/.exec((await w.locator('p.big').textContent()) ?? '')?.[1]);
    expect(of).toBe(8);
    await w.getByText('7 people behind you').waitFor();
    await expect.poll(async () => (await board()).filter((r) => r.includes('You'))).toEqual(['1You2101']);
    expect(await board()).toHaveLength(5);
    expect((await board())[1]).toMatch(/^2A\S* \S+1000$/);
    await axe(page, 'ladder');
    expect(problems).toEqual([]);
    await ctx.close();
    // docs/signups.md's screenshots of the views, from the Node run, when the widget changed
    if (name === 'Node') refreshShots(WIDGET_SHOTS, ARTIFACTS);
  }, 180_000);
});
