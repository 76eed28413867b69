/**
 * Logs never carry personal data: a failing write is logged with its statement, SQLSTATE and
 * constraint, never the values bound to it (emails, names).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/db/client.js';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

// this file makes a write fail on purpose and reads the log itself: the 8 KB statement need not
// be printed too (the harness prints unexpected app errors unless TEST_LOG_ERRORS=0)
process.env.TEST_LOG_ERRORS = '0';

let env: TestEnv;
let t: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

describe('the log of a failing write', () => {
  it('names the statement and the error, never the email or name it carried', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: true });
    // every confirmation email now violates a constraint: the create statement fails in Postgres
    await query(env.db, sql`alter table email_outbox add constraint logs_test_no_mail check (false) not valid`);
    try {
      const before = env.logs.length;
      const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: t.privateKey,
        body: { email: 'Private.Person+tag@Example.com', name: 'Secret Name', phone: '+15550199' },
      });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ success: false, error: 'Internal server error' });
      const logged = env.logs.slice(before).filter((l) => l.level === 'error');
      expect(logged).toHaveLength(1);
      const text = JSON.stringify(logged);
      expect(logged[0]!.fields).toMatchObject({ sqlstate: '23514', constraint: 'logs_test_no_mail' });
      expect(String(logged[0]!.fields?.statement)).toMatch(/insert into entries/);
      expect(text).not.toMatch(/private\.person|Secret Name|15550199|example\.com/i);
      // and nothing was stored
      const [n] = await query<{ n: string | number }>(
        env.db,
        sql`select count(*) as n from entries where contest_id = ${c.id}`,
      );
      expect(Number(n!.n)).toBe(0);
    } finally {
      await query(env.db, sql`alter table email_outbox drop constraint logs_test_no_mail`);
    }
  });
});

describe('the request log', () => {
  it('names the route, never a confirmation token that was in the path', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: true });
    const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: 'token.owner@example.com' },
    });
    expect(r.status).toBe(201);
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'token.owner@example.com')!;
    const token = /confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const before = env.logs.length;
    const page = await env.request('GET', `/api/confirm/${token}`);
    expect(page.status).toBe(200);
    const lines = env.logs.slice(before);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(lines.find((l) => l.msg === 'request')?.fields).toMatchObject({
      method: 'GET',
      route: '/api/confirm/:token',
    });
    // a request no route answers logs its path, as it came
    await env.request('GET', '/no/such/page');
    expect(env.logs.at(-1)?.fields).toMatchObject({ path: '/no/such/page', status: 404 });
  });
});
