/**
 * What the connections send (docs/integrations.md): a confirmed person created or updated at each
 * provider's stand-in with the properties a team's emails use, subscribed only with their consent;
 * written by the statement that confirmed them, delivered by the every-minute job (never on the
 * request); a burst of changes folded into one call per person; 429 waits for Retry-After, 5xx
 * is retried, another 4xx fails with the provider's words. Every captured request is held to the
 * provider's documented shape (test/support/stand-ins/providers.ts).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import {
  type ProviderStandIns,
  STAND_IN_CONNECTIONS,
  seededStandIns,
  standInConfig,
} from '../../test/support/stand-ins/providers.js';
import { query } from '../db/client.js';
import { runScheduledJobs } from '../jobs.js';

const KLAVIYO_KEY = STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey;

let env: TestEnv;
let t: TeamFixture;
let stand: ProviderStandIns;
let contestId: string;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Sync');
  stand = await seededStandIns();
  env.deps.config.integrations = standInConfig(stand);
  const c = await env.contest(t.teamId, {
    title: 'Spring giveaway',
    referral: { advocatePoints: 10, friendPoints: 5 },
  });
  contestId = c.id;
  const on = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
    key: t.privateKey,
    body: { publicSignup: true, consentText: 'Send me the newsletter.' },
  });
  expect(on.status, on.text).toBe(200);
  for (const body of Object.values(STAND_IN_CONNECTIONS)) {
    const r = await env.request('POST', '/api/v1/integrations', { key: t.privateKey, body });
    expect(r.status, r.text).toBe(201);
    // the test makes Mailchimp's merge fields and HubSpot's properties the sync writes
    const tested = await env.request('POST', `/api/v1/integrations/${r.body.data.id}/test`, { key: t.privateKey });
    expect(tested.body.data.passed, tested.text).toBe(true);
  }
});
afterAll(async () => {
  await env.close();
  await stand?.close();
});

/** the people's deliveries (`person`), or those of another kind */
const owed = async (kind = 'person') =>
  query<{ provider: string; status: string; attempts: number; last_error: string | null }>(
    env.db,
    sql`select i.provider, d.status, d.attempts, d.last_error from integration_deliveries d
        join integrations i on i.id = d.integration_id where d.kind = ${kind} order by i.provider, d.created_at`,
  );
/** a keyless sign-up confirmed by its email's link */
async function joinAndConfirm(email: string, extra: Record<string, unknown> = {}) {
  const s = await env.request('POST', `/api/v1/contests/${contestId}/signup`, { body: { email, ...extra } });
  expect(s.status, s.text).toBe(201);
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email).at(-1)!;
  const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
  const res = await env.app.request(`/api/confirm/${code}`);
  expect(res.status).toBeLessThan(400);
  return s.body.data as { entryId: string; referralCode: string };
}

/** an entry made by the team's server (no consent asked) and confirmed by its email's link */
async function createAndConfirm(email: string) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body: { email } });
  expect(r.status, r.text).toBe(201);
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email).at(-1);
  const code = mail ? /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)?.[1] : undefined;
  if (code) expect((await env.app.request(`/api/confirm/${code}`)).status).toBeLessThan(400);
}

describe('a confirmed person reaches each connected tool', () => {
  it('with consent: subscribed, with the properties; nothing is sent before the every-minute job', async () => {
    const before = stand.requests.length;
    const ann = await joinAndConfirm('ann@example.com', { name: 'Ann', consent: true, customFields: { city: 'Lyon' } });
    // the statement that confirmed Ann owes each connection a delivery; no provider was called
    expect((await owed()).map((d) => [d.provider, d.status])).toEqual([
      ['hubspot', 'pending'],
      ['klaviyo', 'pending'],
      ['mailchimp', 'pending'],
    ]);
    // and its event (joined), one per tool
    expect((await owed('event')).map((d) => [d.provider, d.status])).toEqual([
      ['hubspot', 'pending'],
      ['klaviyo', 'pending'],
      ['mailchimp', 'pending'],
    ]);
    expect(stand.requests.length).toBe(before);
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 6, retrying: 0, failed: 0 });
    expect((await owed()).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);

    const page = `http://contests.test/c/${contestId}`;
    const k = stand.klaviyo.profiles.get('ann@example.com')!;
    expect(k.attributes).toMatchObject({
      email: 'ann@example.com',
      first_name: 'Ann',
      properties: {
        contest_engine_contest: 'Spring giveaway',
        contest_engine_referral_code: ann.referralCode,
        contest_engine_referral_link: `${page}?ref=${ann.referralCode}`,
        contest_engine_page_link: page,
        contest_engine_position: 1,
        contest_engine_points: 0,
        contest_engine_confirmed_referrals: 0,
        city: 'Lyon',
      },
    });
    expect(stand.klaviyo.subscribed.has('ann@example.com')).toBe(true);
    expect(stand.mailchimp.members.get('ann@example.com')).toEqual({
      status: 'subscribed',
      merge_fields: expect.objectContaining({
        FNAME: 'Ann',
        CE_CONTEST: 'Spring giveaway',
        CE_REFCODE: ann.referralCode,
        CE_POS: 1,
      }),
    });
    expect(stand.hubspot.contacts.get('ann@example.com')).toMatchObject({
      email: 'ann@example.com',
      firstname: 'Ann',
      contest_engine_contest: 'Spring giveaway',
      contest_engine_position: '1',
    });
    const kReq = stand.requests.find((r) => r.path === '/api/profile-import')!;
    expect(kReq.headers['content-type']).toBe('application/vnd.api+json');
    expect(stand.violations).toEqual([]);
  });

  it('without consent: the person is in the tool but not subscribed (Klaviyo list member, Mailchimp transactional)', async () => {
    await createAndConfirm('bo@example.com');
    await runScheduledJobs(env.deps);
    expect(stand.klaviyo.profiles.has('bo@example.com')).toBe(true);
    expect(stand.klaviyo.subscribed.has('bo@example.com')).toBe(false);
    expect(stand.klaviyo.members.has(stand.klaviyo.profiles.get('bo@example.com')!.id)).toBe(true);
    expect(stand.mailchimp.members.get('bo@example.com')?.status).toBe('transactional');
    expect(stand.hubspot.contacts.has('bo@example.com')).toBe(true);
    expect(stand.violations).toEqual([]);
  });

  it('an unconfirmed sign-up sends nothing; 25 points changes of a person make one call per tool, the last values', async () => {
    const s = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
      body: { email: 'cy@example.com', consent: true },
    });
    expect(s.status).toBe(201);
    const calls = () => stand.requests.filter((r) => JSON.stringify(r.body ?? '').includes('ann@example.com')).length;
    await runScheduledJobs(env.deps);
    expect(stand.klaviyo.profiles.has('cy@example.com')).toBe(false);
    const ann = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'ann@example.com'`))[0]!;
    for (let i = 0; i < 25; i++) {
      const r = await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
        key: t.privateKey,
        body: { points: 1, reason: `burst ${i}` },
      });
      expect(r.status).toBe(200);
    }
    const before = calls();
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 3, retrying: 0, failed: 0 });
    // Klaviyo's profile and subscription, Mailchimp's member, HubSpot's upsert: one round each
    expect(calls() - before).toBe(4);
    expect(stand.hubspot.contacts.get('ann@example.com')?.contest_engine_points).toBe('25');
    expect(stand.mailchimp.members.get('ann@example.com')?.merge_fields.CE_POINTS).toBe(25);
  });

  it('429 waits for Retry-After, 500 is tried again later, another 4xx fails with the provider words', async () => {
    const ann = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'ann@example.com'`))[0]!;
    await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
      key: t.privateKey,
      body: { points: 1, reason: 'again' },
    });
    stand.fail('/api/', { status: 429, retryAfter: 120 });
    stand.fail('/3.0/', { status: 500 });
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 1, retrying: 2, failed: 0 });
    // not due yet a minute later (Retry-After 120 s; the 500's first back-off is 30-36 s)
    env.clock.advance(60_000);
    const later = await runScheduledJobs(env.deps);
    expect(later.integrations).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    env.clock.advance(61_000);
    expect((await runScheduledJobs(env.deps)).integrations).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    // a refused key: failed for good, in Klaviyo's words
    stand.klaviyo.keys.delete(KLAVIYO_KEY);
    await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
      key: t.privateKey,
      body: { points: 1, reason: 'once more' },
    });
    const refused = await runScheduledJobs(env.deps);
    expect(refused.integrations).toEqual({ delivered: 2, retrying: 0, failed: 1 });
    const failed = (await owed()).filter((d) => d.status === 'failed');
    expect(failed.map((d) => [d.provider, d.last_error])).toEqual([
      ['klaviyo', 'Klaviyo answered 401: Missing or invalid private key.'],
    ]);
    stand.klaviyo.keys.add(KLAVIYO_KEY);
    expect(stand.violations).toEqual([]);
  });

  it('an erasure deletes the person at each tool, then the address is forgotten; an unconfirmed one owes nothing', async () => {
    const ann = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'ann@example.com'`))[0]!;
    await runScheduledJobs(env.deps);
    expect(stand.klaviyo.profiles.has('ann@example.com')).toBe(true);
    const erased = await env.request('DELETE', `/api/v1/entries/${ann.id}`, { key: t.privateKey });
    expect(erased.status, erased.text).toBe(200);
    const owedErase = await query<{ provider: string; email: string | null }>(
      env.db,
      sql`select i.provider, d.email from integration_deliveries d join integrations i on i.id = d.integration_id
          where d.kind = 'erase' order by i.provider`,
    );
    expect(owedErase).toEqual([
      { provider: 'hubspot', email: 'ann@example.com' },
      { provider: 'klaviyo', email: 'ann@example.com' },
      { provider: 'mailchimp', email: 'ann@example.com' },
    ]);
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 3, retrying: 0, failed: 0 });
    expect(stand.klaviyo.profiles.has('ann@example.com')).toBe(false);
    expect(stand.mailchimp.members.has('ann@example.com')).toBe(false);
    expect(stand.hubspot.contacts.has('ann@example.com')).toBe(false);
    const kept = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from integration_deliveries where email is not null`,
    );
    expect(Number(kept[0]!.n)).toBe(0);
    // recorded: each connection's log shows what it was asked to delete, by the erased entry's id
    for (const conn of (await env.request('GET', '/api/v1/integrations', { key: t.privateKey })).body.data) {
      const log = await env.request('GET', `/api/v1/integrations/${conn.id}/deliveries?kind=erase&entryId=${ann.id}`, {
        key: t.privateKey,
      });
      expect(log.body.data.map((d: { kind: string; status: string }) => [d.kind, d.status])).toEqual([
        ['erase', 'delivered'],
      ]);
    }
    const del = stand.requests.find((r) => r.path === '/api/data-privacy-deletion-jobs')!;
    expect(del.body).toEqual({
      data: {
        type: 'data-privacy-deletion-job',
        attributes: { profile: { data: { type: 'profile', attributes: { email: 'ann@example.com' } } } },
      },
    });
    // cy never confirmed: never sent, so nothing to delete
    const cy = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'cy@example.com'`))[0]!;
    expect((await env.request('DELETE', `/api/v1/entries/${cy.id}`, { key: t.privateKey })).status).toBe(200);
    const cyOwed = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from integration_deliveries where entry_id = ${cy.id}`,
    );
    expect(Number(cyOwed[0]!.n)).toBe(0);
    expect(stand.violations).toEqual([]);
  });
});
