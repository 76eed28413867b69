/**
 * /docs in a real headless Chromium against the app as `npm start` serves it (createApp with the
 * Node static files, on @hono/node-server): the page and everything it loads come from the app's
 * own origin (every request is recorded; any other host would be refused, as a strict network
 * would), no CSP violation, and the rendered reference shows the operations of
 * /api/v1/openapi.json. The same check runs against `npm run dev` in dev-server.test.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { docsFiles } from '../../src/meta/docs-files.js';
import { createTestEnv, type TestEnv } from '../support/harness.js';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';
import { checkDocsPage } from './support/docs-check.js';

warnIfNoChromium('the /docs BROWSER tests');

describe.skipIf(!CHROMIUM)('/docs in a real browser (Node)', () => {
  let env: TestEnv;
  let server: Server;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'pglite' });
    const app = createApp({ ...env.deps, staticFiles: docsFiles() });
    server = serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch }) as Server;
    await new Promise<void>((r) => (server.listening ? r() : server.once('listening', () => r())));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r));
    await env?.close();
  });

  it('loads only from the app and renders every operation of the OpenAPI document', async () => {
    await checkDocsPage(browser, origin, 'docs-node');
  });
});
