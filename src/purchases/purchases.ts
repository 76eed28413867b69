/**
 * Purchases (docs/contests-and-entries.md): a purchase ties an order of the caller's
 * system to an entry and awards `pointsPerPurchase + floor(amount * pointsPerCurrencyUnit)`.
 *
 * The purchase row, the entry's new total and the points-ledger row are written by ONE SQL
 * statement (data-modifying CTEs): `insert ... on conflict (contest_id, order_id) do nothing`
 * decides, under any concurrency, which request records the order; only that one moves points.
 *
 * Order of the checks (first failing one answers): body (400 `Invalid request body` /
 * `Amount must be positive` / `Amount is too large` / `Invalid currency`), contest of the team
 * (404 `Contest not found`), purchase tracking on (400), order already recorded (200,
 * `alreadyExists: true`: a retry is answered the same even if the contest closed since), contest
 * open (409 `Contest is not active`), entry with that email (404 `Entry not found`).
 */
import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { type Db, num, pgError, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { pluralForm } from '../lib/plural.js';
import { emailOf } from '../lib/validation.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { MAX_POINTS_TOTAL, sqlClampedTotal } from '../sql/points.js';

/** Largest amount accepted (numeric(18,4) holds up to 10^14). */
export const MAX_AMOUNT = 1_000_000_000_000;
/** Amounts are stored with 4 decimal places; more precise amounts are refused, never rounded. */
export const AMOUNT_DECIMALS = 4;
export const ORDER_ID_MAX = 255;

const INVALID = 'Invalid request body';

/**
 * The exact decimal text of a JSON number amount (its shortest round-trip form, as JSON
 * wrote it), or null when it needs exponent notation or more than AMOUNT_DECIMALS decimals.
 */
export function amountToDecimal(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const s = String(n);
  if (!/^-?\d+(\.\d+)?$/.test(s)) return null;
  const dot = s.indexOf('.');
  if (dot >= 0 && s.length - dot - 1 > AMOUNT_DECIMALS) return null;
  return s;
}

/** A decimal string (`"19.99"`, Shopify's `total_price`) checked the same way; null when malformed. */
export function decimalStringAmount(s: string): string | null {
  const m = /^(\d{1,15})(?:\.(\d{1,8}))?$/.exec(s.trim());
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > AMOUNT_DECIMALS) return null;
  const int = m[1]!.replace(/^0+(?=\d)/, '');
  return frac ? `${int}.${frac}` : int;
}

export const currencySchema = v.nullish(
  v.pipe(v.string('Invalid currency'), v.trim(), v.regex(/^[A-Za-z]{3}$/, 'Invalid currency'), v.toUpperCase()),
  'USD',
);

/**
 * The body of record purchase and of the purchase webhook. The reference fixes the messages:
 * `Invalid request body` for a missing or invalid email, orderId or amount, `Amount must be
 * positive` for amount <= 0. The first failing field (in this order) answers.
 */
export const purchaseInputSchema = v.object({
  email: emailOf(INVALID),
  orderId: v.pipe(v.string(INVALID), v.trim(), v.minLength(1, INVALID), v.maxLength(ORDER_ID_MAX, INVALID)),
  amount: v.pipe(
    v.number(INVALID),
    v.finite(INVALID),
    v.gtValue(0, 'Amount must be positive'),
    v.maxValue(MAX_AMOUNT, 'Amount is too large'),
    v.check((n) => amountToDecimal(n) !== null, INVALID),
  ),
  currency: currencySchema,
});
export type PurchaseBody = v.InferOutput<typeof purchaseInputSchema>;

export interface PurchaseInput {
  email: string;
  orderId: string;
  /** decimal text, > 0, at most AMOUNT_DECIMALS decimals */
  amount: string;
  currency: string;
  source: 'api' | 'webhook';
}

export interface PurchaseRecord {
  purchaseId: string;
  /** the entry the purchase is tied to (null only for an order first recorded by a referral webhook for an unknown buyer) */
  entryId: string | null;
  pointsAwarded: number;
  alreadyExists: boolean;
  message: string;
}

export interface PurchaseResult {
  status: 200 | 201;
  data: PurchaseRecord;
}

export function toPurchaseInput(body: PurchaseBody, source: PurchaseInput['source']): PurchaseInput {
  return {
    email: body.email,
    orderId: body.orderId,
    amount: amountToDecimal(body.amount)!,
    currency: body.currency,
    source,
  };
}

function duplicate(purchaseId: string, entryId: string | null): PurchaseResult {
  return {
    status: 200,
    data: {
      purchaseId,
      entryId,
      pointsAwarded: 0,
      alreadyExists: true,
      message: 'Purchase already recorded for this orderId; no points awarded',
    },
  };
}

/** Numeric overflow (22003) of a money or points column: a 400, never a 500. */
export function mapAmountOverflow(e: unknown): never {
  if (pgError(e)?.code === '22003') throw Errors.amountTooLarge();
  throw e;
}

/**
 * Records one purchase for the team's contest. Runs as a single statement; safe to call inside
 * a transaction (the purchase webhook does).
 */
export async function recordPurchase(
  db: Db,
  now: Date,
  contest: { id: string; team: Team },
  input: PurchaseInput,
): Promise<PurchaseResult> {
  if (!isUuid(contest.id)) throw Errors.contestNotFound();
  const t = now.toISOString();
  const amount = sql`${input.amount}::numeric`;
  type Row = {
    found: boolean;
    tracking: boolean | null;
    open: boolean | null;
    entry_found: boolean;
    purchase_id: string | null;
    entry_id: string | null;
    points_awarded: number | null;
    existing_id: string | null;
    existing_entry_id: string | null;
  };
  let row: Row | undefined;
  try {
    row = await queryOne<Row>(
      db,
      sql`with ${contest.team.cte} c as (
            select c.id, c.purchase_tracking_enabled as tracking, ${sqlContestOpen(now, 'c')} as open,
                   c.points_per_purchase, c.points_per_currency_unit
            from contests c where c.id = ${contest.id} and c.team_id = ${contest.team.id}
          ), existing as (
            select p.id, p.entry_id from purchases p join c on p.contest_id = c.id where p.order_id = ${input.orderId}
          ), e as (
            select en.id, en.points from entries en join c on en.contest_id = c.id
            where en.email = ${input.email} and c.tracking and c.open and not exists (select 1 from existing)
            for update of en
          ), req as (
            select e.id as entry_id, e.points,
                   least(${MAX_POINTS_TOTAL}::numeric, c.points_per_purchase + floor(${amount} * c.points_per_currency_unit))::int as requested
            from e, c
          ), ins as (
            insert into purchases (contest_id, entry_id, order_id, amount, currency, points_awarded, source, created_at)
            select c.id, req.entry_id, ${input.orderId}, ${amount}, ${input.currency},
                   ${sqlClampedTotal(sql`req.points`, sql`req.requested`)} - req.points, ${input.source}, ${t}::timestamptz
            from c, req
            on conflict (contest_id, order_id) do nothing
            returning id, entry_id, points_awarded, json_build_object('purchaseId', id, 'contestId', contest_id, 'entryId', entry_id,
              'orderId', order_id, 'amount', amount, 'currency', currency, 'pointsAwarded', points_awarded, 'source', source,
              'createdAt', ${sqlIso(sql`created_at`)}) as ev_data
          ), ${sqlEmitEvent('ev_purchase', 'purchase.recorded', sql`select ${contest.team.id} as team_id, c.id as contest_id, ins.ev_data as data from ins, c`, now)},
          upd as (
            update entries en set points = en.points + ins.points_awarded, updated_at = ${t}::timestamptz
            from ins where en.id = ins.entry_id and ins.points_awarded <> 0
            returning en.id
          ), led as (
            insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
            select ins.entry_id, c.id, ins.points_awarded, req.requested, 'purchase',
                   ${`Purchase ${input.orderId}`}, ins.id::text, ${t}::timestamptz
            from ins, c, req where req.requested > 0
            returning id
          )
          select c.id is not null as found, c.tracking, c.open,
                 exists (select 1 from e) as entry_found,
                 (select id from ins) as purchase_id, (select entry_id from ins) as entry_id,
                 (select points_awarded from ins) as points_awarded,
                 (select id from existing) as existing_id, (select entry_id from existing) as existing_entry_id,
                 ${sqlEventDeliveries('ev_purchase')}${sqlRewardsMay(sql`c.id`)}
          from (select 1) one left join c on true`,
    );
  } catch (e) {
    mapAmountOverflow(e);
  }
  if (!row?.found) throw Errors.contestNotFound();
  if (!row.tracking) throw Errors.purchaseTrackingDisabled();
  if (row.existing_id) return duplicate(row.existing_id, row.existing_entry_id);
  if (!row.open) throw Errors.contestNotActive();
  if (!row.entry_found) throw Errors.entryNotFound();
  if (!row.purchase_id) {
    // a concurrent request recorded this order after our statement's snapshot was taken
    const other = await queryOne<{ id: string; entry_id: string | null }>(
      db,
      sql`select id, entry_id from purchases where contest_id = ${contest.id} and order_id = ${input.orderId}`,
    );
    if (!other) throw new Error('purchase insert skipped without a conflicting row');
    return duplicate(other.id, other.entry_id);
  }
  const points = num(row.points_awarded);
  return {
    status: 201,
    data: {
      purchaseId: row.purchase_id,
      entryId: row.entry_id,
      pointsAwarded: points,
      alreadyExists: false,
      message: `Purchase recorded; ${points} ${pluralForm(points, { one: 'point', other: 'points' })} awarded`,
    },
  };
}
