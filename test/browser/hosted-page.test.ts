/**
 * A contest's hosted page (GET /c/{contestId}) in a real headless Chromium against the real app:
 * the page renders the widget without a key under its own CSP (no violation), a share link's
 * visit is counted once per browser, the visitor signs up with the channel of the link, confirms
 * by the email's link and lands back on the page with their place. axe-core at 320, 390 and 1280 px:
 * 0 serious or critical violations on the form and on the visitor's place.
 */
import type { Server } from 'node:http';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qrSvg } from '../../src/lib/qr.js';
import { HOSTED_SHOTS, refreshShots } from '../support/docs-shots.js';
import { createTestEnv, queryOne, type TeamFixture, type TestEnv } from '../support/harness.js';
import { ARTIFACTS, axeAtWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { closeAll, serveApp } from './support/shop.js';

warnIfNoChromium('the hosted page BROWSER tests');

describe.skipIf(!CHROMIUM)('the hosted page in a real browser', () => {
  let env: TestEnv;
  let team: TeamFixture;
  let browser: Browser;
  let api: Server;
  let origin = '';

  beforeAll(async () => {
    env = await createTestEnv();
    team = await env.team('Hosted');
    // the page's own links (og:url, the confirmation's redirect) point at this server
    ({ server: api, origin } = await serveApp(env));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await closeAll(api);
    await env?.close();
  });

  const axe = (page: Page, name: string) => axeAtWidths(page, 'hosted', name);

  it('renders the widget without a key, counts the visit once, signs up with the channel, confirms back to the page', async () => {
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false, title: 'Hosted giveaway' });
    // ends in two days for both the server's clock and the browser's
    const endDate = new Date(Math.max(env.clock.now().getTime(), Date.now()) + 2 * 86_400_000);
    const patched = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        description: 'Sign up and share your link to move up.',
        theme: { accent: '#0f766e', radius: 8 },
        isEvergreen: false,
        endDate: endDate.toISOString(),
        pageLeaderboard: 5,
        rulesUrl: 'https://acme.example/rules',
        privacyUrl: 'https://acme.example/privacy',
      },
    });
    expect(patched.status, patched.text).toBe(200);
    // a prize, shown by the page (no image: nothing is loaded from another host)
    const prize = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
      key: team.privateKey,
      body: { name: 'Tote bag', description: 'Our canvas tote.', referralsRequired: 2 },
    });
    expect(prize.status, prize.text).toBe(201);
    const friend = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'hosted-friend@example.com' },
    });
    const code = friend.body.data.referralCode as string;
    const visits = async () =>
      (await queryOne<{ n: number }>(
        env.db,
        sql`select count(*)::int as n from link_visits where contest_id = ${c.id}`,
      ))!.n;

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // after the confirmation the widget reads the token it kept (the sign-up's, ended by the
      // confirmation: 401, which Chromium logs) before it takes the link's fresh one
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    const other: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) other.push(r.url());
    });
    await page.goto(`${origin}/c/${c.id}?ref=${code}&via=whatsapp`);
    expect(await page.title()).toBe('Hosted giveaway');
    const w = page.locator('contest-signup');
    await w.getByLabel('Email').waitFor();
    // the end date in the browser's words, and the time left counting down each second
    const ends = page.locator('time[data-ce-ends]');
    expect(await ends.getAttribute('datetime')).toBe(endDate.toISOString());
    await expect.poll(() => ends.textContent()).not.toMatch(/UTC$/);
    const left = page.locator('[data-ce-countdown]');
    await expect.poll(() => left.textContent()).toMatch(/^ \((1 day|2 days) \d\d:\d\d:\d\d left\)$/);
    const first = await left.textContent();
    await expect.poll(() => left.textContent()).not.toBe(first);
    expect(await left.getAttribute('aria-hidden')).toBe('true');
    await page.getByRole('heading', { name: 'Prizes' }).waitFor();
    // the leaderboard section: the one entry that counts, its name masked (it has none)
    expect(await page.locator('.board tbody tr').allTextContents()).toEqual(['1Someone0']);
    expect(await page.locator('.prizes li').allTextContents()).toEqual([
      'Tote bagOur canvas tote.Unlocks at 2 confirmed friends',
    ]);
    // the footer's links, reachable by name (axe checks their contrast on the themed page)
    await page
      .getByRole('navigation', { name: 'Rules and privacy' })
      .getByRole('link', { name: 'Official rules' })
      .waitFor();
    await axe(page, 'form');
    await expect.poll(visits).toBe(1);
    const stored = await queryOne<{ channel: string; entry_id: string }>(
      env.db,
      sql`select channel, entry_id from link_visits where contest_id = ${c.id}`,
    );
    expect(stored).toEqual({ channel: 'whatsapp', entry_id: friend.body.data.entryId });
    // the same link again in this browser: not counted twice
    await page.reload();
    await w.getByLabel('Email').waitFor();
    await page.waitForTimeout(200);
    expect(await visits()).toBe(1);

    await w.getByLabel('Email').fill('hosted-visitor@example.com');
    await w.getByRole('button', { name: 'Join' }).press('Enter');
    await w.getByText('Check your inbox').waitFor();
    const entry = await queryOne<{ channel: string; referred_by: string }>(
      env.db,
      sql`select channel, referred_by from entries where email = 'hosted-visitor@example.com'`,
    );
    expect(entry).toEqual({ channel: 'whatsapp', referred_by: friend.body.data.entryId });

    await env.settle();
    const mail = env.sent.find((m) => m.to === 'hosted-visitor@example.com')!;
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    await page.goto(`${origin}/api/confirm/${confirm}`);
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/c/${c.id}`);
    expect(new URL(page.url()).hash).toBe('');
    await axe(page, 'status');
    expect(problems).toEqual([]);
    expect(other).toEqual([]);
    await ctx.close();
  });

  it('a dark theme with the contest own fields: each state (form, unconfirmed, status, unlocked, ended) passes axe at 320, 390 and 1280 px', async () => {
    const c = await env.contest(team.teamId, { title: 'Night market' });
    const patched = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        description: 'Tell us about your shop and win a stall.',
        theme: { background: '#111827', text: '#f9fafb', accent: '#a78bfa', radius: 12 },
        consentText: 'I agree to receive emails about the market.',
        signupFields: [
          { key: 'shop', label: 'Your shop', type: 'text', required: true },
          { key: 'kind', label: 'What you sell', type: 'select', options: ['Food', 'Crafts', 'Books'], required: true },
          { key: 'opening', label: 'Opening day', type: 'date' },
          { key: 'newsletter', label: 'Send me the market letter', type: 'checkbox' },
        ],
        privacyUrl: 'https://acme.example/privacy',
      },
    });
    expect(patched.status, patched.text).toBe(200);
    const prize = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
      key: team.privateKey,
      body: { name: 'Free stall', description: 'A stall for one night.', pointsRequired: 50, code: 'STALL50' },
    });
    expect(prize.status, prize.text).toBe(201);

    const ctx = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${origin}/c/${c.id}`);
    const w = page.locator('contest-signup');
    await w.getByLabel('Your shop').waitFor();
    const dark = (view: string) => axeAtWidths(page, 'hosted-dark', view);
    await dark('form');

    // a required field left empty: said in the widget's words, focused, nothing sent
    await w.getByLabel('Email', { exact: true }).fill('stall@example.com');
    await w.getByRole('button', { name: 'Join' }).click();
    await w.getByText('Please fill in “Your shop”.').waitFor();
    expect(await w.getByLabel('Your shop').evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement)).toBe(
      true,
    );
    await w.getByLabel('Your shop').fill('Pickles & Co');
    await w.getByLabel('What you sell').selectOption('Food');
    await w.getByLabel('Opening day (optional)').fill('2027-03-14');
    await w.getByLabel('I agree to receive emails about the market.').check();
    await w.getByRole('button', { name: 'Join' }).click();
    await w.getByText('Check your inbox').waitFor();
    const entry = await queryOne<{ custom_field_data: unknown }>(
      env.db,
      sql`select custom_field_data from entries where email = 'stall@example.com'`,
    );
    expect(entry?.custom_field_data).toEqual({ shop: 'Pickles & Co', kind: 'Food', opening: '2027-03-14' });
    await dark('unconfirmed');

    await env.settle();
    const mail = env.sent.find((m) => m.to === 'stall@example.com')!;
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    await page.goto(`${origin}/api/confirm/${confirm}`);
    await w.getByText(/You are #\d+ of \d+/).waitFor();
    // the visitor's short link as a QR code, drawn in the browser when opened, with its download
    const code = (await queryOne<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where email = 'stall@example.com'`,
    ))!.referral_code;
    const short = `${origin}/r/${code}`;
    await w.getByText('QR code', { exact: true }).click();
    const qr = w.getByRole('img', { name: 'QR code of your link' });
    await qr.waitFor();
    const expected = qrSvg(short, 'QR code of your link');
    expect(await qr.locator('path').getAttribute('d')).toBe(/ d="([^"]+)"/.exec(expected)![1]);
    expect(await w.getByRole('link', { name: 'Download the QR code' }).getAttribute('href')).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(expected)}`,
    );
    expect(await w.locator('.qr code').textContent()).toBe(short);
    await dark('status');

    // a friend's browser opens the short link: the page with ref and via, the visit counted once
    // at the redirect (the widget counts no second one), and not again on a second opening
    const counted = async () =>
      (await queryOne<{ n: number }>(
        env.db,
        sql`select count(*)::int as n from link_visits v join entries e on e.id = v.entry_id where e.referral_code = ${code}`,
      ))!.n;
    const friendCtx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const friend = await friendCtx.newPage();
    const sentVisits: string[] = [];
    friend.on('request', (r) => {
      if (r.url().endsWith('/visits')) sentVisits.push(r.url());
    });
    // the widget sends its view, then (were it to count the visit again) the visit, in one go
    const viewed = friend.waitForResponse((r) => r.url().endsWith('/views'));
    await friend.goto(`${short}?via=whatsapp`);
    await viewed;
    await friend.locator('contest-signup').getByLabel('Your shop').waitFor();
    expect(friend.url()).toBe(`${origin}/c/${c.id}?ref=${code}&via=whatsapp`);
    expect(sentVisits).toEqual([]);
    expect(await counted()).toBe(1);
    await friend.goto(`${short}?via=whatsapp`);
    await friend.locator('contest-signup').getByLabel('Your shop').waitFor();
    expect(sentVisits).toEqual([]);
    expect(await counted()).toBe(1);
    await friendCtx.close();

    const id = (await queryOne<{ id: string }>(env.db, sql`select id from entries where email = 'stall@example.com'`))!
      .id;
    const up = await env.request('POST', `/api/v1/entries/${id}/points`, {
      key: team.privateKey,
      body: { points: 50, reason: 'stall' },
    });
    expect(up.status, up.text).toBe(200);
    await page.reload();
    await w.getByText('Your code: STALL50').waitFor();
    await dark('unlocked');

    const ended = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { status: 'ended' },
    });
    expect(ended.status, ended.text).toBe(200);
    await page.reload();
    await page.getByText('This contest has ended').waitFor();
    await dark('ended');
    expect(problems).toEqual([]);
    await ctx.close();
    refreshShots(HOSTED_SHOTS, ARTIFACTS);
  });
});
