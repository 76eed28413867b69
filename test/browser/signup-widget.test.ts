/**
 * The sign-up widget in a real headless Chromium against the real app (createApp served by
 * @hono/node-server), embedded in a page of ANOTHER origin under a strict Content-Security-Policy
 * (scripts and requests only to the API's origin, no inline style): a visitor arrives with
 * `?ref=CODE`, signs up with consent, is told to check their inbox, confirms, and on their next
 * visit sees their position of total, points, referrals and their own share link. axe-core runs
 * on the form and on the visitor's page at 320, 390 and 1280 px: 0 serious or critical violations.
 */
import type { Server } from 'node:http';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, queryOne, type TeamFixture, type TestEnv } from '../support/harness.js';
import { axeAtWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { closeAll, serveApp, serveShop } from './support/shop.js';

warnIfNoChromium('the sign-up widget BROWSER tests');

describe.skipIf(!CHROMIUM)('the sign-up widget in a real browser, on a page of another origin', () => {
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
    team = await env.team('Waitlist shop');
    ({ server: api, origin: apiOrigin } = await serveApp(env));
    ({ server: shop, origin: shopOrigin } = await serveShop(apiOrigin, () => ({
      title: 'Join the waitlist',
      body: `<h1>Acme waitlist</h1>\n<contest-signup contest="${contestId}" api-key="${team.publicKey}"></contest-signup>`,
    })));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await closeAll(api, shop);
    await env?.close();
  });

  const axe = (page: Page, name: string) => axeAtWidths(page, 'signup', name);

  it('a visitor with ?ref= signs up, confirms, and sees their position and their share link', async () => {
    const c = await env.contest(team.teamId, {
      requireEmailConfirmation: false,
      mode: 'waitlist',
      title: 'Acme early access',
    });
    contestId = c.id;
    const patched = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        consentText: 'I agree to hear from Acme about early access.',
        landingUrl: `${shopOrigin}/`,
        // the shop's pages: the visitor is brought back to the one they signed up on
        allowedOrigins: [shopOrigin],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    // someone already there, whose link the visitor follows
    const friend = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
      key: team.privateKey,
      body: { email: 'friend@example.com', consent: true },
    });
    expect(friend.status, friend.text).toBe(201);
    const friendCode = friend.body.data.referralCode as string;

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${shopOrigin}/join?ref=${friendCode}`);
    const w = page.locator('contest-signup');
    await w.getByRole('heading', { name: 'Acme early access' }).waitFor();
    await axe(page, 'form');

    // keyboard only: the email, the consent, then Join
    await w.getByLabel('Email').fill('visitor@example.com');
    await w.getByLabel('I agree to hear from Acme about early access.').check();
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    const entry = await queryOne<{ id: string; referred_by: string; email_confirmed: boolean; return_url: string }>(
      env.db,
      sql`select id, referred_by, email_confirmed, return_url from entries where email = 'visitor@example.com'`,
    );
    // the page's address, without the friend's ref
    expect(entry).toMatchObject({
      referred_by: friend.body.data.entryId,
      email_confirmed: false,
      return_url: `${shopOrigin}/join`,
    });

    // the confirmation link from the email, opened in another tab: it leads back to the shop with
    // a fresh token, and the first tab (still open) turns to the visitor's place without a reload
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'visitor@example.com')!;
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const answerToken = await page.evaluate((k) => localStorage.getItem(k), `ce-entry:${c.id}`);
    const second = await ctx.newPage();
    await second.goto(`${apiOrigin}/api/confirm/${confirm}`);
    await second
      .locator('contest-signup')
      .getByText(/You are #\d+ of \d+/)
      .waitFor();
    expect(new URL(second.url()).origin).toBe(shopOrigin);
    // back on the page of the sign-up, not the landing page
    expect(new URL(second.url()).pathname).toBe('/join');
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    const fresh = await page.evaluate((k) => localStorage.getItem(k), `ce-entry:${c.id}`);
    // two pages of the contest in one browser on one day: one view (the funnel's first step);
    // the second page's requests have all been answered
    await second.waitForLoadState('networkidle');
    const views = async () =>
      (await queryOne<{ n: number; total: number }>(
        env.db,
        sql`select (select count(*)::int from page_views where contest_id = ${c.id}) as n,
              (select views_count::int from contests where id = ${c.id}) as total`,
      ))!;
    await expect.poll(views).toEqual({ n: 1, total: 1 });
    expect(fresh).toMatch(/^et_[A-Za-z0-9]{40}$/);
    expect(fresh).not.toBe(answerToken);
    await second.close();

    // rewards: one the visitor reaches with 10 points (its code shown), one still ahead
    for (const body of [
      { name: 'Welcome gift', description: 'A tote bag, on us.', pointsRequired: 10, code: 'WELCOME10' },
      { name: 'Founding member', referralsRequired: 2 },
    ]) {
      const r = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, { key: team.privateKey, body });
      expect(r.status, r.text).toBe(201);
    }
    const adj = await env.request('POST', `/api/v1/entries/${entry!.id}/points`, {
      key: team.privateKey,
      body: { points: 10, reason: 'welcome' },
    });
    expect(adj.status).toBe(200);

    // the next visit: the widget remembers the visitor and shows their place and rewards
    await page.goto(`${shopOrigin}/`);
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    expect(await w.getByText(/You are #/).textContent()).toBe('You are #1 of 2');
    // the reward ladder, once: the code won, and the next reward with how far it is
    await w.getByRole('heading', { name: 'Rewards' }).waitFor();
    // (in the rewards list's order: the friends' rewards first, then by threshold)
    expect((await w.locator('ol.ladder li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'Founding member · 2 confirmed friends 2 more confirmed friends to unlock Founding member',
      'Welcome gift · 10 points · Unlocked A tote bag, on us. Your code: WELCOME10 Copy code',
    ]);
    // the unlocked moment: highlighted the first time this browser sees it, not again
    expect(await w.locator('ol.ladder li.unlocked.fresh').count()).toBe(1);
    await page.reload();
    await w.getByRole('heading', { name: 'Rewards' }).waitFor();
    expect(await w.locator('ol.ladder li.unlocked').count()).toBe(1);
    expect(await w.locator('ol.ladder li.fresh').count()).toBe(0);
    expect(await w.getByText('2 more confirmed friends to unlock Founding member').count()).toBe(1);
    const link = await w.getByLabel('Move up: share your link').inputValue();
    const own = await queryOne<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where email = 'visitor@example.com'`,
    );
    expect(link).toBe(`${shopOrigin}/?ref=${own!.referral_code}&via=copy`);
    await axe(page, 'status');
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('picks up the token of a #ce-entry= link and takes it off the address bar', async () => {
    const r = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
      key: team.privateKey,
      body: { email: 'linked@example.com', consent: true },
    });
    expect(r.status, r.text).toBe(201);
    await queryOne(env.db, sql`update entries set email_confirmed = true where id = ${r.body.data.entryId}`);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${shopOrigin}/#ce-entry=${r.body.data.entryToken}`);
    await page
      .locator('contest-signup')
      .getByText(/You are #\d+ of 3/)
      .waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.evaluate((k) => localStorage.getItem(k), `ce-entry:${contestId}`)).toBe(r.body.data.entryToken);
    await ctx.close();
  });

  it('takes up a #ce-entry= link opened in a tab that already shows the form, without a reload', async () => {
    const r = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
      key: team.privateKey,
      body: { email: 'same-tab@example.com', consent: true },
    });
    expect(r.status, r.text).toBe(201);
    await queryOne(env.db, sql`update entries set email_confirmed = true where id = ${r.body.data.entryId}`);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const w = page.locator('contest-signup');
    await page.goto(`${shopOrigin}/`);
    await w.getByLabel('Email').waitFor();
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    // the email's link, opened in this tab: only the fragment changes
    await page.goto(`${shopOrigin}/#ce-entry=${r.body.data.entryToken}`);
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(new URL(page.url()).hash).toBe('');
    await ctx.close();
  });

  it('an email already entered: the widget says a link was emailed only when one was', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const w = page.locator('contest-signup');
    const sentLinks = () =>
      env.sent.filter((m) => m.to === 'repeat@example.com' && /already entered/.test(m.text)).length;
    const r = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
      key: team.privateKey,
      body: { email: 'repeat@example.com', consent: true },
    });
    expect(r.status, r.text).toBe(201);
    await page.goto(`${shopOrigin}/`);
    const join = async () => {
      await w.getByLabel('Email').fill('repeat@example.com');
      await w.getByLabel('I agree to hear from Acme about early access.').check();
      await w.getByRole('button', { name: 'Join' }).press('Enter');
    };
    await join();
    await w.getByText('You are already in. We emailed you a link to your page.').waitFor();
    await env.settle();
    expect(sentLinks()).toBe(1);
    // again within 10 minutes: nothing is sent, and the widget does not say it was
    await join();
    await w.getByText('You are already in. A link to your page was emailed to you a few minutes ago').waitFor();
    await env.settle();
    expect(sentLinks()).toBe(1);
    await ctx.close();
  });

  it('asks before switching to the entry of a link for another entry, and says so when its own link ended', async () => {
    const mk = async (email: string) => {
      const r = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
        key: team.privateKey,
        body: { email, consent: true },
      });
      expect(r.status, r.text).toBe(201);
      await queryOne(env.db, sql`update entries set email_confirmed = true where id = ${r.body.data.entryId}`);
      return r.body.data.entryToken as string;
    };
    const mine = await mk('mine@example.com');
    const theirs = await mk('stranger@example.com');
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const w = page.locator('contest-signup');
    const stored = () => page.evaluate((k) => localStorage.getItem(k), `ce-entry:${contestId}`);
    await page.goto(`${shopOrigin}/#ce-entry=${mine}`);
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    // a stranger's link: whose entry, masked, and nothing switched until the visitor says so
    await page.goto(`${shopOrigin}/?x=1#ce-entry=${theirs}`);
    await w.getByText('This link opens the entry of s***@example.com. Switch to it?').waitFor();
    expect(await stored()).toBe(mine);
    await axe(page, 'switch');
    await w.getByRole('button', { name: 'Keep my entry' }).press('Enter');
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    expect(await stored()).toBe(mine);
    await page.goto(`${shopOrigin}/?x=2#ce-entry=${theirs}`);
    await w.getByRole('button', { name: 'Switch' }).press('Enter');
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    expect(await stored()).toBe(theirs);
    // its token ended (here: the entry's tokens were taken away): the widget says so and offers the form
    await queryOne(
      env.db,
      sql`delete from entry_tokens where token_hash = encode(sha256(convert_to(${theirs}, 'UTF8')), 'hex')`,
    );
    await page.goto(`${shopOrigin}/?x=3`);
    await w.getByText(/Your link to this page has ended/).waitFor();
    await w.getByLabel('Email').waitFor();
    expect(await stored()).toBeNull();
    await ctx.close();
  });
});
