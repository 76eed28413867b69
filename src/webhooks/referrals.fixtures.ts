/**
 * Referral webhooks (docs/contests-and-entries.md): Shopify `orders/paid` (X-Shopify-Hmac-Sha256, computed here
 * with node:crypto exactly as Shopify documents it) and Stripe Checkout events signed with the
 * official `stripe` package.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

export let env: TestEnv;
export let t: TeamFixture;
export let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

export const SHOPIFY_SECRET = 'shpss_0123456789abcdef_test';
export const STRIPE_SECRET = 'whsec_test_stripe_0123456789';
export const UNAUTH = { success: false, error: 'Invalid webhook signature' };
/** Shopify order ids exceed 2^53: a JS number cannot hold them. */
export const BIG_ID = '5678901234567890123';

export async function contest(settings: Record<string, unknown> = {}) {
  return env.contest(t.teamId, {
    referral: { advocatePoints: 10, friendPoints: 0 },
    shopifySecret: SHOPIFY_SECRET,
    stripeSecret: STRIPE_SECRET,
    ...settings,
  });
}

export async function entry(contestId: string, email: string, code?: string) {
  const referralCode = code ?? `rf${++seq}${Math.random().toString(36).slice(2, 10)}`;
  const rows = await query<{ id: string }>(
    env.db,
    sql`insert into entries (contest_id, email, referral_code, email_confirmed)
        values (${contestId}, ${email}, ${referralCode}, true) returning id`,
  );
  return { id: rows[0]!.id, code: referralCode };
}

export async function entryRow(id: string) {
  const [r] = await query<{ points: number; commission: string }>(
    env.db,
    sql`select points, commission from entries where id = ${id}`,
  );
  return { points: r!.points, commission: Number(r!.commission) };
}

export async function purchasesOf(contestId: string) {
  return query<Record<string, unknown>>(
    env.db,
    sql`select order_id, entry_id, referrer_entry_id, amount::text as amount, currency, points_awarded,
               commission_awarded::text as commission_awarded, source
        from purchases where contest_id = ${contestId} order by created_at, id`,
  );
}

// ------------------------------------------------------------------ Shopify

export interface OrderOpts {
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
export function shopifyOrder(o: OrderOpts = {}): string {
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

export const shopifyHmac = (raw: string, secret = SHOPIFY_SECRET) =>
  createHmac('sha256', secret).update(raw, 'utf8').digest('base64');

export function shopify(
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

// ------------------------------------------------------------------ Stripe

export interface SessionOpts {
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

export function stripeEvent(o: SessionOpts = {}): string {
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

export function stripe(contestId: string, payload: string, header?: string) {
  const sig = header ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET });
  return env.request('POST', `/api/webhooks/referral/stripe/${contestId}`, {
    rawBody: payload,
    headers: { 'stripe-signature': sig },
  });
}
