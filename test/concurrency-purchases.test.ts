/**
 * Purchases and webhooks under real concurrency (real Postgres, parallel pool connections):
 * one order is recorded and awarded once, one delivery is processed once, whatever arrives
 * at the same time.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReceipts } from '../src/webhooks/receipts.js';
import {
  ADMIN_TOKEN,
  createTestEnv,
  hasRealPostgres,
  query,
  type TeamFixture,
  type TestEnv,
} from './support/harness.js';
import { ledgerMismatches } from './support/ledger.js';

const SHOPIFY_SECRET = 'shpss_concurrency_secret';
const STRIPE_SECRET = 'whsec_concurrency_stripe';

describe.skipIf(!hasRealPostgres)('purchases and webhooks under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;
  let seq = 0;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 40 });
    // env.close() drops the database with force while idle pool clients are open: pg-pool re-emits
    // their "terminating connection" error on the pool, which would throw without a listener
    env.pool!.on('error', () => {});
    t = await env.team();
  });
  afterAll(() => env?.close());

  async function contest(settings: Record<string, unknown>) {
    const c = await env.contest(t.teamId, { shopifySecret: SHOPIFY_SECRET, stripeSecret: STRIPE_SECRET, ...settings });
    const r = await env.request('POST', `/api/admin/contests/${c.id}/webhook-secret`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return { id: c.id, secret: r.body.data.secret as string };
  }

  async function entry(contestId: string, email: string) {
    const code = `cc${++seq}${Math.random().toString(36).slice(2, 10)}`;
    const rows = await query<{ id: string }>(
      env.db,
      sql`insert into entries (contest_id, email, referral_code, email_confirmed) values (${contestId}, ${email}, ${code}, true) returning id`,
    );
    return { id: rows[0]!.id, code };
  }

  async function totals(contestId: string) {
    const [r] = await query<{ purchases: number; ledger: number; points: number; commission: string }>(
      env.db,
      sql`select (select count(*)::int from purchases where contest_id = ${contestId}) as purchases,
                 (select count(*)::int from points_ledger where contest_id = ${contestId}) as ledger,
                 (select coalesce(sum(points), 0)::int from entries where contest_id = ${contestId}) as points,
                 (select coalesce(sum(commission), 0)::text from entries where contest_id = ${contestId}) as commission`,
    );
    return { ...r!, commission: Number(r!.commission) };
  }

  const tally = (xs: string[]) =>
    xs.reduce<Record<string, number>>((m, x) => {
      m[x] = (m[x] ?? 0) + 1;
      return m;
    }, {});

  it('50 concurrent requests with one new orderId (API, signed webhook, x-webhook-secret mixed): one purchase, awarded once', async () => {
    const c = await contest({ purchaseTracking: { enabled: true, pointsPerPurchase: 10, pointsPerCurrencyUnit: 1 } });
    const buyer = await entry(c.id, 'race@example.com');
    const payload = { email: 'race@example.com', orderId: 'RACE-1', amount: 25 };
    const raw = JSON.stringify(payload);
    const wh = new Webhook(c.secret);
    // kinds in random order, so that any of them may be first to arrive
    const order = Array.from({ length: 50 }, (_, i) => i).sort(() => Math.random() - 0.5);
    const requests = order.map((i) => {
      if (i % 3 === 0)
        return {
          kind: 'api',
          p: env.request('POST', `/api/v1/contests/${c.id}/purchases`, { key: t.privateKey, body: payload }),
        };
      const at = new Date();
      const headers: Record<string, string> =
        i % 3 === 1
          ? {
              'webhook-id': `msg_race_${i}`,
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': wh.sign(`msg_race_${i}`, at, raw),
            }
          : { 'x-webhook-secret': c.secret, 'webhook-id': `plain_race_${i}` };
      return {
        kind: i % 3 === 1 ? 'signed' : 'secret',
        p: env.request('POST', `/api/webhooks/purchase/${c.id}`, { rawBody: raw, headers }),
      };
    });
    const results = await Promise.all(requests.map((r) => r.p));
    const seen = results.map((r, i) => `${requests[i]!.kind}:${r.status}:${r.body.data?.alreadyExists}`);
    console.log('[concurrency] 50 x one orderId:', JSON.stringify(tally(seen)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 200 && r.body.data.alreadyExists === true && r.body.data.pointsAwarded === 0),
    ).toHaveLength(49);
    const ids = new Set(results.map((r) => r.body.data.purchaseId));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.body.data.entryId === buyer.id)).toBe(true);
    expect(await totals(c.id)).toEqual({ purchases: 1, ledger: 1, points: 35, commission: 0 });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts.filter((r) => r.outcome === 'processed')).toHaveLength(
      results.length - requests.filter((r) => r.kind === 'api').length,
    );
  });

  it('one purchase-webhook delivery (same webhook-id) sent 20 times at once: processed once, the rest replay its answer', async () => {
    const c = await contest({ purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 0 } });
    await entry(c.id, 'replay@example.com');
    const raw = JSON.stringify({ email: 'replay@example.com', orderId: 'RP-1', amount: 3 });
    const at = new Date();
    const headers = {
      'webhook-id': 'msg_same',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(c.secret).sign('msg_same', at, raw),
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        env.request('POST', `/api/webhooks/purchase/${c.id}`, { rawBody: raw, headers }),
      ),
    );
    console.log('[concurrency] 20 x one webhook-id:', JSON.stringify(tally(results.map((r) => String(r.status)))));
    expect(results.every((r) => r.status === 201)).toBe(true);
    // every answer is the first one (the replay comes from jsonb: same JSON, keys possibly in another order)
    for (const r of results) expect(r.body).toEqual(results[0]!.body);
    expect(results[0]!.body.data.pointsAwarded).toBe(5);
    expect(await totals(c.id)).toEqual({ purchases: 1, ledger: 1, points: 5, commission: 0 });
    const outcomes = tally((await listReceipts(env.db, c.id)).map((r) => r.outcome));
    console.log('[concurrency] receipts:', JSON.stringify(outcomes));
    expect(outcomes).toEqual({ processed: 1, duplicate: 19 });
  });

  function shopifyRaw(code: string) {
    return `{"id":5678901234567890123,"admin_graphql_api_id":"gid://shopify/Order/5678901234567890123","total_price":"80.00","currency":"USD","email":"shopper@example.com","discount_codes":[{"code":"${code}"}]}`;
  }
  const shopifyPost = (contestId: string, raw: string, webhookId: string) =>
    env.request('POST', `/api/webhooks/referral/shopify/${contestId}`, {
      rawBody: raw,
      headers: {
        'x-shopify-topic': 'orders/paid',
        'x-shopify-webhook-id': webhookId,
        'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_SECRET).update(raw).digest('base64'),
      },
    });

  it('the same Shopify order delivered 10 times concurrently (same webhook id) credits once', async () => {
    const c = await contest({ referral: { advocatePoints: 10 } });
    const adv = await entry(c.id, 'adv1@example.com');
    const raw = shopifyRaw(adv.code);
    const results = await Promise.all(Array.from({ length: 10 }, () => shopifyPost(c.id, raw, 'shopify-delivery-1')));
    console.log(
      '[concurrency] shopify 10 x same webhook id:',
      JSON.stringify(tally(results.map((r) => `${r.status}:${r.body.data.alreadyProcessed}`))),
    );
    expect(
      results.every(
        (r) => r.status === 200 && r.body.data.referrerEntryId === adv.id && r.body.data.pointsAwarded === 10,
      ),
    ).toBe(true);
    expect(await totals(c.id)).toEqual({ purchases: 1, ledger: 1, points: 10, commission: 0 });
    expect(tally((await listReceipts(env.db, c.id)).map((r) => r.outcome))).toEqual({ processed: 1, duplicate: 9 });
  });

  it('the same Shopify order delivered 10 times concurrently (10 webhook ids, affiliate) credits the commission once', async () => {
    const c = await contest({ campaignType: 'affiliate', affiliate: { commissionPercent: 15 } });
    const adv = await entry(c.id, 'adv2@example.com');
    const raw = shopifyRaw(adv.code);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => shopifyPost(c.id, raw, `shopify-delivery-${i}`)),
    );
    const seen = results.map((r) => `${r.status}:${r.body.data.alreadyProcessed}:${r.body.data.commissionAwarded}`);
    console.log('[concurrency] shopify 10 x 10 webhook ids:', JSON.stringify(tally(seen)));
    expect(results.every((r) => r.status === 200 && r.body.data.referrerEntryId === adv.id)).toBe(true);
    expect(results.filter((r) => r.body.data.alreadyProcessed === false)).toHaveLength(1);
    expect(results.find((r) => r.body.data.alreadyProcessed === false)!.body.data.commissionAwarded).toBe(12);
    expect(await totals(c.id)).toEqual({ purchases: 1, ledger: 0, points: 0, commission: 12 });
    expect(tally((await listReceipts(env.db, c.id)).map((r) => r.outcome))).toEqual({ processed: 10 });
  });

  it('the same Stripe session in 10 concurrent events (5 event ids x 2): credited once', async () => {
    const c = await contest({ referral: { advocatePoints: 7 } });
    const adv = await entry(c.id, 'adv3@example.com');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const payload = JSON.stringify({
          id: `evt_${i % 5}`,
          type: i % 2 ? 'checkout.session.completed' : 'checkout.session.async_payment_succeeded',
          data: {
            object: {
              id: 'cs_race',
              payment_status: 'paid',
              amount_total: 1000,
              currency: 'usd',
              client_reference_id: adv.code,
            },
          },
        });
        const sig = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET });
        return env.request('POST', `/api/webhooks/referral/stripe/${c.id}`, {
          rawBody: payload,
          headers: { 'stripe-signature': sig },
        });
      }),
    );
    console.log(
      '[concurrency] stripe 10 events, one session:',
      JSON.stringify(tally(results.map((r) => `${r.status}:${r.body.data.alreadyProcessed}`))),
    );
    expect(results.every((r) => r.status === 200 && r.body.data.referrerEntryId === adv.id)).toBe(true);
    expect(await totals(c.id)).toEqual({ purchases: 1, ledger: 1, points: 7, commission: 0 });
  });

  it('30 different orders for one entry at once: no lost update, totals match the ledger', async () => {
    const c = await contest({ purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 2 } });
    const buyer = await entry(c.id, 'many@example.com');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2
          ? env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
              key: t.privateKey,
              body: { email: 'many@example.com', orderId: `M-${i}`, amount: i + 1 },
            })
          : env.request('POST', `/api/webhooks/purchase/${c.id}`, {
              rawBody: JSON.stringify({ email: 'many@example.com', orderId: `M-${i}`, amount: i + 1 }),
              headers: { 'x-webhook-secret': c.secret },
            }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    // sum over i of 1 + 2 * (i + 1) = 30 + 2 * 465
    const expected = 30 + 2 * 465;
    const [row] = await query<{ points: number }>(env.db, sql`select points from entries where id = ${buyer.id}`);
    expect(row!.points).toBe(expected);
    expect(await totals(c.id)).toMatchObject({ purchases: 30, ledger: 30, points: expected });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });
});
