/** GET /api/v1/key: the key of the request, its team and mode; never the key itself. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createApiKey } from './admin.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Key team');
});
afterAll(() => env.close());

describe('GET /api/v1/key', () => {
  it('answers the key of the request: team, type, name, prefix and personal-data mode', async () => {
    const priv = await env.request('GET', '/api/v1/key', { key: t.privateKey });
    expect(priv.status).toBe(200);
    expect(priv.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        teamId: t.teamId,
        teamName: 'Key team',
        type: 'private',
        name: 'priv',
        prefix: t.privateKey.slice(0, 11),
        personalData: null,
      },
    });
    const pub = await env.request('GET', '/api/v1/key', { key: t.publicKey });
    expect(pub.body.data).toMatchObject({ teamId: t.teamId, type: 'public', personalData: 'full' });
    const masked = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'page', 'masked')).key;
    expect((await env.request('GET', '/api/v1/key', { key: masked })).body.data).toMatchObject({
      type: 'public',
      name: 'page',
      personalData: 'masked',
    });
    expect(priv.text).not.toContain(t.privateKey);
  });

  it('a missing, unknown or revoked key answers 401 Missing or invalid API key; the admin token is not a key', async () => {
    const other = await env.team('Other');
    const keys = await env.request('GET', `/api/admin/teams/${other.teamId}/api-keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const privId = keys.body.data.find((k: { type: string }) => k.type === 'private').id;
    await env.request('DELETE', `/api/admin/api-keys/${privId}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    for (const key of [undefined, `sk_${'Q'.repeat(40)}`, other.privateKey, ADMIN_TOKEN]) {
      const r = await env.request('GET', '/api/v1/key', key === undefined ? {} : { key });
      expect([r.status, r.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);
    }
  });
});
