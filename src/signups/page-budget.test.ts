/**
 * The hosted page's budget (issue: "the hosted page's own HTML, CSS and script <= 40 KB gzip"):
 * measured on the heaviest page a contest can make: 50 leaderboard rows of long names, ten prizes
 * with long descriptions, ten questions of its own, a consent and the footer's links; its HTML
 * (the stylesheet is inline) and /signup.js, each gzipped as served.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { SIGNUP_JS } from './widget/bundle.generated.js';

/** `n` characters of words that do not repeat in a pattern (gzip would shrink a repeated phrase to nothing) */
function prose(n: number, seed: number): string {
  const words = [
    'coffee',
    'bean',
    'roast',
    'morning',
    'friend',
    'share',
    'win',
    'year',
    'bag',
    'shop',
    'city',
    'prize',
  ];
  let x = seed;
  let out = '';
  while (out.length < n) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += `${words[x % words.length]}${x % 7} `;
  }
  return out.slice(0, n).trim();
}

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Budget');
});
afterAll(() => env.close());

describe("the hosted page's weight", () => {
  it('its HTML and /signup.js together are at most 40 KB gzip, the heaviest page included', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, title: prose(200, 3) });
    const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: t.privateKey,
      body: {
        publicSignup: true,
        description: prose(4900, 1),
        pageLeaderboard: 50,
        consentText: prose(600, 2),
        rulesUrl: 'https://acme.example/rules',
        privacyUrl: 'https://acme.example/privacy',
        imageUrl: 'https://acme.example/hero.jpg',
        logoUrl: 'https://acme.example/logo.png',
        theme: { accent: '#0b5fff', background: '#111827', text: '#f9fafb', radius: 12, font: 'serif' },
        signupFields: Array.from({ length: 10 }, (_, i) => ({
          key: `q${i}`,
          label: prose(100, 50 + i),
          type: 'select',
          options: Array.from({ length: 20 }, (_, j) => `${j} ${prose(60, 100 * i + j)}`),
        })),
      },
    });
    expect(r.status, r.text).toBe(200);
    for (let i = 0; i < 10; i++) {
      const p = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
        key: t.privateKey,
        body: {
          name: prose(100, 30 + i),
          description: prose(500, 10 + i),
          imageUrl: `https://acme.example/prize-${i}.jpg`,
          pointsRequired: (i + 1) * 10,
        },
      });
      expect(p.status, p.text).toBe(201);
    }
    for (let i = 0; i < 50; i++) {
      const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: t.privateKey,
        body: { email: `fan${i}@example.com`, name: prose(60, 500 + i) },
      });
      expect(e.status, e.text).toBe(201);
    }
    const page = await env.app.request(`/c/${c.id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.match(/<tr>/g)?.length).toBe(51);
    const pageGz = gzipSync(html, { level: 6 }).length;
    const scriptGz = gzipSync(SIGNUP_JS, { level: 6 }).length;
    console.log(
      `hosted page: HTML ${html.length} bytes, ${pageGz} gzip; /signup.js ${scriptGz} gzip; together ${pageGz + scriptGz}`,
    );
    expect(pageGz + scriptGz).toBeLessThanOrEqual(40 * 1024);
  });
});
