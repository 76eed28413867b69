/**
 * /signup.js and the sign-up demo page as HTTP responses, the committed bundle's freshness and
 * size. (The widget in a real browser: test/browser/signup-widget.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleWidget,
  generatedSignupModule,
  SIGNUP_ENTRY,
  SIGNUP_GENERATED_FILE,
} from '../../../scripts/build-widget.js';
import { createTestEnv, type TestEnv } from '../../../test/support/harness.js';
import { counted, pluralForm } from '../../lib/plural.js';
import { SIGNUP_JS, SIGNUP_JS_HASH } from './bundle.generated.js';
import { fill, stringsFrom } from './strings.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ backend: 'pglite' });
});
afterAll(() => env.close());

describe('the committed bundle', () => {
  it('is what scripts/build-widget.ts makes from src/signups/widget today (npm run build:widget if not)', async () => {
    const js = await bundleWidget(SIGNUP_ENTRY);
    expect(readFileSync(SIGNUP_GENERATED_FILE, 'utf8')).toBe(generatedSignupModule(js));
    expect(SIGNUP_JS).toBe(js);
  });

  it('is at most 16 KB gzip (the campaign page budget), ASCII only, and defines <contest-signup>', () => {
    const gz = gzipSync(SIGNUP_JS, { level: 9 }).length;
    console.log(`signup.js: ${SIGNUP_JS.length} bytes, ${gz} bytes gzip`);
    expect(gz).toBeLessThanOrEqual(16 * 1024);
    expect(SIGNUP_JS).toContain('contest-signup');
    expect(SIGNUP_JS).not.toMatch(/[^\x00-\x7f]/);
    // its only third-party origin it loads from is Turnstile's, only for a contest that asks for
    // it; the share networks' addresses are links the visitor clicks, never requested by the
    // widget (test/browser/widget-contest.test.ts sees no request leave before a click)
    const origins = new Set(SIGNUP_JS.match(/https:\/\/[a-z0-9.-]+/g));
    expect([...origins].sort()).toEqual(
      [
        'https://challenges.cloudflare.com',
        'https://x.com',
        'https://www.facebook.com',
        'https://www.linkedin.com',
        'https://wa.me',
        'https://t.me',
        'https://www.reddit.com',
      ].sort(),
    );
  });
});

describe('GET /signup.js and the demo page', () => {
  it('serves the script with CORS, caching and an ETag; 304 for a current copy', async () => {
    const r = await env.request('GET', '/signup.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('etag')).toBe(`"${SIGNUP_JS_HASH}"`);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.text).toBe(SIGNUP_JS);
    const again = await env.request('GET', '/signup.js', { headers: { 'if-none-match': `"${SIGNUP_JS_HASH}"` } });
    expect(again.status).toBe(304);
  });

  it('the demo page embeds the widget and shows the two-line snippet; a private key is refused', async () => {
    const id = '0b5a2c9e-6a43-4c1e-9d1a-3f7f2a1b9c10';
    const key = `pk_${'A1b2C3d4E5'.repeat(4)}`;
    const r = await env.request('GET', `/demo/contests/${id}?key=${key}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(`<contest-signup contest="${id}" api-key="${key}"></contest-signup>`);
    expect(r.text).toContain('&lt;script src=&quot;');
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    const priv = await env.request('GET', `/demo/contests/${id}?key=sk_${'x'.repeat(40)}`);
    expect([priv.status, priv.text.includes('Private key refused')]).toEqual([400, true]);
    expect((await env.request('GET', '/demo/contests/nope?key=pk_x')).status).toBe(404);
  });
});

describe('strings and numbers', () => {
  it('every string can be replaced through the strings attribute; numbers follow the language', () => {
    const s = stringsFrom(
      JSON.stringify({ submit: 'Rejoindre', position: 'Vous êtes n°{position} sur {total}', bogus: 1 }),
    );
    expect(s.submit).toBe('Rejoindre');
    expect(s.email).toBe('Email');
    expect(fill(s.position, { position: 4512, total: 10233 }, 'fr')).toBe('Vous êtes n°4\u202f512 sur 10\u202f233');
    expect(fill('#{position}', { position: 4512 }, 'en')).toBe('#4,512');
    expect(stringsFrom('{not json').submit).toBe('Join');
  });

  it("words after a number follow the language's plural rules: defaults, a page's own forms, the console and API wording", () => {
    const s = stringsFrom(null);
    expect(fill(s.nextReferrals, { missing: 1, reward: 'Gold' }, 'en', 'missing')).toBe(
      '1 more confirmed friend to unlock Gold',
    );
    expect(fill(s.nextReferrals, { missing: 2, reward: 'Gold' }, 'en', 'missing')).toBe(
      '2 more confirmed friends to unlock Gold',
    );
    expect(fill(s.nextPoints, { missing: 1, reward: 'Gold' }, 'en', 'missing')).toBe('1 more point to unlock Gold');
    // a page's forms, in a language with more of them (Polish: one, few, many)
    const pl = stringsFrom(
      JSON.stringify({
        nextPoints: {
          one: '{missing} punkt',
          few: '{missing} punkty',
          many: '{missing} punktów',
          other: '{missing} punktu',
        },
      }),
    );
    expect([1, 3, 5].map((missing) => fill(pl.nextPoints, { missing, reward: '' }, 'pl', 'missing'))).toEqual([
      '1 punkt',
      '3 punkty',
      '5 punktów',
    ]);
    // forms that are not strings are ignored (the default stays)
    expect(stringsFrom(JSON.stringify({ nextPoints: { one: 1 } })).nextPoints).toEqual(s.nextPoints);
    // the helper the console and the API's messages use
    expect([counted(1, 'game', 'games'), counted(2, 'game', 'games'), counted(1000, 'entry', 'entries')]).toEqual([
      '1 game',
      '2 games',
      '1,000 entries',
    ]);
    expect(pluralForm(1, { one: 'point', other: 'points' })).toBe('point');
  });
});
