/**
 * Events as each tool names them (docs/integrations.md): joined, a friend referred, a reward
 * unlocked with its code, a draw won: Klaviyo events, Mailchimp member events and tags, HubSpot
 * contact properties, at the providers' stand-ins, every request held to the documented shape.
 * Then each connection's deliveries log and its retry, which never calls a provider itself.
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
import { sqlArray } from '../sql/arrays.js';
import { EVENT_TYPES } from '../sql/events.js';
import { TOOL_EVENTS } from './tool-events.js';

let env: TestEnv;
let t: TeamFixture;
let stand: ProviderStandIns;
let contestId: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Tool events');
  stand = await seededStandIns();
  env.deps.config.integrations = standInConfig(stand);
  const c = await env.contest(t.teamId, {
    title: 'Summer waitlist',
    referral: { advocatePoints: 10, friendPoints: 0 },
  });
  contestId = c.id;
  const on = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
    key: t.privateKey,
    body: { publicSignup: true, consentText: 'Send me the newsletter.' },
  });
  expect(on.status, on.text).toBe(200);
  const reward = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
    key: t.privateKey,
    body: { name: 'Sticker pack', pointsRequired: 10, code: 'STICKER10' },
  });
  expect(reward.status, reward.text).toBe(201);
  for (const [name, body] of Object.entries(STAND_IN_CONNECTIONS)) {
    const r = await env.request('POST', '/api/v1/integrations', { key: t.privateKey, body });
    expect(r.status, r.text).toBe(201);
    ids[name] = r.body.data.id;
    const tested = await env.request('POST', `/api/v1/integrations/${r.body.data.id}/test`, { key: t.privateKey });
    expect(tested.body.data.passed, tested.text).toBe(true);
  }
});
afterAll(async () => {
  await env.close();
  await stand?.close();
});

async function joinAndConfirm(email: string, extra: Record<string, unknown> = {}) {
  const s = await env.request('POST', `/api/v1/contests/${contestId}/signup`, {
    body: { email, consent: true, ...extra },
  });
  expect(s.status, s.text).toBe(201);
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email).at(-1)!;
  const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
  expect((await env.app.request(`/api/confirm/${code}`)).status).toBeLessThan(400);
  return s.body.data as { entryId: string; referralCode: string };
}

const klaviyoEvents = (email: string) =>
  [...stand.klaviyo.events.entries()].filter(([, e]) => e.email === email).map(([id, e]) => ({ id, ...e }));

describe('events reach each tool as it names them', () => {
  it('the event types the tools take are the database rule, and each has a name per tool', async () => {
    const taken = await query<{ type: string }>(
      env.db,
      sql`select t as type from unnest(${sqlArray(EVENT_TYPES, 'text')}) t where ce_integrations_take(t)`,
    );
    expect(taken.map((r) => r.type).sort()).toEqual(Object.keys(TOOL_EVENTS).sort());
    for (const n of Object.values(TOOL_EVENTS)) expect(n.mailchimp).toMatch(/^[a-z_]{2,30}$/);
  });

  it('joined: a Klaviyo event, a Mailchimp event and the contest as a tag, HubSpot last event; sent once', async () => {
    const ann = await joinAndConfirm('ann@example.com', { name: 'Ann' });
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 6, retrying: 0, failed: 0 });
    const [k] = klaviyoEvents('ann@example.com');
    expect(k).toMatchObject({ metric: 'Joined contest', properties: { contest: 'Summer waitlist' } });
    expect(k!.id).toMatch(new RegExp(`^[0-9a-f-]{36}:${ann.entryId}$`));
    const req = stand.requests.find((r) => r.path === '/api/events')!;
    expect(req.headers).toMatchObject({ 'content-type': 'application/vnd.api+json', revision: '2025-10-15' });
    expect(stand.mailchimp.events).toEqual([
      { email: 'ann@example.com', name: 'joined_contest', properties: { contest: 'Summer waitlist' } },
    ]);
    expect([...(stand.mailchimp.tags.get('ann@example.com') ?? [])]).toEqual(['Summer waitlist']);
    expect(stand.hubspot.contacts.get('ann@example.com')).toMatchObject({
      contest_engine_last_event: 'Joined contest',
      contest_engine_last_event_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // the person went before their event in the same run (Mailchimp needs the member first)
    const mc = stand.requests.filter((r) => r.path.startsWith('/3.0/lists/a1b2c3d4e5/members/')).map((r) => r.method);
    expect(mc).toEqual(['PUT', 'POST', 'POST']);
    expect((await runScheduledJobs(env.deps)).integrations).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(stand.violations).toEqual([]);
  });

  it('a friend confirmed through the link: the advocate referred a friend and unlocked a reward with its code', async () => {
    const annCode = (
      await query<{ referral_code: string }>(
        env.db,
        sql`select referral_code from entries where email = 'ann@example.com'`,
      )
    )[0]!.referral_code;
    await joinAndConfirm('ben@example.com', { referralCode: annCode });
    await runScheduledJobs(env.deps);
    const metrics = klaviyoEvents('ann@example.com').map((e) => e.metric);
    expect(metrics).toEqual(expect.arrayContaining(['Joined contest', 'Referred a friend', 'Unlocked reward']));
    expect(klaviyoEvents('ann@example.com').find((e) => e.metric === 'Unlocked reward')!.properties).toEqual({
      contest: 'Summer waitlist',
      reward: 'Sticker pack',
      code: 'STICKER10',
    });
    expect(stand.mailchimp.events.filter((e) => e.email === 'ann@example.com').map((e) => e.name)).toEqual(
      expect.arrayContaining(['referred_friend', 'unlocked_reward']),
    );
    expect(stand.mailchimp.tags.get('ann@example.com')).toEqual(new Set(['Summer waitlist', 'Reward: Sticker pack']));
    expect(stand.hubspot.contacts.get('ann@example.com')).toMatchObject({
      contest_engine_last_reward: 'Sticker pack',
      contest_engine_last_reward_code: 'STICKER10',
      contest_engine_points: '10',
    });
    expect(klaviyoEvents('ben@example.com').map((e) => e.metric)).toEqual(['Joined contest']);
    expect(stand.violations).toEqual([]);
  });

  it('a draw won: the winner alone hears of it', async () => {
    const d = await env.request('POST', `/api/v1/contests/${contestId}/draws`, {
      key: t.privateKey,
      body: { winners: 1, label: 'A surfboard' },
    });
    expect(d.status, d.text).toBe(201);
    const r = await env.request('POST', `/api/v1/draws/${d.body.data.id}/reveal`, { key: t.privateKey, body: {} });
    expect(r.status, r.text).toBe(200);
    const winnerId = r.body.data.results[0].entryId as string;
    const winner = (await query<{ email: string }>(env.db, sql`select email from entries where id = ${winnerId}`))[0]!
      .email;
    const other = winner === 'ann@example.com' ? 'ben@example.com' : 'ann@example.com';
    await runScheduledJobs(env.deps);
    expect(klaviyoEvents(winner).find((e) => e.metric === 'Won draw')!.properties).toEqual({
      contest: 'Summer waitlist',
      draw: 'A surfboard',
      position: '1',
    });
    expect(klaviyoEvents(other).some((e) => e.metric === 'Won draw')).toBe(false);
    expect(stand.mailchimp.tags.get(winner)?.has('Winner: Summer waitlist')).toBe(true);
    expect(stand.hubspot.contacts.get(winner)?.contest_engine_won_draw).toBe('A surfboard');
    expect(stand.violations).toEqual([]);
  });
});

describe("a connection's deliveries log, and its retry", () => {
  const log = (id: string, query = '') =>
    env.request('GET', `/api/v1/integrations/${id}/deliveries${query}`, { key: t.privateKey });

  it('lists what was sent, newest first, with what the provider answered; filters by status; another team sees 404', async () => {
    const page = await log(ids.klaviyo!, '?limit=100');
    expect(page.status, page.text).toBe(200);
    expect(page.body.pagination).toMatchObject({ page: 1, limit: 100 });
    const all = page.body.data as { kind: string; event: string | null; status: string; createdAt: string }[];
    expect(all.length).toBe(page.body.pagination.total);
    expect(all.every((d) => d.status === 'delivered')).toBe(true);
    expect(all.filter((d) => d.kind === 'event').map((d) => d.event)).toEqual(
      expect.arrayContaining(['entry.confirmed', 'referral.credited', 'reward.unlocked', 'draw.revealed']),
    );
    expect(all.filter((d) => d.kind === 'person').every((d) => d.event === null)).toBe(true);
    const times = all.map((d) => d.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all[0]).toMatchObject({ providerStatus: expect.any(Number), lastError: null, nextAttemptAt: null });
    expect((await log(ids.klaviyo!, '?status=failed')).body.data).toEqual([]);
    const bad = await log(ids.klaviyo!, '?status=lost');
    expect([bad.status, bad.body.error]).toEqual([400, 'Invalid status']);
    const other = await env.team('Other');
    const foreign = await env.request('GET', `/api/v1/integrations/${ids.klaviyo}/deliveries`, {
      key: other.privateKey,
    });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Integration not found']);
  });

  it('a failure shows the provider words; retry makes it due again without calling the provider, and the job sends it', async () => {
    const KEY = STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey;
    stand.klaviyo.keys.delete(KEY);
    const ann = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'ann@example.com'`))[0]!;
    const moved = await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
      key: t.privateKey,
      body: { points: 5, reason: 'bonus' },
    });
    expect(moved.status).toBe(200);
    await runScheduledJobs(env.deps);
    const failed = (await log(ids.klaviyo!, '?status=failed')).body.data;
    expect(failed).toMatchObject([
      {
        kind: 'person',
        entryId: ann.id,
        status: 'failed',
        attempts: 1,
        providerStatus: 401,
        lastError: 'Klaviyo answered 401: Missing or invalid private key.',
        nextAttemptAt: null,
      },
    ]);
    stand.klaviyo.keys.add(KEY);
    const before = stand.requests.length;
    const asked = env.clock.now().getTime();
    const retry = await env.request('POST', `/api/v1/integrations/${ids.klaviyo}/deliveries/${failed[0].id}/retry`, {
      key: t.privateKey,
    });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data).toMatchObject({
      id: failed[0].id,
      status: 'pending',
      attempts: 0,
    });
    // due at the moment it was asked
    const due = Date.parse(retry.body.data.nextAttemptAt);
    expect(due).toBeGreaterThanOrEqual(asked);
    expect(due).toBeLessThanOrEqual(env.clock.now().getTime());
    expect(stand.requests.length).toBe(before);
    expect((await runScheduledJobs(env.deps)).integrations).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    expect(stand.klaviyo.profiles.get('ann@example.com')?.attributes.properties).toMatchObject({
      contest_engine_points: 15,
    });
    const again = await env.request('POST', `/api/v1/integrations/${ids.klaviyo}/deliveries/${failed[0].id}/retry`, {
      key: t.privateKey,
    });
    expect([again.status, again.body.error]).toEqual([409, 'Delivery already delivered']);
    for (const [id, deliveryId, error] of [
      [ids.klaviyo!, '00000000-0000-4000-8000-000000000000', 'Delivery not found'],
      [ids.klaviyo!, 'nope', 'Delivery not found'],
      [ids.mailchimp!, failed[0].id, 'Delivery not found'],
      ['nope', failed[0].id, 'Integration not found'],
    ])
      expect(
        (
          await env.request('POST', `/api/v1/integrations/${id}/deliveries/${deliveryId}/retry`, {
            key: t.privateKey,
          })
        ).body.error,
      ).toBe(error);
  });

  it("a failed person's retry while a newer delivery of them waits: 409, and nothing changes", async () => {
    const KEY = STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey;
    stand.klaviyo.keys.delete(KEY);
    const ann = (await query<{ id: string }>(env.db, sql`select id from entries where email = 'ann@example.com'`))[0]!;
    await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
      key: t.privateKey,
      body: { points: 1, reason: 'a' },
    });
    await runScheduledJobs(env.deps);
    stand.klaviyo.keys.add(KEY);
    const failed = (await log(ids.klaviyo!, '?status=failed')).body.data[0];
    await env.request('POST', `/api/v1/entries/${ann.id}/points`, {
      key: t.privateKey,
      body: { points: 1, reason: 'b' },
    });
    const r = await env.request('POST', `/api/v1/integrations/${ids.klaviyo}/deliveries/${failed.id}/retry`, {
      key: t.privateKey,
    });
    expect([r.status, r.body.error]).toEqual([409, 'A newer delivery of this person is already waiting to be sent']);
    expect((await log(ids.klaviyo!, '?status=failed')).body.data.map((d: { id: string }) => d.id)).toEqual([failed.id]);
    expect(stand.violations).toEqual([]);
  });
});
