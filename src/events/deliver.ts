/**
 * Delivery of outbound events to the teams' endpoints (Standard Webhooks).
 *
 * Guarantees:
 * - At least once, with the same `webhook-id` (the event id) on every attempt and at every
 *   endpoint. A delivery leaves `pending` only by an explicit record of its outcome; a deliverer
 *   that dies between sending and recording leaves its claim to expire (LEASE_MS), and the next
 *   deliverer sends again with the same id, so receivers dedupe on `webhook-id`.
 * - Claiming is one statement (`FOR UPDATE SKIP LOCKED` + a lease with a random token):
 *   concurrent deliverers (the request trigger, the cron, other processes or isolates) never
 *   take the same delivery while its lease runs, and only the lease holder records an outcome.
 *   The lease (60 s) is longer than an attempt can take (10 s timeout), so one attempt is never
 *   made twice by two live deliverers.
 * - An attempt succeeds on a 2xx answer within ATTEMPT_TIMEOUT_MS (10 s); anything else (other
 *   status, redirect, timeout, network error, refused address) is retried after RETRY_DELAYS_MS
 *   (first retry >= 30 s, each with up to 20% added jitter): 9 attempts over more than 25 hours,
 *   then `failed`.
 * - Times come from the caller's clock (`now`), never SQL now().
 */
import { sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { type Db, iso, num, query } from '../db/client.js';
import type { Deps, Logger } from '../deps.js';
import { describeError } from '../lib/describe-error.js';
import type { PostToAddress } from '../lib/pinned-post.js';
import { joinLoop } from '../lib/shared-loop.js';
import { signStandardWebhook } from '../lib/signatures.js';
import { checkWebhookUrl, type ResolveHost, resolveChecked } from './urls.js';

/** A 2xx within this time is success; the request is cut after it. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How long a claimed delivery stays reserved for its deliverer. */
export const LEASE_MS = 60_000;
/** Delay after the 1st, 2nd, ... failed attempt (before jitter). 8 delays = 9 attempts. */
export const RETRY_DELAYS_MS = [
  30_000, // 30 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  60 * 60_000, // 1 h
  2 * 60 * 60_000, // 2 h
  4 * 60 * 60_000, // 4 h
  8 * 60 * 60_000, // 8 h
  10 * 60 * 60_000, // 10 h
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Up to this fraction is added to each delay, so that retries of many deliveries spread out. */
export const RETRY_JITTER = 0.2;
/** Deliveries and events older than this are deleted by the cron. */
export const RETENTION_DAYS = 30;

/** The delay before the next attempt after `attemptsSoFar` failed attempts (1-based); never shorter than the table. */
export function retryDelayMs(attemptsSoFar: number, unit: number = Math.random()): number {
  const base = RETRY_DELAYS_MS[Math.min(attemptsSoFar, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];
  return Math.round(base * (1 + RETRY_JITTER * Math.min(Math.max(unit, 0), 1)));
}

export interface DeliveryContext {
  fetch: typeof fetch;
  resolveHost?: ResolveHost;
  /** Node: POSTs to the address that was checked (no second resolution); absent: fetch */
  postToAddress?: PostToAddress;
  allowHttp: boolean;
  logger?: Logger;
}

export function deliveryContext(deps: Deps): DeliveryContext {
  return {
    fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    resolveHost: deps.resolveHost,
    postToAddress: deps.postToAddress,
    allowHttp: deps.config.allowHttpWebhooks === true,
    logger: deps.logger,
  };
}

export interface DeliveryOptions {
  /** deliveries claimed per batch (default 50) */
  limit?: number;
  /** batches per call while deliveries keep coming (default 20) */
  maxBatches?: number;
  /** attempts in flight at once (default 16) */
  concurrency?: number;
  /** per-attempt timeout; production always uses ATTEMPT_TIMEOUT_MS */
  timeoutMs?: number;
}

export const DELIVERY_DEFAULTS = { limit: 50, maxBatches: 20, concurrency: 16, timeoutMs: ATTEMPT_TIMEOUT_MS } as const;

/** A claimed delivery with what it takes to send it. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  type: string;
  contest_id: string | null;
  data: unknown;
  event_created_at: Date | string;
  url: string;
  secret: string;
  /** the secret before the last rotation, and until when deliveries are signed with it too */
  previous_secret: string | null;
  previous_secret_until: Date | string | null;
  enabled: boolean;
}

const CLAIMED_COLUMNS = sql`cl.id, cl.attempts, ev.id as event_id, ev.type, ev.contest_id, ev.data, ev.created_at as event_created_at,
  w.url, w.secret, w.previous_secret, w.previous_secret_until, w.enabled`;

async function claimDue(
  db: Db,
  now: string,
  leaseUntil: string,
  token: string,
  limit: number,
): Promise<ClaimedDelivery[]> {
  return query<ClaimedDelivery>(
    db,
    sql`with due as (
          select d.id from event_deliveries d
          where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
            and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
          order by d.next_attempt_at, d.id
          limit ${limit}
          for update skip locked
        ), cl as (
          update event_deliveries d set locked_until = ${leaseUntil}::timestamptz, lease_token = ${token}::uuid
          from due where d.id = due.id
          returning d.id, d.attempts, d.event_id, d.endpoint_id
        )
        select ${CLAIMED_COLUMNS}
        from cl join events ev on ev.id = cl.event_id join webhook_endpoints w on w.id = cl.endpoint_id`,
  );
}

/** The body every endpoint receives for an event, the same bytes on every attempt. */
export function eventBody(
  row: Pick<ClaimedDelivery, 'event_id' | 'type' | 'event_created_at' | 'contest_id' | 'data'>,
): string {
  const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
  return JSON.stringify({
    id: row.event_id,
    type: row.type,
    createdAt: iso(row.event_created_at),
    contestId: row.contest_id,
    data,
  });
}

export interface AttemptOutcome {
  id: string;
  ok: boolean;
  /** no further automatic attempt */
  final: boolean;
  code: number | null;
  err: string | null;
  next: string | null;
}

/** One attempt: sign, POST, wait at most `timeoutMs` for a 2xx. Never throws. */
export async function attemptDelivery(
  row: ClaimedDelivery,
  ctx: DeliveryContext,
  now: Date,
  timeoutMs: number = ATTEMPT_TIMEOUT_MS,
): Promise<AttemptOutcome> {
  const attemptNo = num(row.attempts) + 1;
  const fail = (err: string, code: number | null = null, permanent = false): AttemptOutcome => {
    const final = permanent || attemptNo >= MAX_ATTEMPTS;
    return {
      id: row.id,
      ok: false,
      final,
      code,
      err: err.slice(0, 500),
      next: final ? null : new Date(now.getTime() + retryDelayMs(attemptNo)).toISOString(),
    };
  };
  if (!row.enabled) return fail('Endpoint disabled', null, true);
  let url: URL;
  try {
    url = checkWebhookUrl(row.url, ctx.allowHttp);
  } catch {
    return fail('Refused: invalid url');
  }
  // resolved and checked at every attempt; the POST then goes to that very address (Node)
  const { refused, address } = await resolveChecked(url, ctx.allowHttp, ctx.resolveHost);
  if (refused) return fail(refused);
  const body = eventBody(row);
  const timestamp = Math.floor(now.getTime() / 1000);
  // after a rotation, a signature by each secret (space-separated, as Standard Webhooks allows)
  // until the old one expires: a receiver that still has the old secret keeps verifying
  const secrets = [row.secret];
  if (row.previous_secret && row.previous_secret_until && new Date(row.previous_secret_until).getTime() > now.getTime())
    secrets.push(row.previous_secret);
  const signature = (await Promise.all(secrets.map((s) => signStandardWebhook(s, row.event_id, timestamp, body)))).join(
    ' ',
  );
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'contest-engine-webhooks/1',
    'webhook-id': row.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  };
  try {
    let status: number;
    if (address && ctx.postToAddress) {
      status = await ctx.postToAddress(url, address, { headers, body, timeoutMs });
    } else {
      const res = await ctx.fetch(url.toString(), {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // the answer's body is not needed: let the connection go
      await res.body?.cancel().catch(() => {});
      status = res.status;
    }
    if (status >= 200 && status < 300)
      return { id: row.id, ok: true, final: true, code: status, err: null, next: null };
    return fail(`HTTP ${status}`, status);
  } catch (e) {
    const name = (e as { name?: string })?.name;
    if (name === 'TimeoutError' || name === 'AbortError') return fail(`Timed out after ${timeoutMs / 1000} s`);
    return fail(`Network error: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Records outcomes of one lease; a deliverer whose lease was taken over records nothing. */
export async function recordOutcomes(db: Db, token: string, now: string, outcomes: AttemptOutcome[]) {
  if (outcomes.length === 0) return [];
  return query<DeliveryRow>(
    db,
    sql`update event_deliveries d set
          attempts = d.attempts + 1,
          status = case when x.ok then 'delivered' when x.final then 'failed' else 'pending' end,
          delivered_at = case when x.ok then ${now}::timestamptz else d.delivered_at end,
          next_attempt_at = coalesce(x.next, d.next_attempt_at),
          last_status_code = x.code, last_error = x.err, locked_until = null, lease_token = null
        from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
          as x(id uuid, ok boolean, final boolean, code int, err text, next timestamptz)
        where d.id = x.id and d.lease_token = ${token}::uuid and d.status = 'pending'
        returning ${DELIVERY_COLUMNS}, (select type from events where id = d.event_id) as type`,
  );
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | string | null;
  delivered_at: Date | string | null;
  created_at: Date | string;
}

export const DELIVERY_COLUMNS = sql`d.id, d.event_id, d.status, d.attempts, d.last_status_code, d.last_error,
  d.next_attempt_at, d.delivered_at, d.created_at`;

/** A delivery as the API shows it. */
export function deliveryJson(r: DeliveryRow) {
  return {
    id: r.id,
    eventId: r.event_id,
    type: r.type,
    status: r.status as 'pending' | 'delivered' | 'failed',
    attempts: num(r.attempts),
    lastStatusCode: r.last_status_code === null ? null : num(r.last_status_code),
    lastError: r.last_error,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    deliveredAt: iso(r.delivered_at),
    createdAt: iso(r.created_at),
  };
}

async function inParallel<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

export interface DeliverResult {
  delivered: number;
  retrying: number;
  failed: number;
}

/** Claims due deliveries batch after batch and attempts them. */
export async function deliverDueEvents(
  db: Db,
  ctx: DeliveryContext,
  clock: { now(): Date },
  opts: DeliveryOptions = {},
): Promise<DeliverResult> {
  const o = { ...DELIVERY_DEFAULTS, ...opts };
  const result: DeliverResult = { delivered: 0, retrying: 0, failed: 0 };
  for (let b = 0; b < o.maxBatches; b++) {
    const now = clock.now();
    const token = crypto.randomUUID();
    const rows = await claimDue(
      db,
      now.toISOString(),
      new Date(now.getTime() + LEASE_MS).toISOString(),
      token,
      o.limit,
    );
    if (rows.length === 0) break;
    const outcomes: AttemptOutcome[] = [];
    await inParallel(rows, o.concurrency, async (row) => {
      outcomes.push(await attemptDelivery(row, ctx, clock.now(), o.timeoutMs));
    });
    await recordOutcomes(db, token, clock.now().toISOString(), outcomes);
    for (const x of outcomes) {
      if (x.ok) result.delivered += 1;
      else if (x.final) result.failed += 1;
      else result.retrying += 1;
    }
    if (rows.length < o.limit) break;
  }
  return result;
}

/** Deletes deliveries and events older than RETENTION_DAYS (at most `max` of each per call). */
export async function cleanupEvents(db: Db, now: Date, max = 10_000): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 86_400_000).toISOString();
  const rows = await query<{ deliveries: number | string; events: number | string }>(
    db,
    sql`with d as (
          delete from event_deliveries where id in (
            select id from event_deliveries where created_at < ${cutoff}::timestamptz limit ${max})
          returning 1
        ), e as (
          delete from events where id in (
            select ev.id from events ev where ev.created_at < ${cutoff}::timestamptz limit ${max})
          returning 1
        )
        select (select count(*) from d) as deliveries, (select count(*) from e) as events`,
  );
  return { deliveries: num(rows[0]?.deliveries), events: num(rows[0]?.events) };
}

// ---------------------------------------------------------------- after a request

/** Pause before another pass when the last one found nothing (bounds the polling under load). */
const IDLE_PASS_GAP_MS = 50;

async function onePass(deps: Deps): Promise<number> {
  const handle = deps.database.acquire();
  try {
    const r = await deliverDueEvents(handle.db, deliveryContext(deps), deps.clock);
    return r.delivered + r.retrying + r.failed;
  } finally {
    await handle.release();
  }
}

/**
 * Starts delivery after a request that recorded events: on Node at once, in one shared loop per
 * process (requests arriving while it runs make it go round again); on Workers a pass per
 * request, kept alive by waitUntil. The cron is the safety net for anything missed.
 */
export function kickEventDelivery(deps: Deps, c?: Context): void {
  const track = (p: Promise<unknown>) => {
    if (c) deps.background(c, p);
    else p.catch((e) => deps.logger.error('event delivery failed', { ...describeError(e) }));
  };
  if (deps.eventKick === 'per-request') {
    track(onePass(deps));
    return;
  }
  const loop = joinLoop(deps, 'events', () => onePass(deps), { idleGapMs: IDLE_PASS_GAP_MS });
  // one failure is reported once, by the request whose loop it was; the others only wait for it
  track(loop.started ? loop.promise : loop.promise.catch(() => {}));
}
