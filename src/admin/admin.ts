/**
 * What the team dashboard calls (docs/api.md): teams, API keys, contest settings, bonus actions,
 * webhook secrets, the email log. Not team-scoped: the admin token is the operator's.
 */
import { eq, sql } from 'drizzle-orm';
import { createContestBonusAction } from '../bonus-actions/manage.js';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import { apiKeys, contests, teams } from '../db/tables/core.js';
import { teamOfContest } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, randomBase62, sha256Hex, toBase64 } from '../lib/crypto.js';
import { pageOf, sqlPaged } from '../sql/paged.js';

export async function createTeam(db: Db, name: string) {
  const [team] = await db.insert(teams).values({ name }).returning({ id: teams.id, name: teams.name });
  return team!;
}

/**
 * A page of teams, newest first, each with its live (unrevoked) keys and its contests (games
 * included) counted; `total` for the pagination. One statement.
 */
/** Teams, newest first, with their live keys, contests and games counted; `teamId`: that team alone. */
export async function listTeams(db: Db, limit: number, offset: number, teamId: string | null = null) {
  const rows = await query<{
    total: number | string;
    id: string | null;
    name: string;
    created_at: Date;
    keys: number | string;
    contests: number | string;
    games: number | string;
  }>(
    db,
    sqlPaged({
      counted: sql`from teams`,
      page: sql`select t.id, t.name, t.created_at,
            (select count(*) from api_keys k where k.team_id = t.id and k.revoked_at is null) as keys,
            (select count(*) from contests c where c.team_id = t.id and c.tool_type is distinct from 'instant_win') as contests,
            (select count(*) from contests c where c.team_id = t.id and c.tool_type = 'instant_win') as games
          from teams t where ${teamId}::uuid is null or t.id = ${teamId}::uuid
          order by t.created_at desc, t.id desc limit ${limit} offset ${offset}`,
    }),
  );
  return pageOf(rows, (r) => ({
    id: r.id,
    name: r.name,
    createdAt: iso(r.created_at)!,
    activeKeysCount: num(r.keys),
    contestsCount: num(r.contests),
    gamesCount: num(r.games),
  }));
}

/**
 * Makes a key: `pk_`/`sk_` + 40 base62 characters (238 bits). Only its SHA-256 is stored.
 * `personalData` (public keys only; default "full"): "masked" makes every answer to the key mask
 * entries' personal data (src/entries/data-out.ts).
 */
export async function createApiKey(
  db: Db,
  random: RandomSource,
  teamId: string,
  type: 'public' | 'private',
  name: string | null,
  personalData?: 'full' | 'masked',
) {
  if (type === 'private' && personalData !== undefined) throw Errors.personalDataPublicOnly();
  if (!isUuid(teamId)) throw Errors.teamNotFound();
  const pd = type === 'public' ? (personalData ?? 'full') : null;
  const key = `${type === 'public' ? 'pk' : 'sk'}_${randomBase62(random, 40)}`;
  const prefix = key.slice(0, 11);
  const keyHash = await sha256Hex(key);
  const row = await queryOne<{ id: string }>(
    db,
    sql`insert into api_keys (team_id, type, name, key_hash, prefix, personal_data)
        select id, ${type}, ${name}, ${keyHash}, ${prefix}, ${pd}::text from teams where id = ${teamId}
        returning id`,
  );
  if (!row) throw Errors.teamNotFound();
  return { id: row.id, type, name, key, prefix, personalData: pd };
}

/** The team's keys, newest first, never the key itself. */
export async function listApiKeys(db: Db, teamId: string) {
  if (!isUuid(teamId)) throw Errors.teamNotFound();
  const rows = await query<{
    team_found: boolean;
    id: string | null;
    type: 'public' | 'private';
    name: string | null;
    prefix: string;
    personal_data: 'full' | 'masked' | null;
    created_at: Date;
    revoked_at: Date | null;
  }>(
    db,
    sql`select exists (select 1 from teams where id = ${teamId}) as team_found, k.*
        from (select 1) one left join lateral (
          select id, type, name, prefix, case when type = 'public' then coalesce(personal_data, 'full') end as personal_data,
            created_at, revoked_at
          from api_keys where team_id = ${teamId} order by created_at desc, id desc
        ) k on true`,
  );
  if (!rows[0]?.team_found) throw Errors.teamNotFound();
  return rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      id: r.id!,
      type: r.type,
      name: r.name,
      prefix: r.prefix,
      personalData: r.personal_data,
      createdAt: iso(r.created_at),
      revokedAt: iso(r.revoked_at),
    }));
}

export async function revokeApiKey(db: Db, keyId: string, now: Date) {
  if (!isUuid(keyId)) throw Errors.apiKeyNotFound();
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now.toISOString()}::timestamptz)` })
    .where(eq(apiKeys.id, keyId))
    .returning({ id: apiKeys.id });
  if (!row) throw Errors.apiKeyNotFound();
  return { id: row.id, revoked: true as const };
}

export interface BonusActionInput {
  action: string;
  description?: string;
  icon?: string;
  iconColor?: string;
  points: number;
  confirmationType?: 'auto' | 'manual' | 'click';
  destinationUrl?: string | null;
  order?: number;
}

/**
 * Adds a bonus action to a contest named by id alone (the admin API, the demo seed): the team's
 * own statement (createContestBonusAction), scoped to the team that owns the contest.
 */
export function createBonusAction(db: Db, contestId: string, input: BonusActionInput, now = new Date()) {
  return createContestBonusAction(db, teamOfContest(contestId), contestId, input, now);
}

/** `whsec_` + base64 of 32 random bytes; replaces the old secret. */
export async function rotateWebhookSecret(db: Db, random: RandomSource, contestId: string) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const secret = `whsec_${toBase64(random.bytes(32))}`;
  const [row] = await db
    .update(contests)
    .set({ webhookSecret: secret })
    .where(eq(contests.id, contestId))
    .returning({ id: contests.id });
  if (!row) throw Errors.contestNotFound();
  return { secret };
}

export async function listEmails(db: Db, teamId: string, limit: number, offset: number) {
  if (!isUuid(teamId)) throw Errors.teamNotFound();
  const rows = await query<{
    total: string | number;
    team_exists: boolean;
    id: string | null;
    to: string;
    kind: string;
    subject: string;
    text: string;
    status: string;
    created_at: Date;
  }>(
    db,
    // a pending email still holds its live links until it is sent: never shown
    sqlPaged({
      head: sql`exists(select 1 from teams where id = ${teamId}) as team_exists`,
      counted: sql`from email_outbox where team_id = ${teamId}`,
      page: sql`select id, "to", kind, ce_scrub_credentials(subject) as subject, ce_scrub_credentials(text) as text,
          status, created_at from email_outbox
        where team_id = ${teamId} order by created_at desc, id desc limit ${limit} offset ${offset}`,
    }),
  );
  if (!rows[0]?.team_exists) throw Errors.teamNotFound();
  return pageOf(rows, (r) => ({
    id: r.id,
    to: r.to,
    kind: r.kind,
    subject: r.subject,
    text: r.text,
    status: r.status,
    createdAt: iso(r.created_at),
  }));
}
