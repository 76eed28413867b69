/**
 * A new user connects Klaviyo from the console and sees a confirmed sign-up arrive, in a real
 * Chromium driven by the keyboard, against `npm start` (Node, PGlite) and `npm run dev` (the
 * Worker in workerd, a fresh database on the local Postgres), whose providers are the local
 * stand-ins (KLAVIYO_API_URL …) and whose every-minute job runs every second (JOBS_INTERVAL_MS):
 * a key of the wrong shape refused in a sentence, a refused key failing the connection test in
 * Klaviyo's words, the right one passing; the person at the stand-in and in the deliveries log;
 * the existing entries sent again with their progress; axe at 1280 and 390 px on both pages.
 * Skipped, loudly, without Chromium (and the Worker's run without a reachable Postgres).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderStandIns, STAND_IN_CONNECTIONS, seededStandIns } from '../support/stand-ins/providers.js';
import { CHROMIUM, launchChromium, warnIfNoChromium, watchedPage } from './support/chromium.js';
import { api, checkPage } from './support/console-scenario.js';
import { DEV_BASE_URL as pgBase, type Server, startDevServer, startServer } from './support/dev-server.js';
import { pgReachable } from './support/net.js';

warnIfNoChromium('the console integrations BROWSER test');
const hasPostgres = CHROMIUM ? await pgReachable(pgBase) : false;
if (CHROMIUM && !hasPostgres)
  console.warn(
    `\n*** No Postgres at ${new URL(pgBase).host}: the Integrations console test under the Worker (npm run dev) is SKIPPED. ***\n`,
  );

describe.skipIf(!CHROMIUM)('Integrations in the console, in Chromium', () => {
  let browser: Browser;
  let stand: ProviderStandIns;
  beforeAll(async () => {
    browser = await launchChromium();
    stand = await seededStandIns();
  });
  afterAll(async () => {
    await browser?.close();
    await stand?.close();
  });

  const runtimes: [string, boolean, (env: Record<string, string>) => Promise<Server>][] = [
    ['node', true, (env) => startServer('src/node.ts', { PGLITE_DIR: 'memory://', ...env })],
    ['worker', hasPostgres, (env) => startDevServer(env)],
  ];
  it.each(runtimes)(
    'connect Klaviyo, test it, and see a confirmed sign-up arrive (%s)',
    async (runtime, runs, start) => {
      if (!runs) return;
      const server = await start({
        INTEGRATIONS_KEY: Buffer.alloc(32, 9).toString('base64'),
        KLAVIYO_API_URL: stand.url,
        MAILCHIMP_API_URL: stand.url,
        HUBSPOT_API_URL: stand.url,
        JOBS_INTERVAL_MS: '1000',
      });
      const origin = server.origin;
      const axe: Record<string, number> = {};
      const { ctx, page, problems } = await watchedPage(browser, origin);
      try {
        const team = await api(origin, 'POST', '/api/admin/teams', { body: { name: 'Acme' } });
        const teamId = team.body.data.id as string;
        const privateKey = (
          await api(origin, 'POST', `/api/admin/teams/${teamId}/api-keys`, { body: { type: 'private' } })
        ).body.data.key as string;
        const contest = await api(origin, 'POST', '/api/v1/contests', {
          key: privateKey,
          body: { title: 'Launch waitlist', status: 'active', requireEmailConfirmation: false },
        });
        expect(contest.status).toBe(201);

        await page.goto(`${origin}/console`);
        await page.getByLabel('Private key or admin token').fill(privateKey);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Contests' }).waitFor();
        await page.getByRole('link', { name: 'Integrations' }).press('Enter');
        await page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
        await checkPage(page, runtime, 'integrations-empty', axe);

        // a key of the wrong shape: the API's sentence, nothing made
        await page.getByLabel('Tool', { exact: true }).selectOption('klaviyo');
        await page.getByLabel('Private API key').fill('not-a-key');
        await page.getByLabel('List ID').fill(STAND_IN_CONNECTIONS.klaviyo.target.listId);
        await page.getByLabel('List ID').press('Enter');
        await expect
          .poll(() => page.locator('form [role="alert"]').textContent())
          .toBe('credentials.apiKey must be a Klaviyo private API key (pk_…)');
        expect((await api(origin, 'GET', '/api/v1/integrations', { key: privateKey })).body.data).toEqual([]);

        // a key Klaviyo refuses: connected, and the test says so in Klaviyo's words
        await page.getByLabel('Private API key').fill('pk_refusedrefusedrefused1234');
        await page.getByLabel('List ID').press('Enter');
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toBe('Connection test failed: Klaviyo answered 401: Missing or invalid private key.');
        await page.getByRole('button', { name: 'Delete' }).press('Enter');
        await page.getByRole('button', { name: 'Yes, delete' }).press('Enter');
        await expect.poll(() => page.locator('caption').textContent()).toBe('0 connections');

        // the right key: passed, listed with its last 4 characters only
        await page.getByLabel('Private API key').fill(STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey);
        await page.getByLabel('List ID').fill(STAND_IN_CONNECTIONS.klaviyo.target.listId);
        await page.getByLabel('List ID').press('Enter');
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toBe('Connection test passed: Klaviyo list "Newsletter" found');
        await expect.poll(() => page.locator('caption').textContent()).toBe('1 connection');
        expect(await page.locator('tbody').textContent()).toContain('key …KLMN');
        expect(await page.content()).not.toContain(STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey);
        await checkPage(page, runtime, 'integrations', axe);

        // a confirmed sign-up arrives at Klaviyo, sent by the every-minute job
        const entry = await api(origin, 'POST', `/api/v1/contests/${contest.body.data.id}/entries`, {
          key: privateKey,
          body: { email: `dana-${runtime}@example.com`, name: 'Dana' },
        });
        expect(entry.status).toBe(201);
        await expect
          .poll(() => stand.klaviyo.profiles.get(`dana-${runtime}@example.com`)?.attributes.first_name)
          .toBe('Dana');
        await page.getByRole('link', { name: 'Deliveries' }).press('Enter');
        await page.getByRole('heading', { name: 'Deliveries to Klaviyo (XyZ123)' }).waitFor();
        await expect
          .poll(async () => (await page.locator('tbody tr').allTextContents()).map((t) => t.replace(/\s+/g, ' ')))
          .toEqual([expect.stringMatching(/delivered/), expect.stringMatching(/delivered/)]);
        expect(await page.locator('tbody').textContent()).toContain('entry.created');
        // the existing entries sent again, with progress
        await page.getByRole('button', { name: 'Send the existing entries' }).press('Enter');
        await expect.poll(() => page.locator('#backfill-progress').textContent()).toMatch(/^Sent: 1 of 1 delivered/);
        await checkPage(page, runtime, 'integration-deliveries', axe);
        expect(stand.violations).toEqual([]);
        expect(
          problems.filter((p) => !/Failed to load resource: the server responded with a status of (400)/.test(p)),
        ).toEqual([]);
      } finally {
        await ctx.close();
        await server.stop();
      }
    },
    240_000,
  );
});
