/**
 * Sending the existing entries (a backfill): the people confirmed before a connection existed,
 * owed by one statement, sent by the every-minute job through each provider's bulk endpoint
 * (Klaviyo bulk import and subscription jobs, Mailchimp batches, HubSpot batch upserts of 100),
 * with its progress; a connection that answers 429 is asked nothing more until Retry-After.
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

const PEOPLE = 120;
let env: TestEnv;
let t: TeamFixture;
let stand: ProviderStandIns;
const ids: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Backfill');
  stand = await seededStandIns();
  env.deps.config.integrations = standInConfig(stand);
  const c = await env.contest(t.teamId, { title: 'Old list', requireEmailConfirmation: false });
  await env.request('PATCH', `/api/v1/contests/${c.id}`, {
    key: t.privateKey,
    body: { consentText: 'Send me the newsletter.' },
  });
  for (let i = 0; i < PEOPLE; i++) {
    const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: `p${i}@example.com`, name: `P${i}` },
    });
    expect(r.status).toBe(201);
  }
  // every third one agreed to the consent text (as a sign-up with consent would have recorded)
  await query(
    env.db,
    sql`update entries set consented_at = created_at
        where contest_id = ${c.id} and substring(email from '^p([0-9]+)@')::int % 3 = 0`,
  );
  // an unconfirmed one is never sent
  await query(env.db, sql`update entries set email_confirmed = false where email = 'p1@example.com'`);
  // a disqualified one has no position: sent without it (Klaviyo's bulk import cannot set a null)
  await query(env.db, sql`update entries set disqualified = true where email = 'p4@example.com'`);
  for (const [name, body] of Object.entries(STAND_IN_CONNECTIONS)) {
    const r = await env.request('POST', '/api/v1/integrations', { key: t.privateKey, body });
    expect(r.status, r.text).toBe(201);
    ids[name] = r.body.data.id;
    expect((await env.request('POST', `/api/v1/integrations/${ids[name]}/test`, { key: t.privateKey })).status).toBe(
      200,
    );
  }
}, 120_000);
afterAll(async () => {
  await env.close();
  await stand?.close();
});

const backfill = (name: string, method: 'POST' | 'GET' = 'POST', key = t.privateKey) =>
  env.request(method, `/api/v1/integrations/${ids[name]}/backfill`, { key });

describe('sending the existing entries', () => {
  it('a new connection has none of the people confirmed before it; no backfill yet', async () => {
    expect((await runScheduledJobs(env.deps)).integrations).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(stand.klaviyo.profiles.size).toBe(0);
    const none = await backfill('klaviyo', 'GET');
    expect([none.status, none.body.data]).toEqual([200, null]);
  });

  it('owes every confirmed person in one statement, then the job sends them in bulk with progress', async () => {
    const before = stand.requests.length;
    const started = await Promise.all(['klaviyo', 'mailchimp', 'hubspot'].map((n) => backfill(n)));
    for (const s of started) {
      expect(s.status, s.text).toBe(202);
      expect(s.body.data).toMatchObject({
        total: PEOPLE - 1,
        pending: PEOPLE - 1,
        delivered: 0,
        failed: 0,
        done: false,
      });
    }
    expect(stand.requests.length).toBe(before);
    const again = await backfill('klaviyo');
    expect([again.status, again.body.error]).toEqual([
      409,
      "This connection's last backfill is still sending: wait for it to finish",
    ]);

    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 3 * (PEOPLE - 1), retrying: 0, failed: 0 });
    const calls = stand.requests.slice(before).map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{32}/g, '…')}`);
    expect(calls.sort()).toEqual(
      [
        'POST /api/profile-bulk-import-jobs', // those without consent, to the list
        'POST /api/profile-bulk-import-jobs', // those with consent
        'POST /api/profile-subscription-bulk-create-jobs',
        'POST /3.0/batches',
        'POST /crm/v3/objects/contacts/batch/upsert', // 100
        'POST /crm/v3/objects/contacts/batch/upsert', // 19
      ].sort(),
    );
    const consented = await query<{ email: string }>(
      env.db,
      sql`select email from entries where consented_at is not null and email_confirmed`,
    );
    expect(consented.length).toBeGreaterThan(10);
    expect(stand.klaviyo.profiles.size).toBe(PEOPLE - 1);
    expect(stand.klaviyo.profiles.has('p1@example.com')).toBe(false);
    expect([...stand.klaviyo.subscribed].sort()).toEqual(consented.map((r) => r.email).sort());
    expect(stand.klaviyo.members.size).toBe(PEOPLE - 1 - consented.length);
    expect(stand.klaviyo.profiles.get('p7@example.com')?.attributes).toMatchObject({
      first_name: 'P7',
      properties: { contest_engine_contest: 'Old list', contest_engine_points: 0 },
    });
    const p4 = stand.klaviyo.profiles.get('p4@example.com')?.attributes.properties as Record<string, unknown>;
    expect(p4).not.toHaveProperty('contest_engine_position');
    expect(p4).toMatchObject({ contest_engine_points: 0 });
    expect(stand.mailchimp.members.size).toBe(PEOPLE - 1);
    expect(stand.mailchimp.members.get(consented[0]!.email)?.status).toBe('subscribed');
    expect(stand.mailchimp.members.get('p2@example.com')?.status).toBe('transactional');
    expect(stand.hubspot.contacts.size).toBe(PEOPLE - 1);

    const progress = await backfill('hubspot', 'GET');
    expect(progress.body.data).toMatchObject({ total: PEOPLE - 1, delivered: PEOPLE - 1, pending: 0, done: true });
    expect(stand.violations).toEqual([]);
  });

  it('a 429 holds the whole connection until its Retry-After; its other rows keep their attempts', async () => {
    const done = await backfill('hubspot');
    expect(done.status).toBe(202);
    stand.fail('/crm/', { status: 429, retryAfter: 90 });
    const first = await runScheduledJobs(env.deps);
    expect(first.integrations).toEqual({ delivered: 0, retrying: PEOPLE - 1, failed: 0 });
    const waiting = await query<{ attempts: number; last_status: number; wait: string }>(
      env.db,
      sql`select attempts, last_status, extract(epoch from next_attempt_at - now())::int as wait from integration_deliveries
          where integration_id = ${ids.hubspot!} and status = 'pending'`,
    );
    expect(new Set(waiting.map((w) => `${w.attempts} ${w.last_status}`))).toEqual(new Set(['1 429']));
    env.clock.advance(91_000);
    expect((await runScheduledJobs(env.deps)).integrations).toEqual({ delivered: PEOPLE - 1, retrying: 0, failed: 0 });
    expect((await backfill('hubspot', 'GET')).body.data).toMatchObject({ delivered: PEOPLE - 1, done: true });
  });

  it('a burst of 11,900 points changes (100 for each of 119 people) is one row per person and tool, sent in a few bulk calls, the last values', async () => {
    const before = stand.requests.length;
    for (let i = 0; i < 100; i++)
      await query(env.db, sql`update entries set points = points + 1, updated_at = now() where email_confirmed`);
    const owed = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from integration_deliveries where status = 'pending' and kind = 'person'`,
    );
    expect(Number(owed[0]!.n)).toBe(3 * (PEOPLE - 1));
    const run = await runScheduledJobs(env.deps);
    expect(run.integrations).toEqual({ delivered: 3 * (PEOPLE - 1), retrying: 0, failed: 0 });
    // Klaviyo: two import jobs and a subscription job; Mailchimp: one batch; HubSpot: two upserts
    expect(stand.requests.length - before).toBe(6);
    expect(stand.hubspot.contacts.get('p7@example.com')?.contest_engine_points).toBe('100');
    expect(stand.mailchimp.members.get('p7@example.com')?.merge_fields.CE_POINTS).toBe(100);
    expect(stand.klaviyo.profiles.get('p7@example.com')?.attributes).toMatchObject({
      properties: { contest_engine_points: 100 },
    });
    expect(stand.violations).toEqual([]);
  });

  it('refuses a disabled connection and another team, and owes nothing then', async () => {
    await env.request('PATCH', `/api/v1/integrations/${ids.mailchimp}`, {
      key: t.privateKey,
      body: { enabled: false },
    });
    const off = await backfill('mailchimp');
    expect([off.status, off.body.error]).toEqual([409, 'This connection is disabled: enable it first']);
    const other = await env.team('Other');
    const foreign = await backfill('klaviyo', 'POST', other.privateKey);
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Integration not found']);
    const pending = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from integration_deliveries where status = 'pending'`,
    );
    expect(Number(pending[0]!.n)).toBe(0);
  });
});
