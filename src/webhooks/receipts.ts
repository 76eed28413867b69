/**
 * Webhook receipts: every delivery that names a known contest is recorded in
 * `webhook_receipts` (contest, source, external id, outcome, status, answer, error, time), so a
 * team can audit what arrived; and a delivery whose external id (webhook-id, Shopify webhook
 * id, Stripe event id) was processed before is answered with the stored answer and not
 * processed again.
 *
 * Exactly-once: the processed receipt is claimed (`insert ... on conflict do nothing` on the
 * partial unique index `webhook_receipts_external_uq`) in the same transaction as the work and
 * the stored answer. A concurrent duplicate blocks on that index entry until the first commits
 * (then it replays the answer) or rolls back (then it processes). A delivery that fails (4xx)
 * rolls back and is recorded as `rejected`, so the sender may retry it.
 */
import { sql } from 'drizzle-orm';
import { type Db, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { ApiError, Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { MAX_EXTERNAL_ID_LENGTH } from '../lib/signatures.js';
import { pageOf, sqlPaged } from '../sql/paged.js';

export type WebhookSource = 'purchase' | 'signup' | 'shopify' | 'stripe';
export type ReceiptOutcome = 'processed' | 'rejected' | 'ignored' | 'duplicate';

export interface ReceiptMeta {
  contestId: string;
  source: WebhookSource;
  /** the sender's delivery id; null when none was sent */
  externalId: string | null;
  /** secondary key (order id, Shopify admin_graphql_api_id, Stripe session id) */
  dedupeKey?: string | null;
}

/** What a delivery answers: HTTP status and the whole JSON body (envelope). */
export interface DeliveryAnswer {
  status: number;
  body: unknown;
}

export interface WorkResult extends DeliveryAnswer {
  outcome: 'processed' | 'ignored';
  /** a reason kept in the receipt's error column (ignored deliveries) */
  note?: string;
  dedupeKey?: string | null;
}

const clip = (s: string | null | undefined, n: number) => (s === null || s === undefined ? null : s.slice(0, n));

/** Writes one receipt row (outside any delivery transaction). */
export async function recordReceipt(
  db: Db,
  now: Date,
  meta: ReceiptMeta,
  outcome: ReceiptOutcome,
  statusCode: number,
  response: unknown,
  error: string | null,
): Promise<void> {
  await db.execute(
    sql`insert into webhook_receipts (contest_id, source, external_id, dedupe_key, outcome, status_code, response, error, created_at)
        values (${meta.contestId}, ${meta.source}, ${clip(meta.externalId, MAX_EXTERNAL_ID_LENGTH)},
                ${clip(meta.dedupeKey, 512)}, ${outcome}, ${statusCode},
                ${response === null || response === undefined ? null : JSON.stringify(response)}::jsonb,
                ${clip(error, 1000)}, ${now.toISOString()}::timestamptz)`,
  );
}

/** Records a refused delivery (its status and message) and throws the error on. */
export async function rejectDelivery(db: Db, now: Date, meta: ReceiptMeta, err: ApiError): Promise<never> {
  await recordReceipt(db, now, meta, 'rejected', err.status, null, err.message);
  throw err;
}

/**
 * Records a delivery that failed: an ApiError with its status and message; anything else as a
 * 500 (best effort: the database may be what failed). Then throws the error on.
 */
async function recordFailure(db: Db, now: Date, meta: ReceiptMeta, e: unknown): Promise<never> {
  if (e instanceof ApiError) await rejectDelivery(db, now, meta, e);
  try {
    await recordReceipt(db, now, meta, 'rejected', 500, null, 'Internal server error');
  } catch {
    /* the original error is what matters */
  }
  throw e;
}

/** Runs `fn`; an error it throws is recorded as a rejected receipt and thrown on. */
export async function guardDelivery<T>(db: Db, now: Date, meta: ReceiptMeta, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    return recordFailure(db, now, meta, e);
  }
}

/**
 * Runs the delivery's work at most once per external id, in one transaction with its receipt.
 * Returns the answer to give, `replayed` when it is the stored answer of an earlier delivery.
 */
export async function processDelivery(
  db: Db,
  now: Date,
  meta: ReceiptMeta,
  work: (tx: Db) => Promise<WorkResult>,
): Promise<DeliveryAnswer & { replayed: boolean }> {
  const t = now.toISOString();
  const externalId = meta.externalId;
  let replay: DeliveryAnswer | undefined;
  let result: WorkResult | undefined;
  try {
    await db.transaction(async (txn) => {
      const tx = txn as unknown as Db;
      let claimId: string | null = null;
      if (externalId !== null) {
        const claimed = await queryOne<{ id: string }>(
          tx,
          sql`insert into webhook_receipts (contest_id, source, external_id, dedupe_key, outcome, status_code, created_at)
              values (${meta.contestId}, ${meta.source}, ${externalId}, ${clip(meta.dedupeKey, 512)}, 'processed', 0, ${t}::timestamptz)
              on conflict (contest_id, source, external_id) where external_id is not null and outcome = 'processed'
              do nothing
              returning id`,
        );
        if (!claimed) {
          // processed before (or just now, by a concurrent delivery that has committed)
          const prior = await queryOne<{ status_code: number; response: unknown }>(
            tx,
            sql`select status_code, response from webhook_receipts
                where contest_id = ${meta.contestId} and source = ${meta.source} and external_id = ${externalId}
                  and outcome = 'processed'`,
          );
          if (!prior) throw new Error('webhook receipt claim conflicted but no processed receipt was found');
          replay = {
            status: num(prior.status_code),
            body: typeof prior.response === 'string' ? JSON.parse(prior.response) : prior.response,
          };
          return;
        }
        claimId = claimed.id;
      }
      result = await work(tx);
      const response = JSON.stringify(result.body);
      const dedupeKey = clip(result.dedupeKey ?? meta.dedupeKey, 512);
      if (claimId) {
        await tx.execute(
          sql`update webhook_receipts set outcome = ${result.outcome}, status_code = ${result.status},
                response = ${response}::jsonb, error = ${clip(result.note, 1000)}, dedupe_key = ${dedupeKey}
              where id = ${claimId}`,
        );
      } else {
        await tx.execute(
          sql`insert into webhook_receipts (contest_id, source, external_id, dedupe_key, outcome, status_code, response, error, created_at)
              values (${meta.contestId}, ${meta.source}, null, ${dedupeKey}, ${result.outcome}, ${result.status},
                      ${response}::jsonb, ${clip(result.note, 1000)}, ${t}::timestamptz)`,
        );
      }
    });
  } catch (e) {
    await recordFailure(db, now, meta, e);
  }
  if (replay) {
    await recordReceipt(db, now, meta, 'duplicate', replay.status, replay.body, null);
    return { ...replay, replayed: true };
  }
  return { status: result!.status, body: result!.body, replayed: false };
}

export interface ReceiptRow {
  id: string;
  contestId: string | null;
  source: WebhookSource;
  externalId: string | null;
  dedupeKey: string | null;
  outcome: ReceiptOutcome;
  statusCode: number;
  response: unknown;
  error: string | null;
  createdAt: Date;
}

/** The receipts of a contest, oldest first (audits and tests). */
export async function listReceipts(db: Db, contestId: string): Promise<ReceiptRow[]> {
  if (!isUuid(contestId)) return [];
  const rows = await query<Record<string, unknown>>(
    db,
    sql`select id, contest_id, source, external_id, dedupe_key, outcome, status_code, response, error, created_at
        from webhook_receipts where contest_id = ${contestId} order by created_at, id`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    contestId: r.contest_id as string | null,
    source: r.source as WebhookSource,
    externalId: r.external_id as string | null,
    dedupeKey: r.dedupe_key as string | null,
    outcome: r.outcome as ReceiptOutcome,
    statusCode: num(r.status_code),
    response: typeof r.response === 'string' ? JSON.parse(r.response) : r.response,
    error: r.error as string | null,
    createdAt: new Date(r.created_at as string),
  }));
}

export interface ReceiptJson {
  id: string;
  source: WebhookSource;
  externalId: string | null;
  dedupeKey: string | null;
  outcome: ReceiptOutcome;
  statusCode: number;
  error: string | null;
  response: unknown;
  createdAt: string;
}

/**
 * A team's audit of what arrived on a contest's webhooks, newest first. Throws
 * Errors.contestNotFound() for a contest that is not the team's.
 */
export async function listContestReceipts(
  db: Db,
  team: Team,
  contestId: string,
  opts: { limit: number; offset: number; outcome?: ReceiptOutcome; source?: WebhookSource },
): Promise<{ items: ReceiptJson[]; total: number }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const where = sql`r.contest_id = c.id
    and (${opts.outcome ?? null}::text is null or r.outcome = ${opts.outcome ?? null}::text)
    and (${opts.source ?? null}::text is null or r.source = ${opts.source ?? null}::text)`;
  const rows = await query<{
    found: number | string;
    total: number | string;
    id: string | null;
    source: WebhookSource;
    external_id: string | null;
    dedupe_key: string | null;
    outcome: ReceiptOutcome;
    status_code: number | string;
    error: string | null;
    response: unknown;
    created_at: Date | string;
  }>(
    db,
    sql`with ${team.cte} c as (select id from contests where id = ${contestId} and team_id = ${team.id})
        ${sqlPaged({
          head: sql`(select count(*) from c) as found`,
          counted: sql`from webhook_receipts r, c where ${where}`,
          page: sql`select r.id, r.source, r.external_id, r.dedupe_key, r.outcome, r.status_code, r.error, r.response, r.created_at
            from webhook_receipts r, c where ${where}
            order by r.created_at desc, r.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!num(rows[0]?.found)) throw Errors.contestNotFound();
  return pageOf(rows, (r) => ({
    id: r.id,
    source: r.source,
    externalId: r.external_id,
    dedupeKey: r.dedupe_key,
    outcome: r.outcome,
    statusCode: num(r.status_code),
    error: r.error,
    response: typeof r.response === 'string' ? JSON.parse(r.response) : (r.response ?? null),
    createdAt: new Date(r.created_at).toISOString(),
  }));
}
