/**
 * Letting a waitlist in under real concurrency (TEST_DATABASE_URL): admissions at once, with and
 * without the same Idempotency-Key. No entry is admitted twice or emailed twice; the same key
 * admits once and every request that carried it answers the same list. Skipped (and reported as
 * skipped) without a real Postgres.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

if (!hasRealPostgres) console.warn('*** concurrency-admit.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

describe.skipIf(!hasRealPostgres)('admissions under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 30 });
    env.pool!.on('error', () => {});
    t = await env.team();
    // events are recorded for teams with an endpoint: a receiver of entry.admitted (never called out)
    env.deps.fetch = async () => new Response('ok');
    const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
      key: t.privateKey,
      body: { url: 'https://hooks.example.test/admitted', events: ['entry.admitted'] },
    });
    expect(ep.status, ep.text).toBe(201);
  });
  afterAll(async () => {
    await env.settle();
    await env.close();
  });

  async function waitlist(n: number) {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, mode: 'waitlist', title: 'Beta' });
    for (let i = 0; i < n; i++) {
      const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: t.privateKey,
        body: { email: `q${i}-${c.id.slice(0, 8)}@example.com` },
      });
      expect(r.status).toBe(201);
    }
    return c.id;
  }
  const admit = (id: string, body: unknown, key?: string) =>
    env.request('POST', `/api/v1/contests/${id}/admit`, {
      key: t.privateKey,
      body,
      headers: key ? { 'idempotency-key': key } : {},
    });
  const counts = async (id: string) =>
    (await queryOne<{ admitted: number; mails: number; events: number }>(
      env.db,
      sql`select (select count(*)::int from entries where contest_id = ${id} and admitted_at is not null) as admitted,
        (select count(*)::int from email_outbox where contest_id = ${id} and kind = 'admitted') as mails,
        (select count(*)::int from events where contest_id = ${id} and type = 'entry.admitted') as events`,
    ))!;

  it('10 admissions of 3 at once, no key: 30 different entries, each emailed and announced once', async () => {
    const id = await waitlist(40);
    const answers = await Promise.all(Array.from({ length: 10 }, () => admit(id, { count: 3 })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const all = answers.flatMap((r) => r.body.data.entryIds as string[]);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(30);
    expect(await counts(id)).toEqual({ admitted: 30, mails: 30, events: 30 });
  });

  it('10 admissions with the same key at once: one admission; every answer is its list or 409', async () => {
    const id = await waitlist(20);
    const answers = await Promise.all(Array.from({ length: 10 }, () => admit(id, { count: 5 }, 'same-key')));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toBe('An admission with this Idempotency-Key is in progress, try again');
    }
    const lists = new Set(ok.map((r) => JSON.stringify(r.body.data.entryIds)));
    expect(lists.size).toBe(1);
    expect(ok[0]!.body.data.count).toBe(5);
    expect(await counts(id)).toEqual({ admitted: 5, mails: 5, events: 5 });
    const keys = await query(env.db, sql`select 1 from admissions where contest_id = ${id}`);
    expect(keys.length).toBe(1);
  });
});
