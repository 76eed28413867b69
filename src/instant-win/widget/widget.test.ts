/**
 * /widget.js and the demo page as HTTP responses, the committed bundle's freshness and size.
 * (The widget in a real browser: test/browser/widget.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWidget, GENERATED_FILE, generatedModule } from '../../../scripts/build-widget.js';
import { createTestEnv, type TestEnv } from '../../../test/support/harness.js';
import { createApiKey } from '../../admin/admin.js';
import { WIDGET_JS, WIDGET_JS_HASH } from './bundle.generated.js';

const GAME = '0b5a2c9e-6a43-4c1e-9d1a-3f7f2a1b9c10';
const PK = `pk_${'A1b2C3d4E5'.repeat(4)}`;

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

describe('the committed bundle', () => {
  it('is what scripts/build-widget.ts makes from src/instant-win/widget today (run `npx tsx scripts/build-widget.ts` if not)', async () => {
    const js = await bundleWidget();
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(generatedModule(js));
    expect(WIDGET_JS).toBe(js);
  });

  it('is under 20 KiB gzip and defines <instant-win-game>', () => {
    const gz = gzipSync(WIDGET_JS, { level: 9 }).length;
    console.log(`widget.js: ${WIDGET_JS.length} bytes, ${gz} bytes gzip`);
    expect(gz).toBeLessThan(20 * 1024);
    expect(WIDGET_JS).toContain('instant-win-game');
    expect(WIDGET_JS).not.toMatch(/[^\x00-\x7f]/); // ASCII only: safe in any page encoding
  });
});

describe('GET /widget.js', () => {
  it('serves the script with a JavaScript type, CORS for any shop and cache headers', async () => {
    const r = await env.request('GET', '/widget.js', { headers: { origin: 'https://shop.example' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(r.headers.get('etag')).toBe(`"${WIDGET_JS_HASH}"`);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(r.text).toBe(WIDGET_JS);
  });

  it('gzips when the client accepts it', async () => {
    const res = await env.app.request('/widget.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeLessThan(20 * 1024);
    expect(gunzipSync(body).toString('utf8')).toBe(WIDGET_JS);
  });

  it('answers 304 without a body when the ETag still matches (strong or weak)', async () => {
    for (const tag of [`"${WIDGET_JS_HASH}"`, `W/"${WIDGET_JS_HASH}"`, `"other", "${WIDGET_JS_HASH}"`]) {
      const r = await env.request('GET', '/widget.js', { headers: { 'if-none-match': tag } });
      expect(r.status).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.get('etag')).toBe(`"${WIDGET_JS_HASH}"`);
    }
    const stale = await env.request('GET', '/widget.js', { headers: { 'if-none-match': '"old"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(WIDGET_JS);
  });
});

describe('GET /demo/instant-win/:gameId', () => {
  it('embeds the widget for the game with the public key, with a locked-down page policy', async () => {
    const r = await env.request('GET', `/demo/instant-win/${GAME}?key=${PK}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toContain(`<instant-win-game game="${GAME}" api-key="${PK}"></instant-win-game>`);
    expect(r.text).toContain('<script src="/widget.js" defer></script>');
    // the two-line embed snippet, escaped, with the service's public address
    expect(r.text).toContain(
      `&lt;script src=&quot;http://contests.test/widget.js&quot; defer&gt;&lt;/script&gt;\n&lt;instant-win-game game=&quot;${GAME}&quot; api-key=&quot;${PK}&quot;&gt;&lt;/instant-win-game&gt;`,
    );
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.text).not.toMatch(/sk_/);
  });

  it('refuses a malformed game id with 404 and a missing key with 400, as readable pages', async () => {
    const bad = await env.request('GET', `/demo/instant-win/not-a-uuid?key=${PK}`);
    expect(bad.status).toBe(404);
    expect(bad.text).toContain('Game not found');
    expect(bad.text).not.toContain('<instant-win-game');

    const nokey = await env.request('GET', `/demo/instant-win/${GAME}`);
    expect(nokey.status).toBe(400);
    expect(nokey.text).toContain("Add your team's public API key");
    expect(nokey.text).not.toContain('<instant-win-game');
  });

  it('says, in a sentence, when the key shows personal data; a masked key gets no warning', async () => {
    const team = await env.team('Demo keys');
    const full = await env.request('GET', `/demo/instant-win/${GAME}?key=${team.publicKey}`);
    expect(full.status).toBe(200);
    expect(full.text).toContain('<strong>This key shows personal data.</strong>');
    expect(full.text).toContain('{"type":"public","personalData":"masked"}');
    const masked = (await createApiKey(env.db, env.deps.random, team.teamId, 'public', 'page', 'masked')).key;
    const ok = await env.request('GET', `/demo/instant-win/${GAME}?key=${masked}`);
    expect(ok.status).toBe(200);
    expect(ok.text).not.toContain('This key shows personal data');
  });

  it('refuses a private key without echoing it', async () => {
    const sk = `sk_${'Z9y8X7w6V5'.repeat(4)}`;
    const r = await env.request('GET', `/demo/instant-win/${GAME}?key=${sk}`);
    expect(r.status).toBe(400);
    expect(r.text).toContain('That is a private key');
    expect(r.text).not.toContain(sk);
    expect(r.text).not.toContain('<instant-win-game');
  });

  it('never puts markup from the query into the page', async () => {
    const evil = `pk_x"><script>alert(1)</script>`;
    const r = await env.request('GET', `/demo/instant-win/${GAME}?key=${encodeURIComponent(evil)}`);
    expect(r.status).toBe(400);
    expect(r.text).toContain('Invalid public key');
    expect(r.text).not.toContain('alert(1)');
    expect(r.text).not.toContain('<instant-win-game');
  });
});
