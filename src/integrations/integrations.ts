/**
 * A team's connections to other tools (docs/integrations.md): create, list, read, change,
 * delete, each one statement with the key check in it; and the connection test (one statement to
 * read the sealed credentials, then the provider's calls, src/integrations/providers.ts).
 * Credentials are sealed before the statement (src/lib/secret-box.ts) and never answered back:
 * only their last 4 characters.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, pgError, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { AppConfig } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import type { Provider } from '../lib/integrations.js';
import { type SecretBox, secretBox } from '../lib/secret-box.js';
import { sqlArray } from '../sql/arrays.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlOfTeam } from '../sql/scope.js';
import { type CreateIntegrationBody, KLAVIYO_KEY, type UpdateIntegrationBody } from './integrations.schema.js';
import { type Credentials, type ProviderContext, type Target, testConnection } from './providers.js';

interface Row {
  id: string;
  provider: Provider;
  credentials: string;
  credential_hint: string;
  target: Record<string, string>;
  contests: string[] | null;
  enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = sql`i.id, i.provider, i.credentials, i.credential_hint, i.target, i.contests, i.enabled, i.created_at, i.updated_at`;

function json(r: Row) {
  return {
    id: r.id,
    provider: r.provider,
    credentials: { hint: `…${r.credential_hint}` },
    target: r.target,
    contests: r.contests ?? ('all' as const),
    enabled: r.enabled,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** The deployment's box for credentials; without INTEGRATIONS_KEY the integration routes answer 503. */
export async function credentialBox(config: AppConfig): Promise<SecretBox> {
  const k = config.integrations?.key;
  if (!k) throw Errors.integrationsOff();
  return secretBox(k, config.integrations?.previousKey);
}

const secretOf = (c: Credentials) => ('apiKey' in c ? c.apiKey : c.accessToken);

/** How many of `ids` are not contests of the team (0 for `all`). */
const sqlForeignContests = (team: Team, ids: string[] | null) =>
  ids === null
    ? sql`(select 0)`
    : sql`(select count(*) from unnest(${sqlArray(ids, 'uuid')}) x(id)
           where not exists (select 1 from contests c where c.id = x.id and c.team_id = ${team.id}))`;

const foreignContests = () => Errors.validation('contests must be contests of this team');

export async function createIntegration(db: Db, team: Team, box: SecretBox, body: CreateIntegrationBody, now: Date) {
  const sealed = await box.seal(JSON.stringify(body.credentials));
  const ids = body.contests === undefined || body.contests === 'all' ? null : [...new Set(body.contests)];
  const row = await queryOne<Row & { foreign: number | string }>(
    db,
    sql`with ${team.cte} bad as (select ${sqlForeignContests(team, ids)} as n
        ), ins as (
          insert into integrations (team_id, provider, credentials, credential_hint, target, contests, enabled, created_at, updated_at)
          select ${team.id}, ${body.provider}, ${sealed}, ${secretOf(body.credentials).slice(-4)},
            ${JSON.stringify(body.target ?? {})}::jsonb, ${sqlArray(ids, 'uuid')},
            ${body.enabled ?? true}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
          where (select n from bad) = 0
          returning *
        )
        select (select n from bad) as foreign, ${COLUMNS} from (select 1) one left join ins i on true`,
  );
  if (Number(row?.foreign) > 0) throw foreignContests();
  return json(row!);
}

export async function listIntegrations(db: Db, team: Team) {
  const rows = await query<Row>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select ${COLUMNS} from integrations i where ${sqlOfTeam(team, 'i')} order by i.created_at, i.id`,
  );
  return rows.map(json);
}

async function readRow(db: Db, team: Team, id: string): Promise<Row> {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const row = await queryOne<Row>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select ${COLUMNS} from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}`,
  );
  if (!row) throw Errors.integrationNotFound();
  return row;
}

export async function getIntegration(db: Db, team: Team, id: string) {
  return json(await readRow(db, team, id));
}

/** The providers a PATCH's credentials and target can belong to. */
function providersFitting(body: UpdateIntegrationBody): Provider[] {
  let fit: Provider[] = ['klaviyo', 'mailchimp', 'hubspot'];
  const c = body.credentials as Credentials | undefined;
  if (c) fit = 'accessToken' in c ? ['hubspot'] : KLAVIYO_KEY.test(c.apiKey) ? ['klaviyo'] : ['mailchimp'];
  const t = body.target as Record<string, string> | undefined;
  if (t) {
    const byTarget: Provider[] = 'listId' in t ? ['klaviyo'] : 'audienceId' in t ? ['mailchimp'] : ['hubspot'];
    fit = fit.filter((p) => byTarget.includes(p));
  }
  return fit;
}

export async function updateIntegration(
  db: Db,
  team: Team,
  box: SecretBox,
  id: string,
  body: UpdateIntegrationBody,
  now: Date,
) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const fit = providersFitting(body);
  const sealed = body.credentials ? await box.seal(JSON.stringify(body.credentials)) : null;
  const hint = body.credentials ? secretOf(body.credentials as Credentials).slice(-4) : null;
  const setContests = body.contests !== undefined;
  const ids = body.contests === undefined || body.contests === 'all' ? null : [...new Set(body.contests)];
  const row = await queryOne<Row & { found: Provider | null; foreign: number | string }>(
    db,
    sql`with ${team.cte} cur as (
          select i.id, i.provider from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}
        ), bad as (select ${sqlForeignContests(team, ids)} as n
        ), upd as (
          update integrations i set
            credentials = coalesce(${sealed}::text, i.credentials),
            credential_hint = coalesce(${hint}::text, i.credential_hint),
            target = coalesce(${body.target === undefined ? null : JSON.stringify(body.target)}::jsonb, i.target),
            contests = case when ${setContests}::boolean then ${sqlArray(ids, 'uuid')} else i.contests end,
            enabled = coalesce(${body.enabled ?? null}::boolean, i.enabled),
            updated_at = ${now.toISOString()}::timestamptz
          from cur
          where i.id = cur.id and cur.provider = any(${sqlArray(fit, 'text')}) and (select n from bad) = 0
          returning i.*
        )
        select (select provider from cur) as found, (select n from bad) as foreign, ${COLUMNS}
        from (select 1) one left join upd i on true`,
  );
  if (!row?.found) throw Errors.integrationNotFound();
  if (Number(row.foreign) > 0) throw foreignContests();
  if (!row.id) throw Errors.integrationProviderMismatch();
  return json(row);
}

export async function deleteIntegration(db: Db, team: Team, id: string) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const row = await queryOne<{ id: string }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        delete from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')} returning i.id`,
  );
  if (!row) throw Errors.integrationNotFound();
  return { id: row.id, deleted: true as const };
}

/** The connection test: the sealed credentials read, opened, and tried at the provider. */
export async function runIntegrationTest(db: Db, team: Team, box: SecretBox, ctx: ProviderContext, id: string) {
  const row = await readRow(db, team, id);
  const plain = await box.open(row.credentials);
  if (plain === null) throw Errors.integrationSealedElsewhere();
  return testConnection(ctx, row.provider, JSON.parse(plain) as Credentials, row.target as Target);
}

// ---------------------------------------------------------------- the deliveries' log

interface DeliveryRow {
  id: string;
  kind: 'person' | 'erase' | 'event';
  entry_id: string;
  event_type: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | string;
  delivered_at: Date | string | null;
  created_at: Date | string;
}

const DELIVERY_COLUMNS = sql`d.id, d.kind, d.entry_id, ev.type as event_type, d.status, d.attempts, d.last_status,
  d.last_error, d.next_attempt_at, d.delivered_at, d.created_at`;

function deliveryJson(r: DeliveryRow) {
  return {
    id: r.id,
    kind: r.kind,
    entryId: r.entry_id,
    event: r.event_type,
    status: r.status,
    attempts: r.attempts,
    providerStatus: r.last_status || null,
    lastError: r.last_error,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at)! : null,
    deliveredAt: iso(r.delivered_at),
    createdAt: iso(r.created_at)!,
  };
}

/** A connection's deliveries, newest first (a page of them, and how many there are). */
export async function listIntegrationDeliveries(
  db: Db,
  team: Team,
  id: string,
  opts: { limit: number; offset: number; status?: DeliveryRow['status']; kind?: DeliveryRow['kind']; entryId?: string },
) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const status = opts.status ?? null;
  const kind = opts.kind ?? null;
  const entryId = opts.entryId ?? null;
  const rows = await query<DeliveryRow & { found: boolean; total: number | string }>(
    db,
    sql`with ${team.cte} i as (select i.id from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}),
        f as (select d.* from integration_deliveries d join i on d.integration_id = i.id
              where (${status}::text is null or d.status = ${status}::text) and (${kind}::text is null or d.kind = ${kind}::text)
                and (${entryId}::uuid is null or d.entry_id = ${entryId}::uuid))
        ${sqlPaged({
          head: sql`exists (select 1 from i) as found`,
          counted: sql`from f`,
          page: sql`select ${DELIVERY_COLUMNS} from f d left join events ev on ev.id = d.event_id
            order by d.created_at desc, d.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!rows[0]?.found) throw Errors.integrationNotFound();
  return pageOf(rows, deliveryJson);
}

/**
 * Sends a failed (or waiting) delivery again with the next run of the every-minute job: never
 * on the request's path. Delivered: 409; claimed right now by the job: 409 Delivery in progress;
 * a failed person's delivery whose person is already waiting in a newer one: 409.
 */
export async function retryIntegrationDelivery(db: Db, team: Team, id: string, deliveryId: string, now: Date) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const at = now.toISOString();
  const zero = '00000000-0000-0000-0000-000000000000';
  let row: (DeliveryRow & { found: boolean; prior: string | null; locked: boolean; newer: boolean }) | undefined;
  try {
    row = await queryOne(
      db,
      sql`with ${team.cte} i as (select i.id from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}
          ), d0 as (
            select d.id, d.status, d.kind, d.entry_id, d.integration_id,
              (d.locked_until is not null and d.locked_until > ${at}::timestamptz) as locked,
              (d.status = 'failed' and d.kind <> 'event' and exists (select 1 from integration_deliveries p
                 where p.integration_id = d.integration_id and p.entry_id = d.entry_id and p.kind = d.kind
                   and p.status = 'pending')) as newer
            from integration_deliveries d join i on d.integration_id = i.id
            where d.id = ${isUuid(deliveryId) ? deliveryId : zero}::uuid
          ), upd as (
            update integration_deliveries d set status = 'pending', next_attempt_at = ${at}::timestamptz,
              attempts = case when d.status = 'failed' then 0 else d.attempts end
            from d0 where d.id = d0.id and d0.status <> 'delivered' and not d0.locked and not d0.newer
            returning d.*
          )
          select exists (select 1 from i) as found, d0.status as prior, d0.locked, d0.newer, ${DELIVERY_COLUMNS}
          from (select 1) one left join d0 on true left join upd d on true left join events ev on ev.id = d.event_id`,
    );
  } catch (e) {
    // a pending delivery of the same person written at this very moment
    if (pgError(e)?.code === '23505') throw Errors.integrationDeliverySuperseded();
    throw e;
  }
  if (!row?.found) throw Errors.integrationNotFound();
  if (!row.prior) throw Errors.deliveryNotFound();
  if (row.prior === 'delivered') throw Errors.deliveryAlreadyDelivered();
  if (row.locked) throw Errors.deliveryInProgress();
  if (row.newer) throw Errors.integrationDeliverySuperseded();
  return deliveryJson(row);
}
