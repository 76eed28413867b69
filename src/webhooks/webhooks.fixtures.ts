import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { listReceipts } from './receipts.js';

export let env: TestEnv;
export let t: TeamFixture;
export let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());
afterEach(() => {
  env.clock.thaw();
  env.clock.set(new Date());
});

export const UNAUTH = { success: false, error: 'Invalid webhook signature' };
export const tracking = { purchaseTracking: { enabled: true, pointsPerPurchase: 10, pointsPerCurrencyUnit: 1 } };

export async function secretFor(contestId: string): Promise<string> {
  const r = await env.request('POST', `/api/admin/contests/${contestId}/webhook-secret`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(r.status).toBe(200);
  return r.body.data.secret;
}

export async function entry(contestId: string, email: string): Promise<string> {
  const rows = await query<{ id: string }>(
    env.db,
    sql`insert into entries (contest_id, email, referral_code, email_confirmed)
        values (${contestId}, ${email}, ${`wh${++seq}x${Math.random().toString(36).slice(2, 10)}`}, true) returning id`,
  );
  return rows[0]!.id;
}

/** A contest with purchase tracking, a webhook secret and one entry. */
export async function setup(settings: Record<string, unknown> = tracking) {
  const c = await env.contest(t.teamId, settings);
  const secret = await secretFor(c.id);
  const entryId = await entry(c.id, 'buyer@example.com');
  return { id: c.id, secret, entryId };
}

/** Headers made by the official Standard Webhooks library. */
export function signed(secret: string, id: string, body: string, at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

export const hook = (contestId: string, rawBody: string, headers: Record<string, string>) =>
  env.request('POST', `/api/webhooks/purchase/${contestId}`, { rawBody, headers });

export const body = (orderId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ email: 'buyer@example.com', orderId, amount: 25, ...extra });

export async function state(contestId: string) {
  const [row] = await query<{ purchases: number; ledger: number; points: number }>(
    env.db,
    sql`select (select count(*)::int from purchases where contest_id = ${contestId}) as purchases,
               (select count(*)::int from points_ledger where contest_id = ${contestId}) as ledger,
               (select coalesce(sum(points), 0)::int from entries where contest_id = ${contestId}) as points`,
  );
  const receipts = await listReceipts(env.db, contestId);
  return { ...row!, outcomes: receipts.map((r) => `${r.outcome}:${r.statusCode}`) };
}

export const newId = () => `msg_${++seq}_${Math.random().toString(36).slice(2)}`;
