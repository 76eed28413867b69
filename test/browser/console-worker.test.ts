/**
 * The operator console in a real Chromium against the Worker (`npm run dev`: workerd, the Neon
 * driver, a fresh database on the local Postgres): the scenario of support/console-scenario.ts.
 * Skipped, loudly, without Chromium or without a reachable Postgres.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { scenario } from './support/console-scenario.js';
import { DEV_BASE_URL as pgBase, startDevServer } from './support/dev-server.js';
import { pgReachable } from './support/net.js';

warnIfNoChromium('the console BROWSER tests');
const hasPostgres = CHROMIUM ? await pgReachable(pgBase) : false;
if (CHROMIUM && !hasPostgres)
  console.warn(
    `\n*** No Postgres at ${new URL(pgBase).host}: the console test under the Worker (npm run dev) is SKIPPED. ***\n`,
  );

describe.skipIf(!CHROMIUM || !hasPostgres)('the console in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('on npm run dev (the Worker in workerd)', async () => {
    const server = await startDevServer({ ALLOW_HTTP_WEBHOOKS: '1' });
    try {
      await scenario(browser, server.origin, 'worker');
    } finally {
      await server.stop();
    }
  }, 300_000);
});
