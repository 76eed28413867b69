/**
 * Referred sales from Shopify (`orders/paid`) and Stripe (`checkout.session.completed` /
 * `checkout.session.async_payment_succeeded`), docs/contests-and-entries.md.
 *
 * A sale is recorded as a `purchases` row (source `shopify`/`stripe`, order id = Shopify's
 * `admin_graphql_api_id` or Stripe's Checkout Session id) in the same statement that credits the
 * referrer, so the same order credits once under any concurrency, whichever delivery or event
 * carries it. The referrer is the entry of THIS contest whose referral code is the first
 * candidate code (in the platform's priority order) that matches; an exact match wins over a
 * case-insensitive one, which counts only when exactly one entry of the contest matches it.
 * A buyer's own code is not credited (self-referral).
 *
 * Credit: affiliate campaign → `commission += round(amount * commissionPercent / 100, 2)`
 * (numeric, half away from zero, to the cent); otherwise `advocatePoints` as a `referral`
 * ledger row (the total capped like every points change).
 */
import { sql } from 'drizzle-orm';
import { type Db, num, queryOne } from '../db/client.js';
import { Errors } from '../errors.js';
import { normalizeEmail } from '../lib/email.js';
import { decimalStringAmount, MAX_AMOUNT, mapAmountOverflow, ORDER_ID_MAX } from '../purchases/purchases.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { sqlClampedTotal } from '../sql/points.js';
import { sqlNotErased } from '../sql/scope.js';

export interface ReferredSale {
  source: 'shopify' | 'stripe';
  orderId: string;
  /** decimal text, >= 0 */
  amount: string;
  currency: string;
  /** candidate referral codes, highest priority first */
  codes: string[];
  /** the buyer's email (lower-cased), when the platform sent one */
  buyerEmail: string | null;
}

export interface ReferralResult {
  referrerEntryId: string | null;
  commissionAwarded: number;
  pointsAwarded: number;
  alreadyProcessed: boolean;
}

const MAX_CODES = 20;
const CODE_MAX = 100;

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function addCode(codes: string[], raw: unknown) {
  if (typeof raw !== 'string') return;
  const code = raw.trim();
  if (!code || code.length > CODE_MAX || codes.length >= MAX_CODES || codes.includes(code)) return;
  codes.push(code);
}

function buyerEmail(...candidates: unknown[]): string | null {
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    // the same normal form as every stored email, so that `en.email = buyer` can match
    const e = normalizeEmail(c);
    if (e !== null) return e;
  }
  return null;
}

function currencyOf(raw: unknown, field: string): string {
  if (raw === undefined || raw === null) return 'USD';
  if (typeof raw !== 'string' || !/^[A-Za-z]{3}$/.test(raw.trim())) throw Errors.validation(`Invalid ${field}`);
  return raw.trim().toUpperCase();
}

function checkAmount(amount: string): string {
  if (Number(amount) > MAX_AMOUNT) throw Errors.amountTooLarge();
  return amount;
}

function orderIdOf(raw: unknown, field: string): string {
  if (raw === undefined || raw === null) throw Errors.validation(`${field} is required`);
  if (typeof raw !== 'string' || !raw.trim() || raw.trim().length > ORDER_ID_MAX)
    throw Errors.validation(`Invalid ${field}`);
  return raw.trim();
}

/** The `ref` query parameter of a landing URL (absolute or a path), if any. */
export function refFromLandingSite(landing: unknown): string | null {
  if (typeof landing !== 'string' || !landing.trim()) return null;
  try {
    return new URL(landing.trim(), 'https://shop.invalid').searchParams.get('ref');
  } catch {
    return null;
  }
}

/**
 * A Shopify order (REST webhook payload) as a sale. The numeric `id` (beyond 2^53) is never
 * used: the order id is `admin_graphql_api_id`. `total_price` is a decimal string.
 * Codes: `note_attributes` named `ref` or `referralCode`, then `discount_codes[].code`, then
 * `ref` in `landing_site` (then Shopify's own `landing_site_ref`).
 */
export function parseShopifyOrder(order: Obj): ReferredSale {
  const orderId = orderIdOf(order.admin_graphql_api_id, 'admin_graphql_api_id');
  if (order.total_price === undefined || order.total_price === null) throw Errors.validation('total_price is required');
  const amount = typeof order.total_price === 'string' ? decimalStringAmount(order.total_price) : null;
  if (amount === null) throw Errors.validation('Invalid total_price');
  const currency = currencyOf(order.currency, 'currency');
  const codes: string[] = [];
  if (Array.isArray(order.note_attributes)) {
    for (const a of order.note_attributes) {
      if (!isObj(a) || typeof a.name !== 'string') continue;
      const name = a.name.trim().toLowerCase();
      if (name === 'ref' || name === 'referralcode') addCode(codes, a.value);
    }
  }
  if (Array.isArray(order.discount_codes)) {
    for (const d of order.discount_codes) if (isObj(d)) addCode(codes, d.code);
  }
  addCode(codes, refFromLandingSite(order.landing_site));
  addCode(codes, order.landing_site_ref);
  const customer = isObj(order.customer) ? order.customer : {};
  return {
    source: 'shopify',
    orderId,
    amount: checkAmount(amount),
    currency,
    codes,
    buyerEmail: buyerEmail(order.email, order.contact_email, customer.email),
  };
}

/** Stripe's zero-decimal currencies: `amount_total` is in whole units (https://docs.stripe.com/currencies). */
export const STRIPE_ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
/** Stripe's three-decimal currencies: `amount_total` is in thousandths. */
export const STRIPE_THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** Minor units (a non-negative safe integer) as decimal text in the currency's major unit. */
export function minorToDecimal(minor: number, currency: string): string {
  const digits = STRIPE_ZERO_DECIMAL.has(currency) ? 0 : STRIPE_THREE_DECIMAL.has(currency) ? 3 : 2;
  if (digits === 0) return String(minor);
  const s = String(minor).padStart(digits + 1, '0');
  const int = s.slice(0, -digits);
  const frac = s.slice(-digits).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

export const STRIPE_EVENTS = ['checkout.session.completed', 'checkout.session.async_payment_succeeded'] as const;

/**
 * A paid Checkout Session as a sale. Codes: `client_reference_id`, then `metadata.referralCode`,
 * then `metadata.ref`. Returns null when the session is not paid (yet).
 */
export function parseStripeSession(session: Obj): ReferredSale | null {
  const orderId = orderIdOf(session.id, 'data.object.id');
  if (session.payment_status !== 'paid') return null;
  const minor = session.amount_total;
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor) || minor < 0)
    throw Errors.validation('Invalid data.object.amount_total');
  if (typeof session.currency !== 'string') throw Errors.validation('Invalid data.object.currency');
  const currency = currencyOf(session.currency, 'data.object.currency');
  const codes: string[] = [];
  addCode(codes, session.client_reference_id);
  const metadata = isObj(session.metadata) ? session.metadata : {};
  addCode(codes, metadata.referralCode);
  addCode(codes, metadata.ref);
  const details = isObj(session.customer_details) ? session.customer_details : {};
  return {
    source: 'stripe',
    orderId,
    amount: checkAmount(minorToDecimal(minor, currency)),
    currency,
    codes,
    buyerEmail: buyerEmail(details.email, session.customer_email),
  };
}

export type CreditOutcome = { kind: 'credited'; result: ReferralResult } | { kind: 'not_open' };

/**
 * Records the sale and credits the referrer, once per (contest, order id). One statement;
 * safe inside the delivery's transaction.
 */
export async function creditReferredSale(
  db: Db,
  now: Date,
  contestId: string,
  sale: ReferredSale,
): Promise<CreditOutcome> {
  const t = now.toISOString();
  const amount = sql`${sale.amount}::numeric`;
  const buyer = sql`${sale.buyerEmail}::text`;
  const notSelf = sql`(${buyer} is null or en.email is distinct from ${buyer})`;
  type Row = {
    found: boolean;
    open: boolean | null;
    purchase_id: string | null;
    referrer_entry_id: string | null;
    points_awarded: number | null;
    commission_awarded: string | number | null;
    existing_id: string | null;
    existing_referrer: string | null;
  };
  let row: Row | undefined;
  try {
    row = await queryOne<Row>(
      db,
      sql`with c as (
            select c.id, c.team_id, c.campaign_type = 'affiliate' as affiliate, c.referral_advocate_points as advocate_points,
                   c.affiliate_commission_percent as pct, ${sqlContestOpen(now, 'c')} as open
            from contests c where c.id = ${contestId}
          ), existing as (
            select p.id, p.referrer_entry_id from purchases p join c on p.contest_id = c.id where p.order_id = ${sale.orderId}
          ), go as (
            select * from c where c.open and not exists (select 1 from existing)
          ), cand as (
            select k.code, k.pos from jsonb_array_elements_text(${JSON.stringify(sale.codes)}::jsonb) with ordinality as k(code, pos)
          ), exact as (
            select en.id, cand.pos from cand join go on true
            join entries en on en.referral_code = cand.code and en.contest_id = go.id and ${sqlNotErased('en')}
            where ${notSelf}
          ), folded as (
            select (array_agg(en.id))[1] as id, cand.pos from cand join go on true
            join entries en on en.contest_id = go.id and lower(en.referral_code) = lower(cand.code) and ${sqlNotErased('en')}
            where not exists (select 1 from exact) and ${notSelf}
            group by cand.pos having count(*) = 1
          ), pick as (
            select id from (select id, pos, 0 as pri from exact union all select id, pos, 1 as pri from folded) x
            order by pri, pos limit 1
          ), ref as (
            select en.id, en.points from entries en where en.id = (select id from pick) for update
          ), buyer as (
            select en.id from entries en join go on en.contest_id = go.id where ${buyer} is not null and en.email = ${buyer}
          ), req as (
            select ref.id, ref.points,
                   case when go.affiliate then 0 else go.advocate_points end as requested_points,
                   case when go.affiliate then round(${amount} * go.pct / 100, 2) else 0 end as commission
            from go, ref
          ), ins as (
            insert into purchases (contest_id, entry_id, referrer_entry_id, order_id, amount, currency,
                                   points_awarded, commission_awarded, source, created_at)
            select go.id, (select id from buyer), req.id, ${sale.orderId}, ${amount}, ${sale.currency},
                   coalesce(${sqlClampedTotal(sql`req.points`, sql`req.requested_points`)} - req.points, 0),
                   coalesce(req.commission, 0), ${sale.source}, ${t}::timestamptz
            from go left join req on true
            on conflict (contest_id, order_id) do nothing
            returning id, referrer_entry_id, points_awarded, commission_awarded, json_build_object('purchaseId', id,
              'contestId', contest_id, 'entryId', entry_id, 'referrerEntryId', referrer_entry_id, 'orderId', order_id, 'amount', amount,
              'currency', currency, 'pointsAwarded', points_awarded, 'commissionAwarded', commission_awarded, 'source', source,
              'createdAt', ${sqlIso(sql`created_at`)}) as ev_data, entry_id
          ), ${sqlEmitEvent('ev_purchase', 'purchase.recorded', sql`select go.team_id, go.id as contest_id, ins.ev_data as data from ins, go`, now)},
          ${sqlEmitEvent(
            'ev_ref',
            'referral.credited',
            sql`select go.team_id, go.id as contest_id, json_build_object('advocateEntryId',
            ins.referrer_entry_id, 'friendEntryId', ins.entry_id, 'contestId', go.id, 'orderId', ${sale.orderId}::text,
            'advocatePoints', ins.points_awarded, 'commissionAwarded', ins.commission_awarded) as data
            from ins, go where ins.referrer_entry_id is not null`,
            now,
          )},
          upd as (
            update entries en set points = en.points + ins.points_awarded, commission = en.commission + ins.commission_awarded,
                   updated_at = ${t}::timestamptz
            from ins where en.id = ins.referrer_entry_id and (ins.points_awarded <> 0 or ins.commission_awarded <> 0)
            returning en.id
          ), led as (
            insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
            select ins.referrer_entry_id, go.id, ins.points_awarded, req.requested_points, 'referral',
                   ${`Referred sale ${sale.orderId} (${sale.source})`}, ins.id::text, ${t}::timestamptz
            from ins, go, req where ins.referrer_entry_id is not null and req.requested_points > 0
            returning id
          )
          select c.id is not null as found, c.open,
                 (select id from ins) as purchase_id, (select referrer_entry_id from ins) as referrer_entry_id,
                 (select points_awarded from ins) as points_awarded, (select commission_awarded from ins) as commission_awarded,
                 (select id from existing) as existing_id, (select referrer_entry_id from existing) as existing_referrer,
                 ${sqlEventDeliveries('ev_purchase', 'ev_ref')}${sqlRewardsMay(sql`c.id`)}
          from (select 1) one left join c on true`,
    );
  } catch (e) {
    mapAmountOverflow(e);
  }
  if (!row?.found) throw Errors.contestNotFound();
  const already = (referrer: string | null): CreditOutcome => ({
    kind: 'credited',
    result: { referrerEntryId: referrer, commissionAwarded: 0, pointsAwarded: 0, alreadyProcessed: true },
  });
  if (row.existing_id) return already(row.existing_referrer);
  if (!row.open) return { kind: 'not_open' };
  if (!row.purchase_id) {
    // recorded by a concurrent delivery after this statement's snapshot
    const other = await queryOne<{ referrer_entry_id: string | null }>(
      db,
      sql`select referrer_entry_id from purchases where contest_id = ${contestId} and order_id = ${sale.orderId}`,
    );
    if (!other) throw new Error('referred sale insert skipped without a conflicting row');
    return already(other.referrer_entry_id);
  }
  return {
    kind: 'credited',
    result: {
      referrerEntryId: row.referrer_entry_id,
      commissionAwarded: num(row.commission_awarded),
      pointsAwarded: num(row.points_awarded),
      alreadyProcessed: false,
    },
  };
}
