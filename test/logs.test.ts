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
