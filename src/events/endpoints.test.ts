/**
 * Outbound events (webhooks to the team's servers): endpoints, every event type, Standard
 * Webhooks signatures checked with the official `standardwebhooks` package, retries with
 * backoff, the deliveries log, manual retry, the 10 s cut, retention.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoint, env, fresh, received, receiverFetch } from '../../test/support/fixtures/events.js';
import { EVENT_TYPES } from '../sql/events.js';
import { ATTEMPT_TIMEOUT_MS } from './deliver.js';

describe('webhook endpoints', () => {
  it('create answers 201 with the secret once; events omitted = every type by name; list, patch, delete', async () => {
    const team = await fresh();
    const r = await env.request('POST', '/api/v1/webhook-endpoints', {
      key: team.privateKey,
      body: { url: 'https://hooks.example.test/a', description: 'CRM' },
    });
    expect(r.status).toBe(201);
    const ep = r.body.data;
    expect(Object.keys(ep).sort()).toEqual(['createdAt', 'description', 'enabled', 'events', 'id', 'secret', 'url']);
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(ep.secret.slice(6), 'base64')).toHaveLength(32);
    expect(ep.events).toEqual([...EVENT_TYPES]);
    expect(ep).toMatchObject({ url: 'https://hooks.example.test/a', description: 'CRM', enabled: true });

    const list = await env.request('GET', '/api/v1/webhook-endpoints', { key: team.privateKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { id: ep.id, url: ep.url, events: ep.events, description: 'CRM', enabled: true, createdAt: ep.createdAt },
    ]);

    const p = await env.request('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, {
      key: team.privateKey,
      body: { events: ['entry.created', 'entry.created', 'points.adjusted'], enabled: false, description: null },
    });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({
      events: ['entry.created', 'points.adjusted'],
      enabled: false,
      description: null,
    });
    expect(p.body.data.secret).toBeUndefined();

    const d = await env.request('DELETE', `/api/v1/webhook-endpoints/${ep.id}`, { key: team.privateKey });
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ success: true, data: { id: ep.id, deleted: true } });
    expect((await env.request('DELETE', `/api/v1/webhook-endpoints/${ep.id}`, { key: team.privateKey })).body).toEqual({
      success: false,
      error: 'Webhook endpoint not found',
    });
  });

  it('refuses bad urls and event names with the exact messages, and changes nothing', async () => {
    const team = await fresh();
    const bad = async (body: unknown, error: string) => {
      const r = await env.request('POST', '/api/v1/webhook-endpoints', { key: team.privateKey, body });
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, error]);
    };
    for (const url of [
      'http://hooks.example.test/in',
      'ftp://hooks.example.test/',
      'not a url',
      '',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://172.16.5.4/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
      'http://localhost:3000/x',
      'https://user:pw@hooks.example.test/x',
    ])
      await bad({ url }, 'Invalid url');
    await bad({}, 'Invalid url');
    await bad({ url: 42 }, 'Invalid url');
    await bad({ url: 'https://hooks.example.test/', events: [] }, 'Unknown event type');
    await bad({ url: 'https://hooks.example.test/', events: ['entry.created', 'entry.nope'] }, 'Unknown event type');
    await bad({ url: 'https://hooks.example.test/', events: 'entry.created' }, 'Unknown event type');
    expect((await env.request('GET', '/api/v1/webhook-endpoints', { key: team.privateKey })).body.data).toEqual([]);
    const pub = await env.request('GET', '/api/v1/webhook-endpoints', { key: team.publicKey });
    expect([pub.status, pub.body.error]).toEqual([403, 'This endpoint requires a private API key']);
  });

  it('ALLOW_HTTP_WEBHOOKS=1 allows http only for localhost/loopback, and private hosts', async () => {
    const team = await fresh();
    env.deps.config.allowHttpWebhooks = true;
    try {
      for (const url of [
        'http://localhost:3000/x',
        'http://127.0.0.1:3000/x',
        'http://[::1]:3000/x',
        'https://10.0.0.2/x',
      ]) {
        const r = await env.request('POST', '/api/v1/webhook-endpoints', { key: team.privateKey, body: { url } });
        expect(r.status, url).toBe(201);
      }
      const r = await env.request('POST', '/api/v1/webhook-endpoints', {
        key: team.privateKey,
        body: { url: 'http://hooks.example.test/x' },
      });
      expect([r.status, r.body.error]).toEqual([400, 'Invalid url']);
    } finally {
      env.deps.config.allowHttpWebhooks = false;
    }
  });

  it('a host name that resolves to a private address is refused (where the runtime resolves names)', async () => {
    const team = await fresh();
    env.deps.resolveHost = async (h) => (h === 'internal.example.test' ? ['10.0.0.7'] : ['93.184.215.14']);
    try {
      const r = await env.request('POST', '/api/v1/webhook-endpoints', {
        key: team.privateKey,
        body: { url: 'https://internal.example.test/x' },
      });
      expect([r.status, r.body.error]).toEqual([400, 'Invalid url']);
      const ok = await endpoint({ url: 'https://public.example.test/x' }, team);
      const p = await env.request('PATCH', `/api/v1/webhook-endpoints/${ok.id}`, {
        key: team.privateKey,
        body: { url: 'https://internal.example.test/y' },
      });
      expect([p.status, p.body.error]).toEqual([400, 'Invalid url']);
      // the name now points inside (DNS changed after creation): the attempt is refused, not sent
      env.deps.resolveHost = async () => ['192.168.1.1'];
      const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
      await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: 'dns@example.com' },
      });
      await env.settle();
      expect(received).toEqual([]);
      const log = await env.request('GET', `/api/v1/webhook-endpoints/${ok.id}/deliveries`, { key: team.privateKey });
      expect(log.body.data[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(log.body.data[0].lastError).toMatch(/^Refused/);
    } finally {
      env.deps.resolveHost = undefined;
    }
  });
});

describe('a receiver that hangs', () => {
  let server: Server;
  let hits = 0;
  beforeAll(async () => {
    server = createServer(() => {
      hits += 1; // never answers
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('is cut at 10 s (the production timeout) and the delivery is retried later', async () => {
    expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
    const team = await fresh();
    env.deps.config.allowHttpWebhooks = true;
    env.deps.fetch = undefined; // the real fetch
    try {
      const ep = await endpoint({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }, team);
      await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, { key: team.privateKey });
      const started = Date.now();
      await env.settle();
      expect(hits).toBe(1);
      // not before the 10 s (a loaded machine can only make it later: no upper bound); the cut is
      // the attempt's own word below
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
      const log = await env.request('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`, { key: team.privateKey });
      expect(log.body.data[0]).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: null,
        lastError: 'Timed out after 10 s',
      });
    } finally {
      env.deps.config.allowHttpWebhooks = false;
      env.deps.fetch = receiverFetch;
    }
  }, 30_000);
});
