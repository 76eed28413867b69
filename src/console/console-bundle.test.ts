/**
 * The console's committed build (public/console/app.js, app.css) and its API types
 * (src/lib/api.generated.ts) are what scripts/build-console.ts makes from the sources and
 * the current OpenAPI document; the app serves the shell at every /console page and the files on
 * Node, with a CSP that allows only its own origin.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTypes, bundleConsole, gzipSize, OUT_DIR, TYPES_FILE } from '../../scripts/build-console.js';
import { createTestEnv, type TestEnv } from '../../test/support/harness.js';
import { docsFiles } from '../meta/docs-files.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ backend: 'pglite' });
  env.deps.staticFiles = docsFiles();
});
afterAll(() => env.close());

describe('console build', () => {
  it('the committed types and bundle are current (run `npm run build:console` after changing the console or the API)', async () => {
    expect(
      readFileSync(TYPES_FILE, 'utf8') === (await apiTypes()),
      'src/lib/api.generated.ts is stale: npm run build:console',
    ).toBe(true);
    const { js, css } = await bundleConsole();
    expect(
      readFileSync(join(OUT_DIR, 'app.js'), 'utf8') === js,
      'public/console/app.js is stale: npm run build:console',
    ).toBe(true);
    expect(readFileSync(join(OUT_DIR, 'app.css'), 'utf8')).toBe(css);
    // the budget: all console JavaScript together at most 120 KB gzip
    expect(gzipSize(js)).toBeLessThan(120 * 1024);
  });

  it("every /console page answers the shell, with only the app's own origin allowed", async () => {
    for (const path of ['/console', '/console/', '/console/contests/1f0e…', '/console/teams']) {
      const res = await env.app.request(path);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/console/app.js"></script>');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toMatch(/unsafe|https?:/);
    }
  });

  it('serves app.js and app.css on Node, with an ETag', async () => {
    const js = await env.app.request('/console/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe(readFileSync(join(OUT_DIR, 'app.js'), 'utf8'));
    const again = await env.app.request('/console/app.js', { headers: { 'if-none-match': js.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const css = await env.app.request('/console/app.css');
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await env.app.request('/console/other.js')).status).toBe(200); // a page path, not a file: the shell
  });
});
