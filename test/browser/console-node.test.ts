/**
 * The operator console in a real Chromium against `npm start` (Node, embedded PGlite): the
 * scenario of support/console-scenario.ts; console-worker.test.ts runs it on the Worker.
 * Skipped, loudly, without Chromium.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CONSOLE_SHOTS, refreshShots } from '../support/docs-shots.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { scenario } from './support/console-scenario.js';
import { startServer } from './support/dev-server.js';

warnIfNoChromium('the console BROWSER tests');

describe.skipIf(!CHROMIUM)('the console in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('on npm start (Node, PGlite)', async () => {
    const server = await startServer('src/node.ts', { PGLITE_DIR: 'memory://', ALLOW_HTTP_WEBHOOKS: '1' });
    try {
      await scenario(browser, server.origin, 'node');
      // docs/console.md's screenshots, taken again from this run's pages when the console changed
      refreshShots(CONSOLE_SHOTS, join(process.cwd(), 'test/artifacts'));
    } finally {
      await server.stop();
    }
  }, 240_000);
});
