/**
 * A team's connections to other tools (docs/integrations.md): create, list, read, change,
 * delete, each one statement with the key check in it; and the connection test (one statement to
 * read the sealed credentials, then the provider's calls, src/integrations/providers.ts).
 * Credentials are sealed before the statement (src/lib/secret-box.ts) and never answered back:
 * only their last 4 characters.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { AppConfig } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import type { Provider } from '../lib/integrations.js';
import { type SecretBox, secretBox } from '../lib/secret-box.js';
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
    : sql`(select count(*) from unnest(${`{${ids.join(',')}}`}::uuid[]) x(id)
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
            ${JSON.stringify(body.target ?? {})}::jsonb, ${ids === null ? null : `{${ids.join(',')}}`}::uuid[],
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
            contests = case when ${setContests}::boolean then ${ids === null ? null : `{${ids.join(',')}}`}::uuid[] else i.contests end,
            enabled = coalesce(${body.enabled ?? null}::boolean, i.enabled),
            updated_at = ${now.toISOString()}::timestamptz
          from cur
          where i.id = cur.id and cur.provider = any(${`{${fit.join(',')}}`}::text[]) and (select n from bad) = 0
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
