/**
 * Connections to other tools (/api/v1/integrations): credentials sealed at rest and never
 * answered back, the team's scope, the bodies' checks (400 naming the field, nothing written),
 * 503 without INTEGRATIONS_KEY, key rotation, and the connection test against stand-ins of
 * Klaviyo, Mailchimp and HubSpot built from their references (every request held to its
 * documented shape; the provider's own words on a failure; Mailchimp's merge fields and HubSpot's
 * properties created once).
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

const KEY = Buffer.alloc(32, 7).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 9).toString('base64');
const KLAVIYO_KEY = STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey;
const MAILCHIMP_KEY = STAND_IN_CONNECTIONS.mailchimp.credentials.apiKey;
const HUBSPOT_TOKEN = STAND_IN_CONNECTIONS.hubspot.credentials.accessToken;

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;
let stand: ProviderStandIns;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Integrations');
  other = await env.team('Someone else');
  stand = await seededStandIns();
  env.deps.config.integrations = standInConfig(stand, KEY);
});
afterAll(async () => {
  await env.close();
  await stand?.close();
});

const call = (method: string, path: string, body?: unknown, key = t.privateKey) =>
  env.request(method, path, { key, ...(body === undefined ? {} : { body }) });
const stored = async () =>
  query<{ provider: string; credentials: string }>(env.db, sql`select provider, credentials from integrations`);

const KLAVIYO = { provider: 'klaviyo', credentials: { apiKey: KLAVIYO_KEY }, target: { listId: 'XyZ123' } };
const MAILCHIMP = {
  provider: 'mailchimp',
  credentials: { apiKey: MAILCHIMP_KEY },
  target: { audienceId: 'a1b2c3d4e5' },
};
const HUBSPOT = { provider: 'hubspot', credentials: { accessToken: HUBSPOT_TOKEN } };

describe('connections', () => {
  it('are created with the credential sealed (only its last 4 shown), listed, read and deleted, in the team alone', async () => {
    const r = await call('POST', '/api/v1/integrations', KLAVIYO);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      provider: 'klaviyo',
      credentials: { hint: '…KLMN' },
      target: { listId: 'XyZ123' },
      contests: 'all',
      enabled: true,
    });
    expect(r.text).not.toContain(KLAVIYO_KEY);
    const row = (await stored()).find((x) => x.provider === 'klaviyo')!;
    expect(row.credentials).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9+/=]+$/);
    expect(row.credentials).not.toContain(KLAVIYO_KEY.slice(3));
    const list = await call('GET', '/api/v1/integrations');
    expect(list.body.data.map((i: { id: string }) => i.id)).toContain(r.body.data.id);
    expect((await call('GET', `/api/v1/integrations/${r.body.data.id}`)).body.data).toEqual(r.body.data);
    // another team sees nothing of it
    expect((await call('GET', `/api/v1/integrations/${r.body.data.id}`, undefined, other.privateKey)).status).toBe(404);
    expect((await call('GET', '/api/v1/integrations', undefined, other.privateKey)).body.data).toEqual([]);
    expect((await call('DELETE', `/api/v1/integrations/${r.body.data.id}`, undefined, other.privateKey)).status).toBe(
      404,
    );
    // a public key: 403
    expect((await call('GET', '/api/v1/integrations', undefined, t.publicKey)).status).toBe(403);
    const del = await call('DELETE', `/api/v1/integrations/${r.body.data.id}`);
    expect(del.body.data).toEqual({ id: r.body.data.id, deleted: true });
    expect((await call('GET', `/api/v1/integrations/${r.body.data.id}`)).status).toBe(404);
  });

  it('refuse a bad body with a 400 naming what is wrong, and write nothing', async () => {
    const before = (await stored()).length;
    const contest = await env.contest(other.teamId);
    const cases: [unknown, string][] = [
      [{ ...KLAVIYO, provider: 'sendgrid' }, 'provider must be one of klaviyo, mailchimp, hubspot'],
      [
        { ...KLAVIYO, credentials: { apiKey: 'sk_live_123' } },
        'credentials.apiKey must be a Klaviyo private API key (pk_…)',
      ],
      [{ ...KLAVIYO, credentials: { accessToken: HUBSPOT_TOKEN } }, 'credentials must be {apiKey} for Klaviyo'],
      [{ ...KLAVIYO, target: {} }, 'target must be {listId} for Klaviyo'],
      [
        { ...MAILCHIMP, credentials: { apiKey: '0123' } },
        'credentials.apiKey must be a Mailchimp API key with its data centre (…-us21)',
      ],
      [{ ...MAILCHIMP, target: { listId: 'x' } }, 'target must be {audienceId} for Mailchimp'],
      [
        { ...HUBSPOT, credentials: { accessToken: 'short' } },
        "credentials.accessToken must be a HubSpot private app's access token",
      ],
      [{ ...HUBSPOT, target: { listId: 'x' } }, 'target must be {} for HubSpot (contacts need no list)'],
      [{ ...KLAVIYO, contests: 'some' }, 'contests must be "all" or a list of 1 to 100 contest ids'],
      [{ ...KLAVIYO, contests: [contest.id] }, 'contests must be contests of this team'],
    ];
    for (const [body, message] of cases) {
      const r = await call('POST', '/api/v1/integrations', body);
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, message]);
    }
    expect((await stored()).length).toBe(before);
  });

  it('PATCH changes what it is given; credentials and target of another provider are refused', async () => {
    const mine = await env.contest(t.teamId);
    const created = (await call('POST', '/api/v1/integrations', MAILCHIMP)).body.data;
    const newKey = `${'fedcba9876543210'.repeat(2)}-us6`;
    const r = await call('PATCH', `/api/v1/integrations/${created.id}`, {
      credentials: { apiKey: newKey },
      contests: [mine.id],
      enabled: false,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ credentials: { hint: '…-us6' }, contests: [mine.id], enabled: false });
    const wrong = await call('PATCH', `/api/v1/integrations/${created.id}`, { credentials: { apiKey: KLAVIYO_KEY } });
    expect([wrong.status, wrong.body.error]).toEqual([
      400,
      "credentials and target must be of the connection's provider",
    ]);
    const back = await call('PATCH', `/api/v1/integrations/${created.id}`, { contests: 'all' });
    expect(back.body.data.contests).toBe('all');
    expect(
      (await call('PATCH', '/api/v1/integrations/00000000-0000-4000-8000-000000000000', { enabled: true })).status,
    ).toBe(404);
  });

  it('without INTEGRATIONS_KEY every route answers 503 saying how to set it; a rotated key still opens what the previous sealed', async () => {
    const created = (await call('POST', '/api/v1/integrations', KLAVIYO)).body.data;
    const saved = env.deps.config.integrations!;
    try {
      env.deps.config.integrations = { ...saved, key: undefined };
      for (const [method, path] of [
        ['GET', '/api/v1/integrations'],
        ['POST', `/api/v1/integrations/${created.id}/test`],
      ] as const) {
        const r = await call(method, path);
        expect([r.status, r.body.error]).toEqual([
          503,
          'Integrations are off on this deployment: set INTEGRATIONS_KEY (32 random bytes in base64, `openssl rand -base64 32`)',
        ]);
      }
      // a new key with the old one as the previous: the old seal still opens
      env.deps.config.integrations = { ...saved, key: OTHER_KEY, previousKey: KEY };
      const test = await call('POST', `/api/v1/integrations/${created.id}/test`);
      expect(test.body.data.passed, test.text).toBe(true);
      // the new key alone: said plainly, 409
      env.deps.config.integrations = { ...saved, key: OTHER_KEY };
      const lost = await call('POST', `/api/v1/integrations/${created.id}/test`);
      expect([lost.status, lost.body.error]).toEqual([
        409,
        "This connection's credentials were sealed with another INTEGRATIONS_KEY: save them again",
      ]);
    } finally {
      env.deps.config.integrations = saved;
    }
  });
});

describe('the connection test, at stand-ins of the providers', () => {
  const test = async (body: unknown) => {
    const created = await call('POST', '/api/v1/integrations', body);
    expect(created.status, created.text).toBe(201);
    return (await call('POST', `/api/v1/integrations/${created.body.data.id}/test`)).body.data;
  };

  it('Klaviyo: the list found; an unknown list and a refused key in Klaviyo own words', async () => {
    expect(await test(KLAVIYO)).toEqual({
      passed: true,
      providerStatus: 200,
      message: 'Klaviyo list "Newsletter" found',
      created: [],
    });
    const get = stand.requests.filter((r) => r.path === '/api/lists/XyZ123').at(-1)!;
    expect(get.method).toBe('GET');
    expect(get.headers).toMatchObject({
      authorization: `Klaviyo-API-Key ${KLAVIYO_KEY}`,
      revision: '2025-10-15',
      accept: 'application/vnd.api+json',
    });
    expect(await test({ ...KLAVIYO, target: { listId: 'Nope42' } })).toEqual({
      passed: false,
      providerStatus: 404,
      message: 'Klaviyo answered 404: A list with id Nope42 does not exist.',
      created: [],
    });
    expect(await test({ ...KLAVIYO, credentials: { apiKey: 'pk_REVOKEDREVOKEDREVOKED0' } })).toMatchObject({
      passed: false,
      providerStatus: 401,
      message: 'Klaviyo answered 401: Missing or invalid private key.',
    });
    expect(stand.violations).toEqual([]);
  });

  it('Mailchimp: the audience found and its seven merge fields created once, by Basic auth', async () => {
    const first = await test(MAILCHIMP);
    expect(first).toMatchObject({ passed: true, providerStatus: 200 });
    expect(first.created).toEqual([
      'CE_CONTEST',
      'CE_REFLINK',
      'CE_REFCODE',
      'CE_PAGE',
      'CE_POS',
      'CE_POINTS',
      'CE_FRIENDS',
    ]);
    expect(first.message).toBe('Mailchimp audience "Customers" found; 7 merge fields created');
    const again = await test(MAILCHIMP);
    expect(again).toEqual({
      passed: true,
      providerStatus: 200,
      message: 'Mailchimp audience "Customers" found',
      created: [],
    });
    const get = stand.requests.find((r) => r.path.startsWith('/3.0/lists/a1b2c3d4e5?'))!;
    expect(get.headers.authorization).toBe(
      `Basic ${Buffer.from(`contest-engine:${MAILCHIMP_KEY}`).toString('base64')}`,
    );
    expect(await test({ ...MAILCHIMP, target: { audienceId: 'missing1' } })).toMatchObject({
      passed: false,
      providerStatus: 404,
      message: 'Mailchimp answered 404: The requested resource could not be found.',
    });
    expect(stand.violations).toEqual([]);
  });

  it('HubSpot: the property group and its thirteen properties (the person, the events) created once, by Bearer token', async () => {
    const first = await test(HUBSPOT);
    expect(first).toMatchObject({ passed: true, providerStatus: 200 });
    expect(first.created).toEqual([
      'group contest_engine',
      'contest_engine_contest',
      'contest_engine_referral_link',
      'contest_engine_referral_code',
      'contest_engine_page_link',
      'contest_engine_position',
      'contest_engine_points',
      'contest_engine_confirmed_referrals',
      'contest_engine_last_event',
      'contest_engine_last_event_at',
      'contest_engine_last_reward',
      'contest_engine_last_reward_code',
      'contest_engine_won_draw',
      'contest_engine_last_prize',
    ]);
    expect(stand.hubspot.properties.get('contest_engine_last_event_at')).toMatchObject({
      type: 'datetime',
      fieldType: 'date',
      groupName: 'contest_engine',
    });
    const again = await test(HUBSPOT);
    expect(again).toEqual({
      passed: true,
      providerStatus: 200,
      message: 'HubSpot contacts can be written',
      created: [],
    });
    expect(stand.violations).toEqual([]);
  });

  it('a provider that fails or does not answer: passed false with what happened; nothing else changes', async () => {
    stand.fail('/api/', { status: 429, retryAfter: 30 });
    expect(await test(KLAVIYO)).toMatchObject({ passed: false, providerStatus: 429, message: 'Klaviyo answered 429' });
    stand.fail('/api/', { status: 500 });
    expect(await test(KLAVIYO)).toMatchObject({ passed: false, providerStatus: 500 });
    stand.fail('/api/', { slowMs: 3000 });
    expect(await test(KLAVIYO)).toMatchObject({
      passed: false,
      providerStatus: null,
      message: 'Klaviyo did not answer within 2 s',
    });
  });
});
