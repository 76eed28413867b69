/**
 * Connections to other tools on the Worker, each flow once, against the stand-ins of Klaviyo,
 * Mailchimp and HubSpot (test/support/stand-ins/providers.ts, started beside workerd and read
 * through their /__state): the credential sealed with Web Crypto (AES-GCM) and never answered
 * back; each connection test through the Worker's fetch; a sign-up with consent, confirmed, sent
 * by the Worker's cron (subscribed, its event after it), never by the request; an erasure deleting
 * the person at each tool; the existing entries sent in bulk. Every captured request held to the
 * provider's documented shape.
 */

import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/worker.js';
import { STAND_IN_CONNECTIONS } from '../support/stand-ins/connections.js';
import { call, eventually, hasPostgres, makeContest, makeTeam, resendLog, type Team } from './support/workerd.js';

const providersUrl = (env as unknown as { KLAVIYO_API_URL: string }).KLAVIYO_API_URL;

async function runCron() {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env as never, ctx);
  await waitOnExecutionContext(ctx);
}

/** what the stand-ins hold */
async function stand(): Promise<any> {
  return (await fetch(`${providersUrl}/__state`)).json();
}

describe.skipIf(!hasPostgres)('integrations on the Worker', () => {
  let team: Team;
  const ids: Record<string, string> = {};
  const tag = Math.random().toString(36).slice(2, 8);
  let contestId: string;
  beforeAll(async () => {
    team = await makeTeam('Integrations');
  });

  it('each tool connected: the key never answered back, the connection test passes at its stand-in', async () => {
    const c = await makeContest(team.teamId, { title: 'Edge sync', publicSignup: true });
    contestId = c.id;
    const consent = await call('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { consentText: 'Send me the newsletter.' },
    });
    expect(consent.status, consent.text).toBe(200);
    for (const [name, body] of Object.entries(STAND_IN_CONNECTIONS)) {
      const made = await call('POST', '/api/v1/integrations', {
        key: team.privateKey,
        body: { ...body, contests: [c.id] },
      });
      expect(made.status, made.text).toBe(201);
      ids[name] = made.body.data.id;
      const secret = 'apiKey' in body.credentials ? body.credentials.apiKey : body.credentials.accessToken;
      expect(made.body.data.credentials).toEqual({ hint: `…${secret.slice(-4)}` });
      const list = await call('GET', '/api/v1/integrations', { key: team.privateKey });
      expect(list.text).not.toContain(secret);
      const test = await call('POST', `/api/v1/integrations/${ids[name]}/test`, { key: team.privateKey });
      expect(test.status, test.text).toBe(200);
      expect(test.body.data.passed, test.text).toBe(true);
    }
  });

  it("a sign-up with consent, confirmed, reaches every tool from the Worker's cron, its event after it", async () => {
    const email = `edge-${tag}@example.com`;
    const s = await call('POST', `/api/v1/contests/${contestId}/signup`, {
      key: team.publicKey,
      body: { email, name: 'Edge', consent: true },
    });
    expect(s.status, s.text).toBe(201);
    const mail = await eventually(
      async () =>
        (await resendLog()).delivered.find((d) => d.body?.to?.[0] === email) as { body: { text: string } } | undefined,
    );
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.body.text)![1]!;
    expect((await call('GET', `/api/confirm/${code}`)).status).toBe(200);
    // written with the confirmation, sent by the cron: nothing at the tools yet
    expect((await stand()).klaviyo.profiles[email]).toBeUndefined();
    await runCron();
    const st = await stand();
    expect(st.klaviyo.profiles[email].attributes).toMatchObject({
      email,
      first_name: 'Edge',
      properties: { contest_engine_contest: 'Edge sync', contest_engine_points: 0 },
    });
    expect(st.klaviyo.subscribed).toContain(email);
    expect(st.klaviyo.events).toContainEqual({ metric: 'Joined contest', email, properties: { contest: 'Edge sync' } });
    expect(st.mailchimp.members[email]).toMatchObject({ status: 'subscribed', merge_fields: { FNAME: 'Edge' } });
    expect(st.mailchimp.events).toContainEqual({ email, name: 'joined_contest', properties: { contest: 'Edge sync' } });
    expect(st.hubspot.contacts[email]).toMatchObject({ email, contest_engine_last_event: 'Joined contest' });
    expect(st.violations).toEqual([]);
  });

  it('the existing entries sent in bulk: a backfill with its progress', async () => {
    const r = await call('POST', `/api/v1/integrations/${ids.hubspot}/backfill`, { key: team.privateKey });
    expect(r.status, r.text).toBe(202);
    expect(r.body.data).toMatchObject({ total: 1, pending: 1, done: false });
    await runCron();
    const p = await call('GET', `/api/v1/integrations/${ids.hubspot}/backfill`, { key: team.privateKey });
    expect(p.body.data).toMatchObject({ total: 1, delivered: 1, done: true });
  });

  it('an erasure deletes the person at each tool, and each log records it', async () => {
    const email = `edge-${tag}@example.com`;
    const entry = (await call('GET', `/api/v1/contests/${contestId}/entries?search=${email}`, { key: team.privateKey }))
      .body.data[0];
    const erased = await call('DELETE', `/api/v1/entries/${entry.id}`, { key: team.privateKey });
    expect(erased.status, erased.text).toBe(200);
    await runCron();
    const st = await stand();
    expect(st.klaviyo.profiles[email]).toBeUndefined();
    expect(st.mailchimp.members[email]).toBeUndefined();
    expect(st.hubspot.contacts[email]).toBeUndefined();
    for (const id of Object.values(ids)) {
      const log = await call('GET', `/api/v1/integrations/${id}/deliveries?kind=erase&entryId=${entry.id}`, {
        key: team.privateKey,
      });
      expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(['delivered']);
    }
    expect(st.violations).toEqual([]);
  });

  it("MD5 (Mailchimp's member hash) is there in workerd's node:crypto", () => {
    // Mailchimp's documented example: the hash of the lower-cased address
    expect(createHash('md5').update('ann@example.com').digest('hex')).toBe('257c57037d384ae37ea27a07e8a01665');
  });
});
