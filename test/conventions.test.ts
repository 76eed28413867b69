/** docs/api.md: envelope, 404, bad JSON, 413, 500 without details, CORS, request ids. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { type Db, query } from '../src/db/client.js';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const admin = { authorization: 'Bearer test-admin-token-0123456789' };

describe('envelope and errors', () => {
  it('unknown routes answer a JSON 404 in the envelope', async () => {
    for (const [m, p] of [
      ['GET', '/nope'],
      ['POST', '/api/v1/nothing-here'],
      ['DELETE', '/api/v1/contests'],
    ] as const) {
      const r = await env.request(m, p);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, error: 'Not found' });
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
    }
  });

  it('unparseable JSON answers 400 Invalid request body and creates nothing', async () => {
    const before = await query(env.db, sql`select count(*)::int as n from teams`);
    for (const raw of ['{bad', '{"name": "x"', 'nul', '[1,']) {
      const r = await env.request('POST', '/api/admin/teams', { headers: admin, rawBody: raw });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'Invalid request body' });
    }
    const after = await query(env.db, sql`select count(*)::int as n from teams`);
    expect(after).toEqual(before);
  });

  it('JSON that is not an object answers 400 Invalid request body', async () => {
    for (const raw of ['[]', '"name"', '42', 'null', 'true']) {
      const r = await env.request('POST', '/api/admin/teams', { headers: admin, rawBody: raw });
      expect([raw, r.status, r.body]).toEqual([raw, 400, { success: false, error: 'Invalid request body' }]);
      expect(r.body).toEqual({ success: false, error: 'Invalid request body' });
    }
  });

  it('validation errors name the field', async () => {
    const missing = await env.request('POST', '/api/admin/teams', { headers: admin, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, error: 'name is required' });
    const wrong = await env.request('POST', '/api/admin/teams', { headers: admin, body: { name: 5 } });
    expect(wrong.body).toEqual({ success: false, error: 'Invalid name' });
  });

  it('bodies over 64 KiB answer 413 Request body too large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(65 * 1024) });
    const r = await env.request('POST', '/api/admin/teams', { headers: admin, rawBody: big });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ success: false, error: 'Request body too large' });
    // also when the length is not announced up front (chunked body)
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await env.app.request('/api/admin/teams', {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: stream,
      // @ts-expect-error undici needs duplex for stream bodies
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, error: 'Request body too large' });
  });

  it('a body just under 64 KiB is accepted', async () => {
    const name = 'y'.repeat(150);
    const r = await env.request('POST', '/api/admin/teams', {
      headers: admin,
      rawBody: JSON.stringify({ name, pad: 'z'.repeat(60 * 1024) }),
    });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe(name);
  });

  it('unexpected faults answer 500 Internal server error with no details; the log has them', async () => {
    const broken = {
      execute: async () => {
        throw new Error('relation "secret_table" does not exist at character 42');
      },
    } as unknown as Db;
    const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
    const app = createApp({
      ...env.deps,
      database: { acquire: () => ({ db: broken, release: async () => {} }) },
      logger: { info: () => {}, error: (msg, fields) => logs.push({ msg, fields }) },
    });
    const res = await app.request('/api/v1/contests', { headers: { 'x-api-key': t.publicKey } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ success: false, error: 'Internal server error' });
    expect(text).not.toMatch(/secret_table|relation|at character|Error/);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_[0-9a-f]{24}$/);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.fields?.requestId).toBe(requestId);
    expect(String(logs[0]!.fields?.error)).toContain('secret_table');
  });

  it('health answers 503 when the database does not', async () => {
    const app = createApp({
      ...env.deps,
      logger: { info: () => {}, error: () => {} },
      database: {
        acquire: () => ({
          db: { execute: async () => Promise.reject(new Error('down')) } as unknown as Db,
          release: async () => {},
        }),
      },
    });
    const res = await app.request('/health');
    expect(res.status).toBe(503);
  });
});

describe('CORS and request ids', () => {
  it('answers preflights on /api/v1/* from any origin, allowing x-api-key, content-type and authorization (entry tokens), without credentials', async () => {
    const r = await env.request('OPTIONS', '/api/v1/contests', {
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,content-type',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-headers')).toBe('x-api-key,content-type,authorization');
    expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('adds the CORS header to actual responses, errors included', async () => {
    const ok = await env.request('GET', '/api/v1/contests', {
      key: t.publicKey,
      headers: { origin: 'https://shop.example' },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const bad = await env.request('GET', '/api/v1/contests', { headers: { origin: 'https://shop.example' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    // a browser may read the request id, Retry-After and Server-Timing of every answer
    const post = await env.request('POST', '/api/v1/contests/not-a-uuid/entries', {
      key: t.publicKey,
      body: { email: 'a@example.com' },
    });
    const missing = await env.request('GET', '/api/v1/nothing-here', { key: t.publicKey });
    for (const r of [ok, bad, post, missing]) {
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-expose-headers')).toBe('x-request-id,retry-after,server-timing');
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
      // round trips for anyone; the database's time only for a private key (these are public-key answers)
      expect(r.headers.get('server-timing')).toMatch(/^db;desc="\d+ round trips?"$/);
    }
    const own = await env.request('GET', '/api/v1/contests', { key: t.privateKey });
    expect(own.headers.get('server-timing')).toMatch(/^db;dur=[\d.]+;desc="1 round trip"$/);
    expect([post.status, missing.status]).toEqual([403, 404]);
  });

  it('does not add CORS headers outside /api/v1', async () => {
    const r = await env.request('GET', '/health', { headers: { origin: 'https://shop.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('every response carries a request id that is also in the log; a sane incoming one is kept', async () => {
    const r = await env.request('GET', '/health');
    const id = r.headers.get('x-request-id');
    expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(env.logs.some((l) => l.msg === 'request' && l.fields?.requestId === id && l.fields?.status === 200)).toBe(
      true,
    );
    const kept = await env.request('GET', '/health', { headers: { 'x-request-id': 'edge-abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-abc-123');
    const replaced = await env.request('GET', '/health', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
