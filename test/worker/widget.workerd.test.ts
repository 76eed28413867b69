/**
 * The widget script and its demo page served by the real Worker (src/worker.ts in workerd), asked
 * for the way a browser asks (`Accept-Encoding: gzip, deflate, br`). On Workers the platform
 * compresses responses itself: a body the app already compressed would be compressed a second
 * time and reach the browser as binary. Whatever encoding arrives, decoding it once must give the
 * script / the page.
 */

import { SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_JS, WIDGET_JS_HASH } from '../../src/instant-win/widget/bundle.generated.js';
import { call, hasPostgres, makeTeam, type Team } from './support/workerd.js';

const BROWSER_HEADERS = {
  'accept-encoding': 'gzip, deflate, br',
  accept: '*/*',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36',
};

/**
 * What the browser ends up with: fetch() here decodes one layer of Content-Encoding, as a browser
 * does; the raw stream is read too, so a body compressed twice (gzip inside gzip) shows either way.
 */
async function browserGet(path: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`http://contests.test${path}`, { headers: { ...BROWSER_HEADERS, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder('utf-8', { fatal: false }).decode(bytes) };
}

const isGzipMagic = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

describe.skipIf(!hasPostgres)('Worker in workerd: /widget.js and the demo page as a browser fetches them', () => {
  let team: Team;
  let gameId: string;

  beforeAll(async () => {
    team = await makeTeam('Widget on Workers');
    const game = await call('POST', '/api/v1/instant-win-games', {
      key: team.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin on Workers',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: 'Sticker', oddsPercent: 50, deliveryType: 'unique_code', codes: ['WW-1', 'WW-2'] },
          { name: 'Try again', oddsPercent: 50, isMiss: true },
        ],
      },
    });
    expect(game.status, game.text).toBe(201);
    gameId = game.body.data.id;
  });

  it('GET /widget.js decodes to exactly the widget script (not gzip inside gzip)', async () => {
    const { res, bytes, text } = await browserGet('/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(isGzipMagic(bytes), 'the decoded body is still gzip: compressed twice').toBe(false);
    expect(text).toBe(WIDGET_JS);
    expect(text.startsWith('"use strict";')).toBe(true);
    expect(text).toContain('customElements.define("instant-win-game"');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('vary')?.toLowerCase()).toContain('accept-encoding');
  });

  it('GET /widget.js without Accept-Encoding is the plain script as well, and revalidates by ETag', async () => {
    const plain = await SELF.fetch('http://contests.test/widget.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(WIDGET_JS);
    const again = await browserGet('/widget.js', { 'if-none-match': `"${WIDGET_JS_HASH}"` });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  it('GET /demo/instant-win/:gameId?key=pk_... decodes to the page that embeds the widget', async () => {
    const { res, bytes, text } = await browserGet(`/demo/instant-win/${gameId}?key=${team.publicKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(isGzipMagic(bytes)).toBe(false);
    expect(text.startsWith('<!doctype html>')).toBe(true);
    expect(text).toContain('<script src="/widget.js" defer></script>');
    expect(text).toContain(`<instant-win-game game="${gameId}" api-key="${team.publicKey}"></instant-win-game>`);
    // the game the page embeds is there for the widget to load
    const game = await call('GET', `/api/v1/instant-win-games/${gameId}`, { key: team.publicKey });
    expect(game.status).toBe(200);
    expect(game.body.data.title).toBe('Spin on Workers');
  });
});

describe('Worker in workerd: /docs', () => {
  it('serves the reference page and its start script from the Worker, with a CSP of only the app itself', async () => {
    const page = await SELF.fetch('http://contests.test/docs', { headers: BROWSER_HEADERS });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self'; style-src 'self'/,
    );
    const html = await page.text();
    expect(html).toContain('<script src="/docs/assets/swagger-ui-bundle.js" defer></script>');
    expect(html).not.toMatch(/https?:\/\//);
    const init = await SELF.fetch('http://contests.test/docs/init.js', { headers: BROWSER_HEADERS });
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await init.text()).toContain('SwaggerUIBundle(');
    // the UI files are Workers static assets, answered by the platform before the Worker runs
    // (SELF reaches the Worker itself, as a request for a missing asset would): the Worker has no
    // copy of them, so its script stays small. `npm run dev` serves them: test/browser/dev-server.test.ts
    const css = await SELF.fetch('http://contests.test/docs/assets/swagger-ui.css', { headers: BROWSER_HEADERS });
    expect(css.status).toBe(404);
    expect(await css.json()).toEqual({ success: false, error: 'Not found' });
  });
});
