/**
 * Both database transports of the Worker, the same checks on each: `http` (the default, Neon's
 * SQL-over-HTTP path through scripts/neon-http.ts) and `ws` (DB_TRANSPORT=ws: the Neon Pool per
 * request through scripts/ws-proxy.ts, kept for the latency comparison). The Worker is called
 * directly with the env changed; for `ws` the HTTP endpoint is made unreachable, so a passing
 * request proves it went over the WebSocket. A unique violation must reach the app's error
 * mapping (SQLSTATE 23505 + constraint name) on both.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker, { type Env } from '../../src/worker.js';
import { hasPostgres, makeContest, makeTeam, type Team } from './support/workerd.js';

const base = env as unknown as Env;
const envs: Record<string, Env> = {
  http: { ...base, DB_TRANSPORT: 'http' },
  ws: { ...base, DB_TRANSPORT: 'ws', NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' },
};

describe.skipIf(!hasPostgres).each(['http', 'ws'])('Worker in workerd over DB_TRANSPORT=%s', (transport) => {
  let team: Team;
  let contestId: string;

  async function call(method: string, path: string, opts: { key?: string; body?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const ctx = createExecutionContext();
    const req = new Request(`http://contests.test${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const res = await worker.fetch(req, envs[transport]!, ctx);
    const body = (await res.json()) as any;
    await waitOnExecutionContext(ctx); // background work (WebSocket path: the Pool's end) is done
    return { status: res.status, body };
  }

  beforeAll(async () => {
    team = await makeTeam(`Team over ${transport}`);
    contestId = (await makeContest(team.teamId, { title: `Over ${transport}` })).id;
  });

  it('checks keys and reads a contest', async () => {
    expect(await call('GET', '/api/v1/contests', { key: 'pk_nope' })).toMatchObject({
      status: 401,
      body: { error: 'Invalid API key' },
    });
    const one = await call('GET', `/api/v1/contests/${contestId}`, { key: team.publicKey });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: contestId, title: `Over ${transport}` });
  });

  it('writes entries; an email another entry has answers 409 (a unique violation, mapped by its constraint)', async () => {
    const first = await call('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: `taken-${transport}@example.com` },
    });
    expect(first.status).toBe(201);
    const second = await call('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: `other-${transport}@example.com`, name: 'Old' },
    });
    expect(second.status).toBe(201);
    const id = second.body.data.entryId as string;
    const clash = await call('PUT', `/api/v1/entries/${id}`, {
      key: team.privateKey,
      body: { email: `TAKEN-${transport}@example.com`, name: 'New' },
    });
    expect(clash).toEqual({ status: 409, body: { success: false, error: 'Email already used by another entry' } });
    const after = await call('GET', `/api/v1/entries/${id}`, { key: team.publicKey });
    expect(after.body.data).toMatchObject({ email: `other-${transport}@example.com`, name: 'Old' });
  });
});
