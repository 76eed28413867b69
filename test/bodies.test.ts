/**
 * Request bodies (src/http/validate.ts jsonBody): no bytes means `{}`, a body that is not JSON
 * answers 415 and changes nothing; customFieldData limits; page/limit typed as integers in the
 * OpenAPI document with unchanged messages.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: { limit: async () => ({ success: true, retryAfterSeconds: 0 }) } });
  t = await env.team();
});
afterAll(async () => {
  await env.settle();
  await env.close();
});

/** A request with exactly these bytes and headers (no content type unless given). */
async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await env.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : new TextEncoder().encode(body),
  });
  return { status: res.status, body: (await res.json()) as { success: boolean; data?: any; error?: string } };
}

async function newEntry(contestId: string, email: string) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body: { email } });
  expect(r.status).toBe(201);
  return r.body.data.entryId as string;
}

const disqualified = async (id: string) =>
  (await query<{ d: boolean }>(env.db, sql`select disqualified as d from entries where id = ${id}`))[0]!.d;

describe('an empty body on an endpoint whose fields are all optional means {}', () => {
  it.each([
    ['no content type', {}],
    ['application/json', { 'content-type': 'application/json' }],
    ['application/json; charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }],
    ['text/plain (nothing was sent in it)', { 'content-type': 'text/plain' }],
  ])('disqualify with an empty body (%s) toggles, like {}', async (_n, headers) => {
    const c = await env.contest(t.teamId);
    const id = await newEntry(c.id, 'toggle@example.com');
    for (const body of [undefined, '']) {
      const before = await disqualified(id);
      const r = await raw('POST', `/api/v1/entries/${id}/disqualify`, { 'x-api-key': t.privateKey, ...headers }, body);
      expect([r.status, r.body.data?.disqualified]).toEqual([200, !before]);
    }
  });

  it('play, bonus-action completion and a contest PATCH accept an empty body', async () => {
    const c = await env.contest(t.teamId);
    const id = await newEntry(c.id, 'empty@example.com');
    const ba = await env.request('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
      headers: admin,
      body: { action: 'visit', points: 2 },
    });
    const done = await raw(
      'POST',
      `/api/v1/entries/${id}/bonus-actions/${ba.body.data.id}/complete`,
      {
        'x-api-key': t.publicKey,
        'content-type': 'application/json',
      },
      '',
    );
    expect([done.status, done.body.data?.pointsAdded]).toEqual([200, 2]);
    const patched = await raw('PATCH', `/api/admin/contests/${c.id}`, admin, '');
    expect(patched.status).toBe(200);
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'W',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        status: 'active',
        tiers: [
          { name: 'P', oddsPercent: 50, redeemCode: 'X' },
          { name: 'M', oddsPercent: 50, isMiss: true },
        ],
      },
    });
    const played = await raw('POST', `/api/v1/instant-win-games/${game.body.data.id}/play`, {
      'x-api-key': t.publicKey,
    });
    expect([played.status, typeof played.body.data?.playCookie]).toEqual([200, 'string']);
  });

  it('an empty body where fields are required answers what {} answers', async () => {
    const c = await env.contest(t.teamId);
    const empty = await raw('POST', `/api/v1/contests/${c.id}/entries`, { 'x-api-key': t.privateKey });
    const object = await env.request('POST', `/api/v1/contests/${c.id}/entries`, { key: t.privateKey, body: {} });
    expect(empty).toEqual({ status: 400, body: { success: false, error: 'Email or phone is required' } });
    expect(object.body).toEqual(empty.body);
    const team = await raw('POST', '/api/admin/teams', { ...admin, 'content-type': 'application/json' }, '');
    expect(team).toEqual({ status: 400, body: { success: false, error: 'name is required' } });
  });
});

describe('a body that is not JSON: 415, nothing changed', () => {
  it.each([
    ['text/plain', '{"email":"plain@example.com"}'],
    ['text/plain;charset=UTF-8', '{"email":"plain@example.com"}'],
    ['application/x-www-form-urlencoded', 'email=plain%40example.com'],
    [
      'multipart/form-data; boundary=B',
      '--B\r\nContent-Disposition: form-data; name="email"\r\n\r\nplain@example.com\r\n--B--\r\n',
    ],
    ['(none)', '{"email":"plain@example.com"}'],
    ['application/jsonp', '{"email":"plain@example.com"}'],
  ])('%s', async (type, body) => {
    const c = await env.contest(t.teamId);
    const headers: Record<string, string> = { 'x-api-key': t.privateKey };
    if (type !== '(none)') headers['content-type'] = type;
    const r = await raw('POST', `/api/v1/contests/${c.id}/entries`, headers, body);
    expect(r).toEqual({ status: 415, body: { success: false, error: 'Content-Type must be application/json' } });
    expect(await query(env.db, sql`select 1 from entries where contest_id = ${c.id}`)).toEqual([]);
  });

  it('JSON media types with a suffix or parameters are JSON', async () => {
    const c = await env.contest(t.teamId);
    for (const [i, type] of [
      'application/json',
      'APPLICATION/JSON; charset=utf-8',
      'application/vnd.api+json',
      'application/merge-patch+json',
    ].entries()) {
      const r = await raw(
        'POST',
        `/api/v1/contests/${c.id}/entries`,
        { 'x-api-key': t.privateKey, 'content-type': type },
        JSON.stringify({ email: `j${i}@example.com` }),
      );
      expect([type, r.status]).toEqual([type, 201]);
    }
  });
});

describe('customFieldData limits', () => {
  const nested = (levels: number): Record<string, unknown> => {
    let o: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < levels; i++) o = { n: o };
    return o;
  };

  it('10 levels deep and 16384 bytes of UTF-8 JSON are accepted; one more is refused naming the limit', async () => {
    const c = await env.contest(t.teamId);
    const ok = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'deep10@example.com', customFieldData: nested(10) },
    });
    expect(ok.status).toBe(201);
    const deep = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'deep11@example.com', customFieldData: nested(11) },
    });
    expect([deep.status, deep.body.error]).toEqual([400, 'customFieldData must be at most 10 levels deep']);
    // arrays count as levels too
    const arrays = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'arr@example.com', customFieldData: { a: [[[[[[[[[[1]]]]]]]]]] } },
    });
    expect([arrays.status, arrays.body.error]).toEqual([400, 'customFieldData must be at most 10 levels deep']);

    // {"k":"…"} is 8 bytes around the string; "é" is 2 bytes of UTF-8
    const exact = { k: 'é'.repeat((16_384 - 8) / 2) };
    expect(new TextEncoder().encode(JSON.stringify(exact)).byteLength).toBe(16_384);
    const fits = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'size@example.com', customFieldData: exact },
    });
    expect(fits.status).toBe(201);
    const over = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'size2@example.com', customFieldData: { k: `${exact.k}x` } },
    });
    expect([over.status, over.body.error]).toEqual([400, 'customFieldData must be at most 16384 bytes as JSON']);
  });

  it('5000 levels (a stack overflow once): 400 on create and update before the body is parsed, nothing changed', async () => {
    const c = await env.contest(t.teamId);
    const id = await newEntry(c.id, 'keep@example.com');
    const before = await query(env.db, sql`select * from entries where contest_id = ${c.id}`);
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    for (const [method, path, extra] of [
      ['POST', `/api/v1/contests/${c.id}/entries`, '"email":"x@example.com",'],
      ['PUT', `/api/v1/entries/${id}`, ''],
    ]) {
      const r = await env.request(method!, path!, {
        key: t.privateKey,
        rawBody: `{${extra}"customFieldData":${deep}}`,
      });
      expect([r.status, r.body.error]).toEqual([400, 'JSON nested too deeply']);
      // within the body's 32 levels, the field's own limit answers
      const eleven = await env.request(method!, path!, {
        key: t.privateKey,
        rawBody: `{${extra}"customFieldData":${'{"a":'.repeat(11)}1${'}'.repeat(11)}}`,
      });
      expect([eleven.status, eleven.body.error]).toEqual([400, 'customFieldData must be at most 10 levels deep']);
    }
    expect(await query(env.db, sql`select * from entries where contest_id = ${c.id}`)).toEqual(before);
  });
});

describe('page and limit', () => {
  it('are integers in the OpenAPI document', async () => {
    const doc = (await env.request('GET', '/api/v1/openapi.json')).body;
    let seen = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        for (const p of op.parameters ?? []) {
          if (p.in === 'query' && (p.name === 'page' || p.name === 'limit')) {
            expect([path, p.name, p.schema.type]).toEqual([path, p.name, 'integer']);
            seen++;
          }
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(10);
  });

  it('keep their messages for what is not a number in range', async () => {
    for (const [q, error] of [
      ['page=0', 'page must be a positive integer'],
      ['page=abc', 'page must be a positive integer'],
      ['page=1.5', 'page must be a positive integer'],
      ['limit=0', 'limit must be between 1 and 100'],
      ['limit=101', 'limit must be between 1 and 100'],
      ['limit=x', 'limit must be between 1 and 100'],
    ]) {
      const r = await env.request('GET', `/api/v1/contests?${q}`, { key: t.publicKey });
      expect([q, r.status, r.body.error]).toEqual([q, 400, error]);
    }
    const r = await env.request('GET', '/api/v1/contests?page=2&limit=1', { key: t.publicKey });
    expect([r.status, r.body.pagination.page, r.body.pagination.limit]).toEqual([200, 2, 1]);
  });
});

describe('bytes that are not UTF-8', () => {
  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['Latin-1 é', [0xe9]],
  ])('%s in a string answers 400 Invalid request body and stores nothing', async (_n, bad) => {
    const c = await env.contest(t.teamId);
    const head = new TextEncoder().encode('{"email":"utf8@example.com","name":"Ren');
    const tail = new TextEncoder().encode('e"}');
    const body = new Uint8Array([...head, ...bad, ...tail]);
    const res = await env.app.request(`/api/v1/contests/${c.id}/entries`, {
      method: 'POST',
      headers: { 'x-api-key': t.privateKey, 'content-type': 'application/json' },
      body,
    });
    expect([res.status, await res.json()]).toEqual([400, { success: false, error: 'Invalid request body' }]);
    const rows = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from entries where contest_id = ${c.id}`,
    );
    expect(rows[0]!.n).toBe(0);
  });
});

describe('nesting: at most 32 levels, judged in one pass before the body is parsed', () => {
  const nested = (depth: number, open: string, close: string, inner = '1') =>
    `{"a":${open.repeat(depth - 1)}${inner}${close.repeat(depth - 1)}}`;
  const visits = '/api/v1/contests/6f1c1d1e-1111-4111-8111-111111111111/visits';

  it('32 levels are parsed; 33 answer 400 JSON nested too deeply, whatever the brackets', async () => {
    const c = await env.contest(t.teamId);
    const path = `/api/v1/contests/${c.id}`;
    const json = { 'x-api-key': t.privateKey, 'content-type': 'application/json' };
    // 32 levels in an unknown field: parsed, the field dropped, the update done
    const ok = await raw('PATCH', path, json, nested(32, '[', ']').replace('{"a"', '{"title":"Deep","a"'));
    expect([ok.status, ok.body.data?.title]).toEqual([200, 'Deep']);
    for (const [open, close] of [
      ['[', ']'],
      ['{"b":', '}'],
      ['[{"b":', '}]'],
    ] as const) {
      // 33 levels or more, as the whole body or in a field
      const depth = open.length > 5 ? 17 : 33;
      const r = await raw('PATCH', path, json, nested(depth, open, close).replace('{"a"', '{"title":"No","a"'));
      expect([r.status, r.body.error], open).toEqual([400, 'JSON nested too deeply']);
    }
    // brackets inside strings (escaped quotes too) are text, not levels
    const text = JSON.stringify({ title: 'Brackets', description: `"\\${'['.repeat(300)}` });
    const s = await raw('PATCH', path, json, text);
    expect([s.status, s.body.data?.title]).toEqual([200, 'Brackets']);
    const after = await query<{ title: string }>(env.db, sql`select title from contests where id = ${c.id}`);
    expect(after[0]!.title).toBe('Brackets');
  });

  it('a 64 KiB body of nested arrays from a stranger: 400 before any key is trusted, the server free meanwhile', async () => {
    const depth = 32 * 1024 - 8;
    const body = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expect(body.length).toBeLessThanOrEqual(64 * 1024);
    const [r, health] = await Promise.all([
      raw('POST', visits, { 'content-type': 'application/json' }, body),
      env.app.request('/health'),
    ]);
    // no key: the route's usual 401 for a keyless visit of a contest that takes no public sign-ups
    expect([r.status, r.body.error]).toEqual([401, 'Missing or invalid API key']);
    expect(health.status).toBe(200);
    const withKey = await raw('POST', visits, { 'content-type': 'application/json', 'x-api-key': t.publicKey }, body);
    expect([withKey.status, withKey.body.error]).toEqual([400, 'JSON nested too deeply']);
  });

  it("1 MiB only where the route declares it (a reward's codes); 64 KiB elsewhere", async () => {
    const c = await env.contest(t.teamId);
    const json = { 'x-api-key': t.privateKey, 'content-type': 'application/json' };
    const deep = (bytes: number) => {
      const depth = Math.floor((bytes - 40) / 2);
      return `{"name":"R","a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    };
    const big = deep(1024 * 1024 - 64);
    const rewards = await raw('POST', `/api/v1/contests/${c.id}/rewards`, json, big);
    expect([rewards.status, rewards.body.error]).toEqual([400, 'JSON nested too deeply']);
    const elsewhere = await raw('PATCH', `/api/v1/contests/${c.id}`, json, big);
    expect([elsewhere.status, elsewhere.body.error]).toEqual([413, 'Request body too large']);
    const n = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from rewards where contest_id = ${c.id}`,
    );
    expect(n[0]!.n).toBe(0);
  });
});
