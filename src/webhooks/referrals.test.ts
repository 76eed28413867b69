/**
 * Referral webhooks (contract §5): Shopify `orders/paid` (X-Shopify-Hmac-Sha256, computed here
 * with node:crypto exactly as Shopify documents it) and Stripe Checkout events signed with the
 * official `stripe` package.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ledgerMismatches } from '../sql/points.js';
import { listReceipts } from './receipts.js';
import { minorToDecimal } from './referrals.js';
import { signStripe } from '../lib/signatures.js';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

let env: TestEnv;
let t: TeamFixture;
let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const SHOPIFY_SECRET = 'shpss_0123456789abcdef_test';
const STRIPE_SECRET = 'whsec_test_stripe_0123456789';
const UNAUTH = { success: false, error: 'Invalid webhook signature' };
/** Shopify order ids exceed 2^53: a JS number cannot hold them. */
const BIG_ID = '5678901234567890123';

async function contest(settings: Record<string, unknown> = {}) {
  return env.contest(t.teamId, {
    referral: { advocatePoints: 10, friendPoints: 0 },
    shopifySecret: SHOPIFY_SECRET,
    stripeSecret: STRIPE_SECRET,
    ...settings,
  });
}

async function entry(contestId: string, email: string, code?: string) {
  const referralCode = code ?? `rf${++seq}${Math.random().toString(36).slice(2, 10)}`;
  const rows = await query<{ id: string }>(
    env.db,
    sql`insert into entries (contest_id, email, referral_code, email_confirmed)
        values (${contestId}, ${email}, ${referralCode}, true) returning id`,
  );
  return { id: rows[0]!.id, code: referralCode };
}

async function entryRow(id: string) {
  const [r] = await query<{ points: number; commission: string }>(
    env.db,
    sql`select points, commission from entries where id = ${id}`,
  );
  return { points: r!.points, commission: Number(r!.commission) };
}

async function purchasesOf(contestId: string) {
  return query<Record<string, unknown>>(
    env.db,
    sql`select order_id, entry_id, referrer_entry_id, amount::text as amount, currency, points_awarded,
               commission_awarded::text as commission_awarded, source
        from purchases where contest_id = ${contestId} order by created_at, id`,
  );
}

// ------------------------------------------------------------------ Shopify

interface OrderOpts {
  gid?: string;
  total?: unknown;
  currency?: string;
  notes?: { name: string; value: string }[];
  discounts?: string[];
  landing?: string;
  email?: string;
  extra?: Record<string, unknown>;
}

/** The raw text of an orders/paid payload, with numeric ids beyond 2^53 written as JSON numbers. */
function shopifyOrder(o: OrderOpts = {}): string {
  const body = {
    admin_graphql_api_id: o.gid ?? `gid://shopify/Order/${BIG_ID}`,
    email: o.email ?? 'shopper@example.com',
    total_price: o.total === undefined ? '199.99' : o.total,
    currency: o.currency ?? 'USD',
    financial_status: 'paid',
    note_attributes: o.notes ?? [],
    discount_codes: (o.discounts ?? []).map((code) => ({ code, amount: '5.00', type: 'fixed_amount' })),
    landing_site: o.landing ?? '/products/tee?utm_source=x',
    ...o.extra,
  };
  const json = JSON.stringify(body);
  return `{"id":${BIG_ID},"order_number":1001,"line_items":[{"id":${BIG_ID}1,"price":"199.99"}],${json.slice(1)}`;
}

const shopifyHmac = (raw: string, secret = SHOPIFY_SECRET) =>
  createHmac('sha256', secret).update(raw, 'utf8').digest('base64');

function shopify(
  contestId: string,
  raw: string,
  opts: { topic?: string; webhookId?: string; hmac?: string | null } = {},
) {
  const headers: Record<string, string> = {
    'x-shopify-topic': opts.topic ?? 'orders/paid',
    'x-shopify-webhook-id': opts.webhookId ?? `wh-${++seq}`,
    'x-shopify-shop-domain': 'test-shop.myshopify.com',
  };
  if (opts.hmac !== null) headers['x-shopify-hmac-sha256'] = opts.hmac ?? shopifyHmac(raw);
  return env.request('POST', `/api/webhooks/referral/shopify/${contestId}`, { rawBody: raw, headers });
}

describe('Shopify orders/paid', () => {
  it('credits the referrer with advocate points; the order id is admin_graphql_api_id, digits intact', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'advocate@example.com');
    const buyer = await entry(c.id, 'shopper@example.com');
    const r = await shopify(c.id, shopifyOrder({ notes: [{ name: 'ref', value: adv.code }] }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 10, alreadyProcessed: false },
    });
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect(await purchasesOf(c.id)).toEqual([
      {
        order_id: `gid://shopify/Order/${BIG_ID}`,
        entry_id: buyer.id,
        referrer_entry_id: adv.id,
        amount: '199.9900',
        currency: 'USD',
        points_awarded: 10,
        commission_awarded: '0.00',
        source: 'shopify',
      },
    ]);
    const ledger = await query<Record<string, unknown>>(
      env.db,
      sql`select delta, source from points_ledger where entry_id = ${adv.id}`,
    );
    expect(ledger).toEqual([{ delta: 10, source: 'referral' }]);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const [receipt] = await listReceipts(env.db, c.id);
    expect(receipt).toMatchObject({
      source: 'shopify',
      outcome: 'processed',
      statusCode: 200,
      dedupeKey: `gid://shopify/Order/${BIG_ID}`,
    });
  });

  it('code priority: note_attributes (ref or referralCode), then discount_codes, then ?ref= in landing_site', async () => {
    const c = await contest();
    const a = await entry(c.id, 'a@example.com');
    const b = await entry(c.id, 'b@example.com');
    const d = await entry(c.id, 'd@example.com');
    const otherContest = await contest();
    const stranger = await entry(otherContest.id, 's@example.com');
    const tag = Math.random().toString(36).slice(2, 8);
    const mixed = await entry(c.id, 'm@example.com', `MiXeD${tag}`);
    const twinA = await entry(c.id, 't1@example.com', `TwIn${tag}`);
    await entry(c.id, 't2@example.com', `tWiN${tag}`);
    const cases: [OrderOpts, string | null][] = [
      [{ notes: [{ name: 'ref', value: a.code }], discounts: [b.code], landing: `/?ref=${d.code}` }, a.id],
      [{ notes: [{ name: 'referralCode', value: b.code }], discounts: [a.code] }, b.id],
      [{ notes: [{ name: 'gift_note', value: a.code }], discounts: [b.code], landing: `/?ref=${d.code}` }, b.id],
      [{ discounts: ['SUMMER10', d.code] }, d.id],
      [{ landing: `https://shop.example.com/products/x?utm=1&ref=${d.code}` }, d.id],
      [{ landing: `/products/x?ref=${encodeURIComponent(a.code)}` }, a.id],
      [{ notes: [{ name: 'ref', value: 'nope' }], discounts: [a.code] }, a.id],
      [{ notes: [{ name: 'ref', value: stranger.code }] }, null],
      [{ discounts: [mixed.code.toUpperCase()] }, mixed.id], // Shopify discount codes are case-insensitive
      [{ discounts: [twinA.code.toUpperCase()] }, null], // ambiguous once case is folded: nobody
      [{ discounts: [twinA.code] }, twinA.id], // an exact match always wins
      [{}, null],
    ];
    for (const [i, [opts, expected]] of cases.entries()) {
      const r = await shopify(c.id, shopifyOrder({ ...opts, gid: `gid://shopify/Order/${1000 + i}` }));
      expect([i, r.status, r.body.data.referrerEntryId]).toEqual([i, 200, expected]);
    }
  });

  it('affiliate campaign: commission = amount x commissionPercent / 100 rounded to the cent, no points', async () => {
    const c = await contest({ campaignType: 'affiliate', affiliate: { commissionPercent: 12.5 } });
    const adv = await entry(c.id, 'aff@example.com');
    const r1 = await shopify(
      c.id,
      shopifyOrder({ gid: 'gid://shopify/Order/1', total: '199.99', discounts: [adv.code] }),
    );
    // 199.99 x 12.5% = 24.99875 -> 25.00
    expect(r1.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 25,
      pointsAwarded: 0,
      alreadyProcessed: false,
    });
    const r2 = await shopify(
      c.id,
      shopifyOrder({ gid: 'gid://shopify/Order/2', total: '10.10', discounts: [adv.code] }),
    );
    // 10.10 x 12.5% = 1.2625 -> 1.26
    expect(r2.body.data.commissionAwarded).toBe(1.26);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 26.26 });
    const [ledger] = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from points_ledger where contest_id = ${c.id}`,
    );
    expect(ledger!.n).toBe(0);
    // the commission shows on the leaderboard (metric: commission)
    const board = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: t.publicKey });
    expect([board.status, board.body.metric]).toEqual([200, 'commission']);
    expect(board.body.data[0]).toMatchObject({ id: adv.id, commission: 26.26, rank: 1 });
  });

  it('no matching code: 200 with referrerEntryId null; the sale is still recorded once', async () => {
    const c = await contest();
    const r = await shopify(c.id, shopifyOrder({ discounts: ['WELCOME'] }));
    expect([r.status, r.body.data]).toEqual([
      200,
      { referrerEntryId: null, commissionAwarded: 0, pointsAwarded: 0, alreadyProcessed: false },
    ]);
    const rows = await purchasesOf(c.id);
    expect(rows.map((p) => [p.referrer_entry_id, p.entry_id, p.points_awarded])).toEqual([[null, null, 0]]);
  });

  it('a buyer using their own code is not credited', async () => {
    const c = await contest();
    const self = await entry(c.id, 'shopper@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [self.code] }));
    expect(r.body.data.referrerEntryId).toBeNull();
    expect(await entryRow(self.id)).toEqual({ points: 0, commission: 0 });
  });

  it('dedupe: a new webhook id for the same order is alreadyProcessed; the same webhook id replays the stored answer', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'dd@example.com');
    const raw = shopifyOrder({ discounts: [adv.code] });
    const first = await shopify(c.id, raw, { webhookId: 'wh-same' });
    const replay = await shopify(c.id, raw, { webhookId: 'wh-same' });
    const redelivery = await shopify(c.id, raw, { webhookId: 'wh-other' });
    expect(first.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 10,
      alreadyProcessed: false,
    });
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    expect([redelivery.status, redelivery.body.data]).toEqual([
      200,
      { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 0, alreadyProcessed: true },
    ]);
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect(await purchasesOf(c.id)).toHaveLength(1);
    expect((await listReceipts(env.db, c.id)).map((x) => `${x.externalId}:${x.outcome}`)).toEqual([
      'wh-same:processed',
      'wh-same:duplicate',
      'wh-other:processed',
    ]);
  });

  it('other topics and zero totals: 200, ignored, recorded as ignored', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'ig@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [adv.code] }), { topic: 'orders/create' });
    expect([r.status, r.body]).toEqual([
      200,
      { success: true, data: { ignored: true, reason: 'Topic orders/create is not handled' } },
    ]);
    const z = await shopify(c.id, shopifyOrder({ total: '0.00', discounts: [adv.code] }));
    expect([z.status, z.body.data]).toEqual([200, { ignored: true, reason: 'Order total is 0' }]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).map((x) => [x.outcome, x.statusCode])).toEqual([
      ['ignored', 200],
      ['ignored', 200],
    ]);
  });

  it('a contest that is not open: acknowledged (200) and ignored, nothing credited', async () => {
    const c = await contest({ status: 'ended' });
    const adv = await entry(c.id, 'closed@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [adv.code] }));
    expect([r.status, r.body.data]).toEqual([200, { ignored: true, reason: 'Contest is not active' }]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 0 });
    expect((await listReceipts(env.db, c.id)).map((x) => [x.outcome, x.error])).toEqual([
      ['ignored', 'Contest is not active'],
    ]);
  });

  it('malformed payloads: 400 naming the field, recorded as rejected, never 500', async () => {
    const c = await contest();
    const cases: [string, string][] = [
      [shopifyOrder({ total: 199.99 }), 'Invalid total_price'],
      [shopifyOrder({ total: 'abc' }), 'Invalid total_price'],
      [shopifyOrder({ total: '-5.00' }), 'Invalid total_price'],
      [shopifyOrder({ total: '1.23456' }), 'Invalid total_price'],
      [shopifyOrder({ total: null }), 'total_price is required'],
      [shopifyOrder({ total: '9999999999999.00' }), 'Amount is too large'],
      [shopifyOrder({ gid: '' }), 'Invalid admin_graphql_api_id'],
      [JSON.stringify({ total_price: '1.00' }), 'admin_graphql_api_id is required'],
      [shopifyOrder({ currency: 'EURO' }), 'Invalid currency'],
      ['[]', 'Invalid request body'],
      ['"order"', 'Invalid request body'],
      ['{"admin_graphql_api_id": ', 'Invalid request body'],
    ];
    for (const [raw, error] of cases) {
      const r = await shopify(c.id, raw);
      expect([raw.slice(0, 40), r.status, r.body]).toEqual([raw.slice(0, 40), 400, { success: false, error }]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts.map((x) => x.outcome)).toEqual(cases.map(() => 'rejected'));
  });

  it('refused: no shopifySecret, wrong secret, body changed, header missing or truncated', async () => {
    const noSecret = await contest({ shopifySecret: null });
    const c = await contest();
    const adv = await entry(c.id, 'x@example.com');
    const raw = shopifyOrder({ discounts: [adv.code] });
    const good = shopifyHmac(raw);
    const attempts: [string, Promise<{ status: number; body: unknown }>][] = [
      ['no secret on the contest', shopify(noSecret.id, raw, { hmac: shopifyHmac(raw, '') })],
      ['no secret on the contest, signed with another', shopify(noSecret.id, raw)],
      ['wrong secret', shopify(c.id, raw, { hmac: shopifyHmac(raw, 'other') })],
      ['body changed', shopify(c.id, raw.replace('199.99"', '999.99"'), { hmac: good })],
      ['header missing', shopify(c.id, raw, { hmac: null })],
      ['truncated', shopify(c.id, raw, { hmac: good.slice(0, -2) })],
      [
        'hex instead of base64',
        shopify(c.id, raw, { hmac: createHmac('sha256', SHOPIFY_SECRET).update(raw).digest('hex') }),
      ],
    ];
    for (const [name, p] of attempts) {
      const r = await p;
      expect([name, r.status, r.body]).toEqual([name, 401, UNAUTH]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 0 });
    expect((await listReceipts(env.db, c.id)).every((x) => x.outcome === 'rejected' && x.statusCode === 401)).toBe(
      true,
    );
  });
});

// ------------------------------------------------------------------ Stripe

interface SessionOpts {
  eventId?: string;
  type?: string;
  sessionId?: string;
  paymentStatus?: string;
  amountTotal?: unknown;
  currency?: string;
  clientReferenceId?: string | null;
  metadata?: Record<string, string>;
  email?: string;
}

function stripeEvent(o: SessionOpts = {}): string {
  return JSON.stringify({
    id: o.eventId ?? `evt_${++seq}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    type: o.type ?? 'checkout.session.completed',
    data: {
      object: {
        id: o.sessionId ?? `cs_test_${++seq}`,
        object: 'checkout.session',
        mode: 'payment',
        payment_status: o.paymentStatus ?? 'paid',
        amount_total: o.amountTotal === undefined ? 4999 : o.amountTotal,
        currency: o.currency ?? 'usd',
        client_reference_id: o.clientReferenceId ?? null,
        metadata: o.metadata ?? {},
        customer_details: { email: o.email ?? 'payer@example.com' },
      },
    },
  });
}

function stripe(contestId: string, payload: string, header?: string) {
  const sig = header ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET });
  return env.request('POST', `/api/webhooks/referral/stripe/${contestId}`, {
    rawBody: payload,
    headers: { 'stripe-signature': sig },
  });
}

describe('Stripe checkout sessions', () => {
  it('a paid checkout.session.completed (signed by the stripe package) credits client_reference_id', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'sadv@example.com');
    const payload = stripeEvent({ eventId: 'evt_A', sessionId: 'cs_test_A', clientReferenceId: adv.code });
    const r = await stripe(c.id, payload);
    expect([r.status, r.body]).toEqual([
      200,
      {
        success: true,
        data: { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 10, alreadyProcessed: false },
      },
    ]);
    expect(await purchasesOf(c.id)).toEqual([
      expect.objectContaining({
        order_id: 'cs_test_A',
        amount: '49.9900',
        currency: 'USD',
        source: 'stripe',
        referrer_entry_id: adv.id,
      }),
    ]);
    const [receipt] = await listReceipts(env.db, c.id);
    expect(receipt).toMatchObject({
      source: 'stripe',
      externalId: 'evt_A',
      dedupeKey: 'cs_test_A',
      outcome: 'processed',
    });
  });

  it('what we sign, the stripe package verifies', async () => {
    const payload = stripeEvent({ eventId: 'evt_ours' });
    const ts = Math.floor(Date.now() / 1000);
    const header = await signStripe(STRIPE_SECRET, ts, payload);
    expect(header).toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: ts }));
    const event = new Stripe('sk_test_unused').webhooks.constructEvent(payload, header, STRIPE_SECRET);
    expect(event.id).toBe('evt_ours');
  });

  it('metadata.referralCode, then metadata.ref, when client_reference_id matches nothing', async () => {
    const c = await contest();
    const a = await entry(c.id, 'ma@example.com');
    const b = await entry(c.id, 'mb@example.com');
    const r1 = await stripe(
      c.id,
      stripeEvent({ clientReferenceId: 'user_123', metadata: { referralCode: a.code, ref: b.code } }),
    );
    const r2 = await stripe(c.id, stripeEvent({ metadata: { ref: b.code } }));
    expect([r1.body.data.referrerEntryId, r2.body.data.referrerEntryId]).toEqual([a.id, b.id]);
  });

  it('amounts: minor units / 100; zero-decimal currencies as is; three-decimal / 1000', async () => {
    expect(minorToDecimal(4999, 'USD')).toBe('49.99');
    expect(minorToDecimal(5, 'EUR')).toBe('0.05');
    expect(minorToDecimal(100, 'USD')).toBe('1');
    expect(minorToDecimal(5000, 'JPY')).toBe('5000');
    expect(minorToDecimal(12345, 'KWD')).toBe('12.345');
    const c = await contest({ campaignType: 'affiliate', affiliate: { commissionPercent: 10 } });
    const adv = await entry(c.id, 'jp@example.com');
    const jpy = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_jpy', amountTotal: 5000, currency: 'jpy', clientReferenceId: adv.code }),
    );
    const krw = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_krw', amountTotal: 12345, currency: 'krw', clientReferenceId: adv.code }),
    );
    const usd = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_usd', amountTotal: 1999, currency: 'usd', clientReferenceId: adv.code }),
    );
    expect([jpy.body.data.commissionAwarded, krw.body.data.commissionAwarded, usd.body.data.commissionAwarded]).toEqual(
      [500, 1234.5, 2],
    );
    const rows = await purchasesOf(c.id);
    expect(rows.map((p) => [p.order_id, p.amount, p.currency])).toEqual([
      ['cs_jpy', '5000.0000', 'JPY'],
      ['cs_krw', '12345.0000', 'KRW'],
      ['cs_usd', '19.9900', 'USD'],
    ]);
    expect((await entryRow(adv.id)).commission).toBe(1736.5);
  });

  it('unpaid sessions and other events are ignored (200); async_payment_succeeded later credits', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'async@example.com');
    const unpaid = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_async', paymentStatus: 'unpaid', clientReferenceId: adv.code }),
    );
    expect([unpaid.status, unpaid.body.data]).toEqual([200, { ignored: true, reason: 'Checkout session is not paid' }]);
    const other = await stripe(c.id, stripeEvent({ type: 'payment_intent.succeeded', clientReferenceId: adv.code }));
    expect([other.status, other.body.data]).toEqual([
      200,
      { ignored: true, reason: 'Event payment_intent.succeeded is not handled' },
    ]);
    const expired = await stripe(c.id, stripeEvent({ type: 'checkout.session.expired', clientReferenceId: adv.code }));
    expect(expired.body.data.ignored).toBe(true);
    const paid = await stripe(
      c.id,
      stripeEvent({
        type: 'checkout.session.async_payment_succeeded',
        sessionId: 'cs_async',
        clientReferenceId: adv.code,
      }),
    );
    expect(paid.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 10,
      alreadyProcessed: false,
    });
    expect((await listReceipts(env.db, c.id)).map((x) => x.outcome)).toEqual([
      'ignored',
      'ignored',
      'ignored',
      'processed',
    ]);
  });

  it('dedupe by event id (stored answer) and by session id (alreadyProcessed)', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'sd@example.com');
    const payload = stripeEvent({ eventId: 'evt_D', sessionId: 'cs_D', clientReferenceId: adv.code });
    const first = await stripe(c.id, payload);
    const replay = await stripe(c.id, payload);
    const other = await stripe(
      c.id,
      stripeEvent({
        eventId: 'evt_D2',
        type: 'checkout.session.async_payment_succeeded',
        sessionId: 'cs_D',
        clientReferenceId: adv.code,
      }),
    );
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    expect(other.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 0,
      alreadyProcessed: true,
    });
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect((await listReceipts(env.db, c.id)).map((x) => `${x.externalId}:${x.outcome}`)).toEqual([
      'evt_D:processed',
      'evt_D:duplicate',
      'evt_D2:processed',
    ]);
  });

  it('signature refusals: wrong secret, stale or future beyond 300 s, body changed, truncated, missing; several v1 with one valid pass', async () => {
    const noSecret = await contest({ stripeSecret: null });
    const c = await contest();
    const adv = await entry(c.id, 'ss@example.com');
    const payload = stripeEvent({ clientReferenceId: adv.code });
    // the clock stands still while the cases run: 301 s stays 301 s however slow the machine is
    env.clock.freeze();
    onTestFinished(() => env.clock.thaw());
    const now = Math.floor(env.clock.now().getTime() / 1000);
    const gen = (opts: { secret?: string; timestamp?: number; payload?: string } = {}) =>
      Stripe.webhooks.generateTestHeaderString({
        payload: opts.payload ?? payload,
        secret: opts.secret ?? STRIPE_SECRET,
        timestamp: opts.timestamp ?? now,
      });
    const good = gen();
    const goodSig = good.split('v1=')[1]!;
    const cases: [string, string, string][] = [
      ['wrong secret', payload, gen({ secret: 'whsec_other' })],
      ['stale (301 s)', payload, gen({ timestamp: now - 301 })],
      ['future (301 s)', payload, gen({ timestamp: now + 301 })],
      ['body changed', payload.replace('4999', '499900'), good],
      ['truncated', payload, good.slice(0, -3)],
      ['no v1', payload, `t=${now}`],
      ['v0 only', payload, `t=${now},v0=${goodSig}`],
      ['timestamp changed', payload, `t=${now - 1},v1=${goodSig}`],
      ['two timestamps', payload, `t=${now},t=${now},v1=${goodSig}`],
      ['empty', payload, ''],
    ];
    for (const [name, body, header] of cases) {
      const r = await stripe(c.id, body, header || ' ');
      expect([name, r.status, r.body]).toEqual([name, 401, UNAUTH]);
    }
    // a contest without a stripeSecret refuses even a well-signed event
    const ns = await stripe(noSecret.id, payload, gen());
    expect([ns.status, ns.body]).toEqual([401, UNAUTH]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).every((x) => x.outcome === 'rejected')).toBe(true);
    // within tolerance, and with a forged v1 next to the real one
    const ok = await stripe(
      c.id,
      payload,
      `t=${now - 299},v1=${'0'.repeat(64)},v1=${gen({ timestamp: now - 299 }).split('v1=')[1]}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.pointsAwarded).toBe(10);
  });

  it('malformed events: 400 naming the field, recorded as rejected', async () => {
    const c = await contest();
    const cases: [string, string][] = [
      [JSON.stringify({ type: 'checkout.session.completed', data: { object: {} } }), 'id is required'],
      [JSON.stringify({ id: 42, type: 'checkout.session.completed' }), 'Invalid id'],
      [JSON.stringify({ id: 'evt_x' }), 'type is required'],
      [
        JSON.stringify({ id: 'evt_y', type: 'checkout.session.completed', data: { object: [] } }),
        'Invalid data.object',
      ],
      [JSON.stringify({ id: 'evt_z', type: 'checkout.session.completed' }), 'Invalid data.object'],
      [stripeEvent({ amountTotal: '4999' }), 'Invalid data.object.amount_total'],
      [stripeEvent({ amountTotal: 49.99 }), 'Invalid data.object.amount_total'],
      [stripeEvent({ currency: 'dollars' }), 'Invalid data.object.currency'],
      ['[1]', 'Invalid request body'],
      ['nope', 'Invalid request body'],
    ];
    for (const [payload, error] of cases) {
      const r = await stripe(c.id, payload);
      expect([payload.slice(0, 50), r.status, r.body]).toEqual([payload.slice(0, 50), 400, { success: false, error }]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).map((x) => x.outcome)).toEqual(cases.map(() => 'rejected'));
  });
});
