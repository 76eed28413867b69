/**
 * Connections to other tools on the Worker: the credential sealed with Web Crypto (AES-GCM) and
 * never answered back, read again for the connection test, whose provider call goes through the
 * Worker's fetch (to the local stand-in of Klaviyo's lists, test/worker/support/fake-resend.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, hasPostgres, makeTeam, type Team } from './support/workerd.js';

describe.skipIf(!hasPostgres)('integrations on the Worker', () => {
  let team: Team;
  beforeAll(async () => {
    team = await makeTeam('Integrations');
  });

  it('a Klaviyo connection: made, listed without its key, tested at the stand-in, deleted', async () => {
    const apiKey = 'pk_workerdworkerdworkerd42';
    const made = await call('POST', '/api/v1/integrations', {
      key: team.privateKey,
      body: { provider: 'klaviyo', credentials: { apiKey }, target: { listId: 'XyZ123' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.credentials).toEqual({ hint: '…rd42' });
    const list = await call('GET', '/api/v1/integrations', { key: team.privateKey });
    expect(list.text).not.toContain(apiKey);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([made.body.data.id]);
    const test = await call('POST', `/api/v1/integrations/${made.body.data.id}/test`, { key: team.privateKey });
    expect(test.status, test.text).toBe(200);
    expect(test.body.data).toEqual({
      passed: true,
      providerStatus: 200,
      message: 'Klaviyo list "Workerd list" found',
      created: [],
    });
    const del = await call('DELETE', `/api/v1/integrations/${made.body.data.id}`, { key: team.privateKey });
    expect(del.body.data).toEqual({ id: made.body.data.id, deleted: true });
  });
});
