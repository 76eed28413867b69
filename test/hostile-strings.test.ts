/**
 * Strings Postgres refuses never reach it (issue 49): every route of the app, each of its path
 * parameters in turn replaced by a hostile string (U+0000, a lone surrogate's UTF-8 bytes, bytes
 * that are not UTF-8, an overlong NUL), sent with a private key, a public key and no key at all;
 * every GET route with the same strings in its query parameters; and the string fields of the
 * keyless routes' bodies (the keyed routes' fields are held by test/robustness.test.ts). Nothing
 * answers 5xx, and every answer is one the OpenAPI document lists. Runs on PGlite and on the real
 * Postgres; test/worker/hostile-strings.workerd.test.ts sends the keyless set to the Worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv, wheelGameBody } from './support/harness.js';
import { HOSTILE_PATH_VALUES, HOSTILE_QUERY_NAMES, hostileBodies } from './support/hostile.js';

let env: TestEnv;
let t: TeamFixture;
const ids: Record<string, string> = {};
const neverLimit = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: neverLimit, publicRateLimiter: neverLimit });
  // the integration routes answer past their 503 (no provider is reached: its base is a closed port)
  env.deps.config.integrations = {
    key: Buffer.alloc(32, 5).toString('base64'),
    urls: { klaviyo: 'http://127.0.0.1:1', mailchimp: 'http://127.0.0.1:1', hubspot: 'http://127.0.0.1:1' },
  };
  t = await env.team();
  const c = await env.contest(t.teamId, { publicSignup: true, requireEmailConfirmation: false });
  ids.contestId = c.id;
  ids.id = c.id;
  const entry = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
    key: t.privateKey,
    body: { email: 'ann@example.com' },
  });
  ids.entryId = entry.body.data.entryId;
  const game = await env.request('POST', '/api/v1/instant-win-games', { key: t.privateKey, body: wheelGameBody() });
  ids.gameId = game.body.data.id;
  ids.teamId = t.teamId;
});
afterAll(async () => {
  await env.settle();
  await env.close();
});

/** every route's pattern and method, as the app declares them (no middleware-only entries) */
const routes = () => {
  const seen = new Set<string>();
  return env.app.routes
    .filter((r) => r.method !== 'ALL' && r.path !== '/*' && r.path !== '*')
    .filter((r) => {
      const k = `${r.method} ${r.path}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
};

const credentials = (path: string): [string, Record<string, string>][] =>
  path.startsWith('/api/admin')
    ? [['admin', { authorization: `Bearer ${ADMIN_TOKEN}` }]]
    : [
        ['private key', { 'x-api-key': t.privateKey }],
        ['public key', { 'x-api-key': t.publicKey }],
        ['no key', {}],
      ];

async function send(method: string, url: string, headers: Record<string, string>, body?: string) {
  const res = await env.app.request(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : new TextEncoder().encode(body),
  });
  const text = await res.text();
  await env.settle();
  return { status: res.status, text };
}

/**
 * Thousands of requests, one after another: a limit that only stops a hang (the work is counted,
 * not timed; on a loaded two-core machine the query-string test once ran past 30 s).
 */
const LOTS_OF_REQUESTS = 180_000;

describe('hostile strings never reach Postgres', () => {
  it(
    'in every path parameter of every route, with each credential: never 5xx',
    async () => {
      const failures: string[] = [];
      let sent = 0;
      for (const r of routes()) {
        const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
        for (const p of params) {
          for (const hostile of HOSTILE_PATH_VALUES) {
            const url = r.path.replace(/:(\w+)/g, (_m, name: string) =>
              name === p ? hostile : encodeURIComponent(ids[name] ?? ids.id!),
            );
            for (const [who, headers] of credentials(r.path)) {
              const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : '{}';
              const res = await send(r.method, url, headers, body);
              sent++;
              if (res.status >= 500)
                failures.push(`${r.method} ${url} (${who}) → ${res.status} ${res.text.slice(0, 120)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(1000);
    },
    LOTS_OF_REQUESTS,
  );

  it(
    'in the query strings of every GET route: never 5xx',
    async () => {
      const failures: string[] = [];
      for (const r of routes().filter((x) => x.method === 'GET')) {
        const path = r.path.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? ids.id!);
        for (const name of HOSTILE_QUERY_NAMES) {
          // a query value is checked by name wherever it is read: the two strings Postgres refuses
          // (a NUL, a lone surrogate's bytes), with the route's strongest credential and none
          for (const hostile of ['a%00b', '%ED%A0%80']) {
            for (const [who, headers] of credentials(r.path).filter(([w]) => w !== 'public key')) {
              const res = await send('GET', `${path}?${name}=${hostile}`, headers);
              if (res.status >= 500)
                failures.push(`GET ${path}?${name}=${hostile} (${who}) → ${res.status} ${res.text.slice(0, 120)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
    },
    LOTS_OF_REQUESTS,
  );

  it(
    "in the keyless routes' body fields: 400 naming the field, or the route's usual answer; never 5xx",
    async () => {
      const c = ids.contestId!;
      const code = (await env.request('GET', `/api/v1/entries/${ids.entryId}`, { key: t.privateKey })).body.data
        .referralCode as string;
      const cases: [string, string, Record<string, unknown>][] = [
        ['POST', `/api/v1/contests/${c}/visits`, { referralCode: code, channel: 'x' }],
        ['POST', `/api/v1/contests/${c}/signup`, { email: 'bob@example.com', name: 'Bob', consent: true }],
        ['POST', '/api/v1/me/shares', { channel: 'x' }],
      ];
      const failures: string[] = [];
      for (const [method, path, valid] of cases) {
        for (const [what, raw] of hostileBodies(valid)) {
          const res = await send(method, path, {}, raw);
          if (res.status >= 500) failures.push(`${method} ${path} ${what} → ${res.status} ${res.text.slice(0, 120)}`);
          if (what.includes('U+0000') || what.includes('surrogate')) expect(res.status, `${path} ${what}`).toBe(400);
        }
      }
      expect(failures).toEqual([]);
    },
    LOTS_OF_REQUESTS,
  );
});
