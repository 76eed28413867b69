/**
 * Entries: create (dedupe, referrals, confirmation email), list, detail, update, disqualify,
 * with bad input and team scoping. PGlite by default; the same file runs on real Postgres when
 * TEST_DATABASE_URL is set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query, queryOne } from '../db/client.js';

export let env: TestEnv;
export let a: TeamFixture;
export let b: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(async () => {
  await emailsSettled();
  await env.close();
});

/**
 * Creating entries triggers email delivery in the background; let it finish before the database
 * goes away (on real Postgres a dropped database kills in-flight connections).
 */
export async function emailsSettled() {
  for (let i = 0; i < 100; i++) {
    const row = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from email_outbox where status = 'pending' and locked_until is not null`,
    );
    if (!row?.n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 50));
}

export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

export const create = (contestId: string, body: unknown, key = a.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/entries`, { key, body });

export async function entryRow(id: string) {
  return queryOne<Record<string, any>>(env.db, sql`select * from entries where id = ${id}`);
}

/** Rows of everything an entry request could touch, to prove a refused request changed nothing. */
export async function snapshot() {
  return query(
    env.db,
    sql`select (select count(*) from entries) as entries, (select coalesce(sum(points), 0) from entries) as points,
          (select count(*) from points_ledger) as ledger, (select count(*) from email_outbox) as outbox,
          (select coalesce(max(updated_at), 'epoch') from entries) as updated,
          (select string_agg(coalesce(name, '') || coalesce(email, '') || coalesce(phone, '') || disqualified::text
            || coalesce(custom_field_data::text, ''), ',' order by id) from entries) as content`,
  );
}
