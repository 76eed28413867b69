/**
 * Connections to other tools on the Worker: the credential sealed with Web Crypto (AES-GCM) and
 * never answered back, read again for the connection test, whose provider call goes through the
 * Worker's fetch (to the local stand-in of Klaviyo, test/worker/support/fake-resend.ts); a confirmed
 * person and their event sent by the Worker's cron.
 */

import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/worker.js';
import { call, hasPostgres, makeContest, makeTeam, resendLog, type Team } from './support/workerd.js';

async function runCron() {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env as never, ctx);
  await waitOnExecutionContext(ctx);
}

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

  it("a confirmed person reaches Klaviyo from the Worker's cron, not from the request", async () => {
    const apiKey = 'pk_workerdworkerdworkerd42';
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false, title: 'Edge sync' });
    const made = await call('POST', '/api/v1/integrations', {
      key: team.privateKey,
      body: { provider: 'klaviyo', credentials: { apiKey }, target: { listId: 'XyZ123' }, contests: [c.id] },
    });
    expect(made.status, made.text).toBe(201);
    const email = `edge-sync-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const entry = await call('POST', `/api/v1/contests/${c.id}/entries`, { key: team.privateKey, body: { email } });
    expect(entry.status, entry.text).toBe(201);
    const before = (await resendLog()).klaviyo.length;
    const mine = async () => (await resendLog()).klaviyo.slice(before);
    expect(await mine()).toEqual([]);
    await runCron();
    const sent = await mine();
    // the person, then their event (joined): the event's trigger on the Worker's Postgres too
    expect(sent.map((r) => [r.path, r.status])).toEqual([
      ['/api/profile-import', 200],
      ['/api/lists/XyZ123/relationships/profiles', 200],
      ['/api/events', 200],
    ]);
    expect(sent[2].body.data.attributes).toMatchObject({
      metric: { data: { type: 'metric', attributes: { name: 'Joined contest' } } },
      profile: { data: { type: 'profile', attributes: { email } } },
      properties: { contest: 'Edge sync' },
    });
    expect(sent[0].body.data.attributes).toMatchObject({
      email,
      properties: { contest_engine_contest: 'Edge sync', contest_engine_points: 0 },
    });
  });

  it("MD5 (Mailchimp's member hash, used by an erasure) is there in workerd's node:crypto", () => {
    // the value Node's own MD5 gives
    expect(createHash('md5').update('ann@example.com').digest('hex')).toBe('257c57037d384ae37ea27a07e8a01665');
  });
});
