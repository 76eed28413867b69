/**
 * The visitor's whole contest in the widget, keyless, in a real headless Chromium on a page of
 * another origin under a strict CSP: the bonus actions of the three kinds (auto on a click, click
 * opening its address and completing, manual waiting for the team's review, then approved), points
 * at once, the reward ladder (a code unlocked by points, a progress bar to the next, which moves
 * when a friend confirms), and `leaderboard="5"` with the visitor's own row below the top five.
 * axe-core: 0 serious or critical violations at 320 and 1280 px.
 */
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBonusAction } from '../../src/admin/admin.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../support/harness.js';
import { axeAtTwoWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { closeAll, serveApp, serveShop } from './support/shop.js';

warnIfNoChromium('the widget contest BROWSER tests');

describe.skipIf(!CHROMIUM)('the whole contest in the widget, keyless', () => {
  let env: TestEnv;
  let team: TeamFixture;
  let browser: Browser;
  let api: Server;
  let shop: Server;
  let apiOrigin = '';
  let shopOrigin = '';
  let contestId = '';
  const axe = (page: Page, name: string) => axeAtTwoWidths(page, 'widget', name);

  beforeAll(async () => {
    env = await createTestEnv();
    team = await env.team('Contest shop');
    ({ server: api, origin: apiOrigin } = await serveApp(env));
    ({ server: shop, origin: shopOrigin } = await serveShop(apiOrigin, (path) =>
      path.startsWith('/thanks')
        ? { title: 'Thanks', body: '<p>Thanks</p>' }
        : {
            title: 'Climb the board',
            body: `<h1>Climb the board</h1>\n<contest-signup contest="${contestId}" leaderboard="5"></contest-signup>`,
          },
    ));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await closeAll(api, shop);
    await env?.close();
  });

  async function confirmIn(ctx: import('playwright-core').BrowserContext, email: string) {
    await env.settle();
    const mail = env.sent.filter((m) => m.to === email).at(-1)!;
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const tab = await ctx.newPage();
    await tab.goto(`${apiOrigin}/api/confirm/${code}`);
    await tab
      .locator('contest-signup')
      .getByText(/You are #\d+ of \d+/)
      .waitFor();
    await tab.close();
  }

  it('bonus actions of three kinds, the reward ladder moving, leaderboard="5" with the own row', async () => {
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false, mode: 'leaderboard' });
    contestId = c.id;
    const patched = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { publicSignup: true, landingUrl: `${shopOrigin}/`, referral: { advocatePoints: 0, friendPoints: 0 } },
    });
    expect(patched.status, patched.text).toBe(200);
    const auto = await createBonusAction(env.db, c.id, {
      action: 'follow',
      description: 'Follow us',
      iconColor: '#be123c',
      points: 3,
      confirmationType: 'auto',
      order: 1,
    });
    await createBonusAction(env.db, c.id, {
      action: 'visit',
      description: 'Visit our shop',
      points: 2,
      confirmationType: 'click',
      destinationUrl: `${shopOrigin}/thanks`,
      order: 2,
    });
    const manual = await createBonusAction(env.db, c.id, {
      action: 'quiz',
      description: 'Name our mascot',
      points: 5,
      confirmationType: 'manual',
      order: 3,
    });
    for (const body of [
      { name: 'Sticker pack', pointsRequired: 3, code: 'STICKERS3' },
      { name: 'Friend bonus', referralsRequired: 1, code: 'FRIEND1' },
    ]) {
      const r = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, { key: team.privateKey, body });
      expect(r.status, r.text).toBe(201);
    }
    // six people ahead on the board
    for (let i = 0; i < 6; i++) {
      const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: `ahead${i}@example.com`, name: `Ahead ${i}` },
      });
      await env.request('POST', `/api/v1/entries/${e.body.data.entryId}/points`, {
        key: team.privateKey,
        body: { points: 100 - i, reason: 'seed' },
      });
    }

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`${shopOrigin}/`);
    const w = page.locator('contest-signup');
    await w.getByLabel('Email').fill('climber@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    await confirmIn(ctx, 'climber@example.com');
    await w.getByText(/You are #7 of 7/).waitFor();

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

    // auto: a click, points at once, the sticker code unlocked
    await w.getByRole('button', { name: 'Do it' }).click();
    await w.getByText('Points: 3').waitFor();
    await w.locator('ol.ladder').getByText('Your code: STICKERS3').waitFor();
    await w.getByRole('progressbar', { name: 'Progress to Friend bonus' }).waitFor();
    // click: opens its address in a new tab, and completes
    const popup = ctx.waitForEvent('page');
    await w.getByRole('link', { name: 'Go' }).click();
    const opened = await popup;
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${shopOrigin}/thanks`);
    await opened.close();
    await w.getByText('Points: 5').waitFor();
    // manual: the answer, then "waiting for review" until the team approves it
    await w.getByLabel('Your answer or a link').fill('Sparky');
    await w.getByRole('button', { name: 'Send' }).click();
    await w.getByText('Waiting for review').waitFor();
    const me = await env.request('GET', `/api/v1/contests/${c.id}/entries?search=climber@example.com`, {
      key: team.privateKey,
    });
    const entryId = me.body.data[0].entryId ?? me.body.data[0].id;
    const verified = await env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${manual.id}/verify`, {
      key: team.privateKey,
      body: { approve: true },
    });
    expect(verified.status, verified.text).toBe(200);
    await page.reload();
    await w.getByText('Points: 10').waitFor();
    // the actions list arrives in a request of its own after the status: wait for it, then count
    await w.getByRole('heading', { name: 'More ways to earn' }).waitFor();
    expect(await w.locator('ul.actions li').count()).toBe(3);
    expect(await w.locator('ul.actions .done').count()).toBe(3);
    expect(auto.id).toBeTruthy();

    // a friend signs up with the visitor's link and confirms: the ladder's Friend bonus unlocks
    const code = (await w.getByLabel('Move up: share your link').inputValue()).match(/ref=([^&]+)/)![1]!;
    // (from an address of its own: the same address as the referrer's would flag it self_referral)
    const friend = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
      body: { email: 'friend-of-climber@example.com', referralCode: code },
      headers: { 'x-forwarded-for': '198.51.100.77' },
    });
    expect(friend.status, friend.text).toBe(201);
    const other = await browser.newContext();
    await confirmIn(other, 'friend-of-climber@example.com');
    await other.close();
    await page.reload();
    await w.locator('ol.ladder').getByText('Your code: FRIEND1').waitFor();
    await axe(page, 'ladder');
    expect(problems).toEqual([]);
    await ctx.close();
  }, 120_000);
});
