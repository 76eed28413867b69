/**
 * The hosted page on both runtimes (npm start, and the Worker as npm run dev runs it) in Chromium:
 * a contest's own question asked and its answer kept, the confirmation back to the page, the QR
 * code of the short link drawn, and a friend who opens the short link counted once. axe-core at
 * 320, 390 and 1280 px on the form and the visitor's page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamFixture } from '../support/harness.js';
import { axeAtWidths } from './support/axe.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { availableRuntimes, confirmationCode, makeContest, makeTeam, type Runtime } from './support/runtimes.js';

warnIfNoChromium('the hosted page on both runtimes BROWSER tests');
const runtimes = await availableRuntimes('the hosted page BROWSER tests');

describe.skipIf(!CHROMIUM).each(runtimes)('the hosted page on $name', ({ name, start }) => {
  let rt: Runtime;
  let team: TeamFixture;
  let browser: Browser;
  const axe = (page: Page, view: string) => axeAtWidths(page, `hosted-${name.toLowerCase()}`, view);

  beforeAll(async () => {
    rt = await start();
    team = await makeTeam(rt, 'Hosted on both');
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await rt?.close();
  }, 60_000);

  it('asks its own question, keeps the answer, confirms back to the page, draws the QR code; the short link counts one visit', async () => {
    const c = await makeContest(rt, team, { title: 'Both runtimes' });
    const patched = await rt.call('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: {
        publicSignup: true,
        theme: { accent: '#0f766e' },
        signupFields: [{ key: 'team', label: 'Your team', type: 'select', options: ['Red', 'Blue'], required: true }],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    const email = `both-${name.toLowerCase()}@example.com`;

    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`${rt.origin}/c/${c.id}`);
    const w = page.locator('contest-signup');
    await w.getByLabel('Your team').waitFor({ timeout: 20_000 });
    await axe(page, 'form');
    await w.getByLabel('Email', { exact: true }).fill(email);
    await w.getByRole('button', { name: 'Join' }).click();
    await w.getByText('Please fill in “Your team”.').waitFor();
    await w.getByLabel('Your team').selectOption('Blue');
    await w.getByRole('button', { name: 'Join' }).click();
    await w.getByText('Check your inbox').waitFor();
    const entries = await rt.call('GET', `/api/v1/contests/${c.id}/entries?limit=5`, { key: team.privateKey });
    const entry = entries.body.data.find((e: { email: string }) => e.email === email);
    const detail = await rt.call('GET', `/api/v1/entries/${entry.id}`, { key: team.privateKey });
    expect(detail.body.data.customFieldData).toEqual({ team: 'Blue' });

    const code = await confirmationCode(rt, email);
    await page.goto(`${rt.origin}/api/confirm/${code}`);
    await w.getByText(/You are #\d+ of \d+/).waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).toBe(`/c/${c.id}`);
    await w.getByText('QR code', { exact: true }).click();
    await w.getByRole('img', { name: 'QR code of your link' }).waitFor();
    const short = await w.locator('.qr code').textContent();
    expect(short).toMatch(new RegExp(`/r/${entry.referralCode}$`));
    await axe(page, 'status');

    // a friend opens the short link: the page with ref, one visit counted at the redirect
    const friendCtx = await browser.newContext();
    const friend = await friendCtx.newPage();
    const visitsSent: string[] = [];
    friend.on('request', (r) => {
      if (r.url().endsWith('/visits')) visitsSent.push(r.url());
    });
    const viewed = friend.waitForResponse((r) => r.url().endsWith('/views'));
    await friend.goto(`${short}?via=x`);
    await viewed;
    await friend.locator('contest-signup').getByLabel('Your team').waitFor();
    expect(new URL(friend.url()).searchParams.get('ref')).toBe(entry.referralCode);
    expect(visitsSent).toEqual([]);
    const funnel = await rt.call('GET', `/api/v1/contests/${c.id}/funnel?interval=hour`, { key: team.privateKey });
    expect(funnel.body.data.totals.visits).toBe(1);
    await friendCtx.close();
    expect(problems).toEqual([]);
    await ctx.close();
  }, 180_000);
});
