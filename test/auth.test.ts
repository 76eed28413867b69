/**
 * Every /api/v1 endpoint of the reference, with the documented 401/403 wording (docs/api.md, quirks
 * kept): missing, malformed, unknown, revoked and query-string keys; public keys on private routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from './support/endpoints.js';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
let revoked: string;
let sent = 0;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
  const r = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { type: 'private' },
  });
  revoked = r.body.data.key;
  await env.request('DELETE', `/api/admin/api-keys/${r.body.data.id}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
});
afterAll(() => env.close());

const body = (m: string) => (m === 'GET' || m === 'DELETE' ? undefined : {});

describe.each(ENDPOINTS)('%s %s', (method, path, access, unauthorized, forbidden) => {
  it(`answers 401 "${unauthorized}" without a valid key`, async () => {
    const wellFormedUnknown = `sk_${'A'.repeat(40)}`;
    const cases: { key?: string; path?: string }[] = [
      {},
      { key: '' },
      { key: 'garbage' },
      { key: `pk_short` },
      { key: wellFormedUnknown },
      { key: revoked },
      { path: `${path}${path.includes('?') ? '&' : '?'}apiKey=${t.privateKey}` },
      { key: t.privateKey, path: `${path}?apiKey=${t.privateKey}` },
    ];
    for (const c of cases) {
      // each from an address of its own: past 100 unknown keys a minute an address is refused (429)
      const headers = { 'x-forwarded-for': `198.18.${(++sent >> 8) & 255}.${sent & 255}` };
      const r = await env.request(method, c.path ?? path, { key: c.key, body: body(method), headers });
      expect([c, r.status, r.body]).toEqual([c, 401, { success: false, error: unauthorized }]);
    }
  });

  if (access === 'priv') {
    it(`answers 403 "${forbidden}" to a public key`, async () => {
      const r = await env.request(method, path, { key: t.publicKey, body: body(method) });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, error: forbidden });
    });
  } else {
    it('lets a public key through', async () => {
      const r = await env.request(method, path, { key: t.publicKey, body: body(method) });
      expect([401, 403]).not.toContain(r.status);
      // the route exists (an unknown route would answer the generic 404)
      expect(r.body.error).not.toBe('Not found');
    });
  }

  it('lets a private key through', async () => {
    const r = await env.request(method, path, { key: t.privateKey, body: body(method) });
    expect([401, 403]).not.toContain(r.status);
    expect(r.body.error).not.toBe('Not found');
  });
});
