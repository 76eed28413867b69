/**
 * Webhook endpoints of a team (create, list, update, delete, test), their deliveries log and
 * the manual retry. Every request is one statement with the key check in it, except the retry,
 * which by nature is two: claim the delivery, then (after the HTTP attempt) record the outcome.
 */
import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { type Db, EVENT_DELIVERIES_COLUMN, iso, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, toBase64 } from '../lib/crypto.js';
import { sqlArray } from '../sql/arrays.js';
import { EVENT_TYPES, type EventType } from '../sql/events.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlOfTeam } from '../sql/scope.js';
import {
  attemptDelivery,
  type ClaimedDelivery,
  DELIVERY_COLUMNS,
  type DeliveryContext,
  type DeliveryRow,
  deliveryJson,
  LEASE_MS,
  recordOutcomes,
} from './deliver.js';
import { checkResolved, checkWebhookUrl, WEBHOOK_URL_MAX } from './urls.js';

export const DESCRIPTION_MAX = 500;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const eventList = v.pipe(
  v.array(v.string('Unknown event type'), 'Unknown event type'),
  v.minLength(1, 'Unknown event type'),
  v.maxLength(EVENT_TYPES.length * 2, 'Unknown event type'),
  v.check((xs) => xs.every((x) => (EVENT_TYPES as readonly string[]).includes(x)), 'Unknown event type'),
  v.description(`event types to receive; omitted = all (${EVENT_TYPES.join(', ')})`),
);
const urlField = v.pipe(
  v.string('Invalid url'),
  v.maxLength(WEBHOOK_URL_MAX, 'Invalid url'),
  v.description('https:// receiver URL'),
);
const descriptionField = v.nullable(
  v.pipe(
    v.string('Invalid description'),
    v.trim(),
    v.maxLength(DESCRIPTION_MAX, `description must be at most ${DESCRIPTION_MAX} characters`),
    v.check((s) => !CONTROL_CHARS.test(s), 'description must not contain control characters'),
  ),
);

export const createEndpointSchema = v.object({
  url: v.pipe(
    v.optional(urlField),
    v.check((u) => typeof u === 'string', 'Invalid url'),
  ),
  events: v.optional(eventList),
  description: v.optional(descriptionField),
});

export const updateEndpointSchema = v.object({
  url: v.optional(urlField),
  events: v.optional(v.nullable(eventList)),
  enabled: v.optional(v.boolean('enabled must be a boolean')),
  description: v.optional(descriptionField),
});

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

interface EndpointRow {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  enabled: boolean;
  secret?: string;
  created_at: Date | string;
}

/** An endpoint as the API shows it: `events` lists every type by name when it receives all. */
export function endpointJson(r: EndpointRow) {
  return {
    id: r.id,
    url: r.url,
    events: (r.events ?? [...EVENT_TYPES]) as EventType[],
    description: r.description,
    enabled: r.enabled,
    createdAt: iso(r.created_at)!,
  };
}

const dedupe = (xs: string[] | null | undefined) => (xs ? [...new Set(xs)] : null);

async function checkUrl(raw: string, ctx: Pick<DeliveryContext, 'allowHttp' | 'resolveHost'>): Promise<string> {
  const url = checkWebhookUrl(raw, ctx.allowHttp);
  if (await checkResolved(url, ctx.allowHttp, ctx.resolveHost)) throw Errors.invalidUrl();
  return url.toString();
}

export async function createEndpoint(
  db: Db,
  team: Team,
  ctx: Pick<DeliveryContext, 'allowHttp' | 'resolveHost'> & { random: RandomSource; now: Date },
  input: v.InferOutput<typeof createEndpointSchema>,
) {
  const url = await checkUrl(input.url!, ctx);
  const secret = `whsec_${toBase64(ctx.random.bytes(32))}`;
  const events = dedupe(input.events);
  const at = ctx.now.toISOString();
  const row = await queryOne<EndpointRow>(
    db,
    sql`with ${team.cte} _ as (select 1)
        insert into webhook_endpoints (team_id, url, events, description, enabled, secret, created_at, updated_at)
        values (${team.id}, ${url}, ${sqlArray(events, 'text')}, ${input.description ?? null}::text,
          true, ${secret}, ${at}::timestamptz, ${at}::timestamptz)
        returning id, url, events, description, enabled, created_at`,
  );
  return { ...endpointJson(row!), secret };
}

const ENDPOINT_COLUMNS = sql`w.id, w.url, w.events, w.description, w.enabled, w.created_at`;

export async function listEndpoints(db: Db, team: Team) {
  const rows = await query<EndpointRow>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select ${ENDPOINT_COLUMNS} from webhook_endpoints w where ${sqlOfTeam(team, 'w')} order by w.created_at, w.id`,
  );
  return rows.map(endpointJson);
}

export async function updateEndpoint(
  db: Db,
  team: Team,
  ctx: Pick<DeliveryContext, 'allowHttp' | 'resolveHost'> & { now: Date },
  endpointId: string,
  input: v.InferOutput<typeof updateEndpointSchema>,
) {
  const has = (k: keyof typeof input) => input[k] !== undefined;
  if (!has('url') && !has('events') && !has('enabled') && !has('description')) {
    throw Errors.validation('At least one of url, events, enabled or description is required');
  }
  const url = has('url') ? await checkUrl(input.url!, ctx) : null;
  if (!isUuid(endpointId)) throw Errors.webhookEndpointNotFound();
  const row = await queryOne<EndpointRow>(
    db,
    sql`with ${team.cte} _ as (select 1)
        update webhook_endpoints w set
          url = coalesce(${url}::text, w.url),
          events = case when ${has('events')}::boolean then ${sqlArray(dedupe(input.events), 'text')} else w.events end,
          enabled = coalesce(${input.enabled ?? null}::boolean, w.enabled),
          description = case when ${has('description')}::boolean then ${input.description ?? null}::text else w.description end,
          updated_at = ${ctx.now.toISOString()}::timestamptz
        where w.id = ${endpointId} and ${sqlOfTeam(team, 'w')}
        returning ${ENDPOINT_COLUMNS}`,
  );
  if (!row) throw Errors.webhookEndpointNotFound();
  return endpointJson(row);
}

/** The longest a rotated-out secret may keep signing deliveries. */
export const PREVIOUS_SECRET_MAX_HOURS = 72;

export const rotateSecretSchema = v.object({
  previousSecretValidHours: v.optional(
    v.pipe(
      v.number(`previousSecretValidHours must be a whole number from 0 to ${PREVIOUS_SECRET_MAX_HOURS}`),
      v.integer(`previousSecretValidHours must be a whole number from 0 to ${PREVIOUS_SECRET_MAX_HOURS}`),
      v.minValue(0, `previousSecretValidHours must be a whole number from 0 to ${PREVIOUS_SECRET_MAX_HOURS}`),
      v.maxValue(
        PREVIOUS_SECRET_MAX_HOURS,
        `previousSecretValidHours must be a whole number from 0 to ${PREVIOUS_SECRET_MAX_HOURS}`,
      ),
      v.description(
        'how long deliveries are also signed with the old secret (default 24; 0: the old one stops at once)',
      ),
    ),
  ),
});

/**
 * A new signing secret, shown this once. Deliveries are signed with the new one and, for
 * `previousSecretValidHours` (default 24), also with the old one, so receivers can switch
 * without losing an event. Rotating again replaces the old one with the current.
 */
export async function rotateEndpointSecret(
  db: Db,
  team: Team,
  ctx: { random: RandomSource; now: Date },
  endpointId: string,
  input: v.InferOutput<typeof rotateSecretSchema>,
) {
  if (!isUuid(endpointId)) throw Errors.webhookEndpointNotFound();
  const secret = `whsec_${toBase64(ctx.random.bytes(32))}`;
  const hours = input.previousSecretValidHours ?? 24;
  const at = ctx.now.toISOString();
  const until = new Date(ctx.now.getTime() + hours * 3_600_000).toISOString();
  const row = await queryOne<EndpointRow & { previous_secret_until: Date | string | null }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        update webhook_endpoints w set
          previous_secret = case when ${hours}::int > 0 then w.secret end,
          previous_secret_until = case when ${hours}::int > 0 then ${until}::timestamptz end,
          secret = ${secret},
          updated_at = ${at}::timestamptz
        where w.id = ${endpointId} and ${sqlOfTeam(team, 'w')}
        returning ${ENDPOINT_COLUMNS}, w.previous_secret_until`,
  );
  if (!row) throw Errors.webhookEndpointNotFound();
  return { ...endpointJson(row), secret, previousSecretExpiresAt: iso(row.previous_secret_until) };
}

/** Deletes the endpoint and its deliveries log; pending deliveries to it are dropped. */
/** Deletes an endpoint (or a hook: `notFound` says which was missing). */
export async function deleteEndpoint(
  db: Db,
  team: Team,
  endpointId: string,
  notFound = Errors.webhookEndpointNotFound,
) {
  if (!isUuid(endpointId)) throw notFound();
  const row = await queryOne<{ id: string }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        delete from webhook_endpoints w where w.id = ${endpointId} and ${sqlOfTeam(team, 'w')} returning w.id`,
  );
  if (!row) throw notFound();
  return { id: row.id, deleted: true as const };
}

/** A `webhook.test` event for this endpoint alone (`contestId: null`), delivered like any other. */
export async function sendTestEvent(db: Db, team: Team, endpointId: string, now: Date) {
  if (!isUuid(endpointId)) throw Errors.webhookEndpointNotFound();
  const at = now.toISOString();
  const row = await queryOne<{ id: string }>(
    db,
    sql`with ${team.cte} w as (
          select id, team_id from webhook_endpoints where id = ${endpointId} and team_id = ${team.id}
        ), ev as (
          insert into events (team_id, contest_id, type, data, created_at)
          select w.team_id, null, 'webhook.test',
            jsonb_build_object('endpointId', w.id, 'message', 'This is a test event from Contest Engine'), ${at}::timestamptz
          from w
          returning id
        ), d as (
          insert into event_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
          select ev.id, w.id, ${at}::timestamptz, ${at}::timestamptz from ev, w
          returning 1
        )
        select id, (select count(*) from d) as ${sql.raw(EVENT_DELIVERIES_COLUMN)} from ev`,
  );
  if (!row) throw Errors.webhookEndpointNotFound();
  return { eventId: row.id };
}

/** One page of an endpoint's deliveries, newest first; `status` filters. */
export async function listDeliveries(
  db: Db,
  team: Team,
  endpointId: string,
  opts: { limit: number; offset: number; status?: (typeof DELIVERY_STATUSES)[number] },
) {
  if (!isUuid(endpointId)) throw Errors.webhookEndpointNotFound();
  const status = opts.status ?? null;
  const rows = await query<DeliveryRow & { found: boolean; total: number | string }>(
    db,
    sql`with ${team.cte} w as (select id from webhook_endpoints where id = ${endpointId} and team_id = ${team.id}),
        f as (select d.* from event_deliveries d join w on d.endpoint_id = w.id where ${status}::text is null or d.status = ${status}::text)
        ${sqlPaged({
          head: sql`exists (select 1 from w) as found`,
          counted: sql`from f`,
          page: sql`select ${DELIVERY_COLUMNS}, ev.type from f d join events ev on ev.id = d.event_id
            order by d.created_at desc, d.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!rows[0]?.found) throw Errors.webhookEndpointNotFound();
  return pageOf(rows, deliveryJson);
}

/**
 * Attempts a pending or failed delivery at once; the delivery after that attempt. Delivered:
 * 409 Delivery already delivered; claimed right now by a deliverer: 409 Delivery in progress.
 */
export async function retryDelivery(
  db: Db,
  team: Team,
  ctx: DeliveryContext,
  endpointId: string,
  deliveryId: string,
  clock: { now(): Date },
) {
  if (!isUuid(endpointId)) throw Errors.webhookEndpointNotFound();
  const now = clock.now();
  const at = now.toISOString();
  const token = crypto.randomUUID();
  const row = await queryOne<
    ClaimedDelivery & {
      endpoint_found: boolean;
      delivery_found: boolean;
      prior_status: string | null;
      claimed: boolean;
    }
  >(
    db,
    sql`with ${team.cte} w as (
          select id, url, secret, previous_secret, previous_secret_until, enabled from webhook_endpoints where id = ${endpointId} and team_id = ${team.id}
        ), d0 as (
          select d.id, d.status, d.event_id from event_deliveries d join w on d.endpoint_id = w.id
          where d.id = ${isUuid(deliveryId) ? deliveryId : '00000000-0000-0000-0000-000000000000'}::uuid
        ), cl as (
          update event_deliveries d set status = 'pending', locked_until = ${new Date(now.getTime() + LEASE_MS).toISOString()}::timestamptz,
            lease_token = ${token}::uuid
          from d0 where d.id = d0.id and d.status <> 'delivered'
            and (d.locked_until is null or d.locked_until <= ${at}::timestamptz)
          returning d.id, d.attempts
        )
        select exists (select 1 from w) as endpoint_found, d0.id is not null as delivery_found, d0.status as prior_status,
          cl.id is not null as claimed, cl.id, cl.attempts, ev.id as event_id, ev.type, ev.contest_id, ev.data,
          ev.created_at as event_created_at, w.url, w.secret, w.previous_secret, w.previous_secret_until, w.enabled
        from (select 1) one left join d0 on true left join cl on true left join events ev on ev.id = d0.event_id
          left join w on true`,
  );
  if (!row?.endpoint_found) throw Errors.webhookEndpointNotFound();
  if (!row.delivery_found) throw Errors.deliveryNotFound();
  if (!row.claimed)
    throw row.prior_status === 'delivered' ? Errors.deliveryAlreadyDelivered() : Errors.deliveryInProgress();
  const outcome = await attemptDelivery(row, ctx, clock.now());
  const [after] = await recordOutcomes(db, token, clock.now().toISOString(), [outcome]);
  if (!after) throw Errors.deliveryInProgress();
  return deliveryJson(after);
}
