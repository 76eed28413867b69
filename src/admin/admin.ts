/**
 * What the team dashboard calls (contract §3): teams, API keys, contest settings, bonus actions,
 * webhook secrets, the email log. Not team-scoped: the admin token is the operator's.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Team } from '../db/team.js';
import { type Db, iso, isUniqueViolation, num, pgError, query, queryOne } from '../db/client.js';
import { apiKeys, bonusActions, contests, teams } from '../db/schema.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, randomBase62, sha256Hex, toBase64 } from '../lib/crypto.js';
import { contestJson, type ContestRow } from '../sql/contests.js';

export async function createTeam(db: Db, name: string) {
  const [team] = await db.insert(teams).values({ name }).returning({ id: teams.id, name: teams.name });
  return team!;
}

/**
 * A page of teams, newest first, each with its live (unrevoked) keys and its contests (games
 * included) counted; `total` for the pagination. One statement.
 */
export async function listTeams(db: Db, limit: number, offset: number) {
  const rows = await query<{
    total: number | string;
    id: string | null;
    name: string;
    created_at: Date;
    keys: number | string;
    contests: number | string;
  }>(
    db,
    sql`select (select count(*) from teams) as total, p.*
        from (select 1) one left join lateral (
          select t.id, t.name, t.created_at,
            (select count(*) from api_keys k where k.team_id = t.id and k.revoked_at is null) as keys,
            (select count(*) from contests c where c.team_id = t.id) as contests
          from teams t order by t.created_at desc, t.id desc limit ${limit} offset ${offset}
        ) p on true`,
  );
  return {
    total: num(rows[0]?.total ?? 0),
    items: rows
      .filter((r) => r.id !== null)
      .map((r) => ({
        id: r.id!,
        name: r.name,
        createdAt: iso(r.created_at)!,
        activeKeysCount: num(r.keys),
        contestsCount: num(r.contests),
      })),
  };
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

export interface ContestSettings {
  title?: string;
  description?: string | null;
  mode?: 'giveaway' | 'leaderboard' | 'waitlist';
  status?: 'draft' | 'active' | 'ended' | 'paused';
  slug?: string;
  startDate?: string | null;
  endDate?: string | null;
  isEvergreen?: boolean;
  campaignType?: 'viral' | 'referral' | 'affiliate';
  requireEmailConfirmation?: boolean;
  referral?: { advocatePoints?: number; friendPoints?: number; creditOn?: 'create' | 'confirm' };
  risk?: { mode?: 'flag' | 'hold' | 'block'; maxEntriesPerIpPerHour?: number; maxReferralsPerHour?: number };
  purchaseTracking?: { enabled?: boolean; pointsPerPurchase?: number; pointsPerCurrencyUnit?: number };
  externalTracking?: { enabled?: boolean };
  affiliate?: { commissionPercent?: number };
  shopifySecret?: string | null;
  stripeSecret?: string | null;
  toolType?: 'content_gate' | null;
  publicCacheSeconds?: number;
}

export function slugify(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return s || 'contest';
}

function settingsToColumns(s: ContestSettings): Partial<typeof contests.$inferInsert> {
  const out: Partial<typeof contests.$inferInsert> = {};
  if (s.title !== undefined) out.title = s.title;
  if (s.description !== undefined) out.description = s.description;
  if (s.mode !== undefined) out.mode = s.mode;
  if (s.status !== undefined) out.status = s.status;
  if (s.slug !== undefined) out.slug = s.slug;
  if (s.startDate !== undefined) out.startDate = s.startDate === null ? null : new Date(s.startDate);
  if (s.endDate !== undefined) out.endDate = s.endDate === null ? null : new Date(s.endDate);
  if (s.isEvergreen !== undefined) out.isEvergreen = s.isEvergreen;
  if (s.campaignType !== undefined) out.campaignType = s.campaignType;
  if (s.requireEmailConfirmation !== undefined) out.requireEmailConfirmation = s.requireEmailConfirmation;
  if (s.referral?.advocatePoints !== undefined) out.referralAdvocatePoints = s.referral.advocatePoints;
  if (s.referral?.friendPoints !== undefined) out.referralFriendPoints = s.referral.friendPoints;
  if (s.referral?.creditOn !== undefined) out.referralCreditOn = s.referral.creditOn;
  if (s.risk?.mode !== undefined) out.riskMode = s.risk.mode;
  if (s.risk?.maxEntriesPerIpPerHour !== undefined) out.riskMaxEntriesPerIpPerHour = s.risk.maxEntriesPerIpPerHour;
  if (s.risk?.maxReferralsPerHour !== undefined) out.riskMaxReferralsPerHour = s.risk.maxReferralsPerHour;
  if (s.purchaseTracking?.enabled !== undefined) out.purchaseTrackingEnabled = s.purchaseTracking.enabled;
  if (s.purchaseTracking?.pointsPerPurchase !== undefined) out.pointsPerPurchase = s.purchaseTracking.pointsPerPurchase;
  if (s.purchaseTracking?.pointsPerCurrencyUnit !== undefined) {
    out.pointsPerCurrencyUnit = String(s.purchaseTracking.pointsPerCurrencyUnit);
  }
  if (s.externalTracking?.enabled !== undefined) out.externalTrackingEnabled = s.externalTracking.enabled;
  if (s.affiliate?.commissionPercent !== undefined)
    out.affiliateCommissionPercent = String(s.affiliate.commissionPercent);
  if (s.shopifySecret !== undefined) out.shopifySecret = s.shopifySecret;
  if (s.stripeSecret !== undefined) out.stripeSecret = s.stripeSecret;
  if (s.toolType !== undefined) out.toolType = s.toolType;
  if (s.publicCacheSeconds !== undefined) out.publicCacheSeconds = s.publicCacheSeconds;
  return out;
}

/** Turns constraint violations of a contest write into clear 4xx answers. */
function contestWriteError(e: unknown): never {
  const pe = pgError(e);
  if (pe?.code === '23505' && pe.constraint === 'contests_slug_uq') throw Errors.slugTaken();
  if (pe?.code === '23514' && pe.constraint === 'contests_dates_ck')
    throw Errors.validation('endDate must be after startDate');
  throw e;
}

export async function createContest(
  db: Db,
  random: RandomSource,
  teamId: string,
  s: ContestSettings & { title: string },
  now: Date,
) {
  if (!isUuid(teamId)) throw Errors.teamNotFound();
  const team = await db.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId));
  if (!team[0]) throw Errors.teamNotFound();
  const base = settingsToColumns(s);
  // a default slug that collides gets a random suffix; an explicit one that collides is a 409
  for (let attempt = 0; ; attempt++) {
    const slug =
      s.slug ??
      (attempt === 0 ? slugify(s.title) : `${slugify(s.title).slice(0, 72)}-${randomBase62(random, 6).toLowerCase()}`);
    try {
      const [row] = await db
        .insert(contests)
        .values({ ...base, teamId, title: s.title, slug })
        .returning({ id: contests.id });
      return (await getAdminContest(db, row!.id, now))!;
    } catch (e) {
      if (s.slug === undefined && isUniqueViolation(e, 'contests_slug_uq') && attempt < 5) continue;
      contestWriteError(e);
    }
  }
}

export async function updateContest(db: Db, contestId: string, s: ContestSettings, now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const set = settingsToColumns(s);
  let found: { id: string } | undefined;
  try {
    [found] = await db
      .update(contests)
      .set({ ...set, updatedAt: now })
      .where(eq(contests.id, contestId))
      .returning({ id: contests.id });
  } catch (e) {
    contestWriteError(e);
  }
  if (!found) throw Errors.contestNotFound();
  return (await getAdminContest(db, contestId, now))!;
}

interface AdminContestRow extends ContestRow {
  campaign_type: string;
  require_email_confirmation: boolean;
  referral_advocate_points: number;
  referral_friend_points: number;
  purchase_tracking_enabled: boolean;
  points_per_purchase: number;
  points_per_currency_unit: string | number;
  external_tracking_enabled: boolean;
  affiliate_commission_percent: string | number;
  has_shopify_secret: boolean;
  has_stripe_secret: boolean;
  has_webhook_secret: boolean;
  team_id: string;
  referral_credit_on: string;
  risk_mode: string;
  risk_max_entries_per_ip_per_hour: number;
  risk_max_referrals_per_hour: number;
  public_cache_seconds: number;
}

/** The columns of a contest with its settings, over `source` (contests, or a CTE of contests rows). */
const adminContestSelect = (source: SQL) =>
  sql`select c.*, (select coalesce(sum(s.entries), 0) from contest_stats s where s.contest_id = c.id) as entries_count,
          c.shopify_secret is not null as has_shopify_secret,
          c.stripe_secret is not null as has_stripe_secret,
          c.webhook_secret is not null as has_webhook_secret
        from ${source} c`;

/** The contest as the v1 API shows it, plus its settings (secrets only as "set or not"). */
function adminContestJson(row: AdminContestRow, now: Date) {
  return {
    ...contestJson(row, now, { withViews: true }),
    teamId: row.team_id,
    campaignType: row.campaign_type,
    requireEmailConfirmation: row.require_email_confirmation,
    referral: {
      advocatePoints: row.referral_advocate_points,
      friendPoints: row.referral_friend_points,
      creditOn: row.referral_credit_on,
    },
    risk: {
      mode: row.risk_mode,
      maxEntriesPerIpPerHour: row.risk_max_entries_per_ip_per_hour,
      maxReferralsPerHour: row.risk_max_referrals_per_hour,
    },
    purchaseTracking: {
      enabled: row.purchase_tracking_enabled,
      pointsPerPurchase: row.points_per_purchase,
      pointsPerCurrencyUnit: num(row.points_per_currency_unit),
    },
    externalTracking: { enabled: row.external_tracking_enabled },
    affiliate: { commissionPercent: num(row.affiliate_commission_percent) },
    publicCacheSeconds: row.public_cache_seconds,
    secrets: {
      shopifySecretSet: row.has_shopify_secret,
      stripeSecretSet: row.has_stripe_secret,
      webhookSecretSet: row.has_webhook_secret,
    },
  };
}

export async function getAdminContest(db: Db, contestId: string, now: Date) {
  const row = await queryOne<AdminContestRow>(db, sql`${adminContestSelect(sql`contests`)} where c.id = ${contestId}`);
  return row ? adminContestJson(row, now) : undefined;
}

/**
 * A team's contest with its settings, read with the team's key (one statement, the key check in
 * it). Another team's contest: contestNotFound.
 */
export async function getTeamContest(db: Db, team: Team, contestId: string, now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const row = await queryOne<AdminContestRow>(
    db,
    sql`with ${team.cte} _ as (select 1) ${adminContestSelect(sql`contests`)} where c.id = ${contestId} and c.team_id = ${team.id}`,
  );
  if (!row) throw Errors.contestNotFound();
  return adminContestJson(row, now);
}

/**
 * A new contest of the key's team, in one statement with the key check (a default slug that
 * collides is tried again with a random suffix; an explicit one that collides is a 409).
 */
export async function createTeamContest(
  db: Db,
  random: RandomSource,
  team: Team,
  s: ContestSettings & { title: string },
  now: Date,
) {
  const base = settingsToColumns(s);
  for (let attempt = 0; ; attempt++) {
    const slug =
      s.slug ??
      (attempt === 0 ? slugify(s.title) : `${slugify(s.title).slice(0, 72)}-${randomBase62(random, 6).toLowerCase()}`);
    const insert = db
      .insert(contests)
      .values({ ...base, teamId: team.id, title: s.title, slug })
      .returning()
      .getSQL();
    try {
      const row = await queryOne<AdminContestRow>(
        db,
        sql`with ${team.cte} ins as (${insert}) ${adminContestSelect(sql`ins`)}`,
      );
      return adminContestJson(row!, now);
    } catch (e) {
      if (s.slug === undefined && isUniqueViolation(e, 'contests_slug_uq') && attempt < 5) continue;
      contestWriteError(e);
    }
  }
}

/** Changes the settings of one of the key's team's contests, in one statement with the key check. */
export async function updateTeamContest(db: Db, team: Team, contestId: string, s: ContestSettings, now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const update = db
    .update(contests)
    .set({ ...settingsToColumns(s), updatedAt: now })
    .where(and(eq(contests.id, contestId), eq(contests.teamId, team.id)))
    .returning()
    .getSQL();
  let row: AdminContestRow | undefined;
  try {
    row = await queryOne<AdminContestRow>(db, sql`with ${team.cte} u as (${update}) ${adminContestSelect(sql`u`)}`);
  } catch (e) {
    contestWriteError(e);
  }
  if (!row) throw Errors.contestNotFound();
  return adminContestJson(row, now);
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

export function bonusActionJson(row: typeof bonusActions.$inferSelect) {
  return {
    id: row.id,
    contestId: row.contestId,
    action: row.action,
    description: row.description,
    icon: row.icon,
    iconColor: row.iconColor,
    points: row.points,
    confirmationType: row.confirmationType,
    destinationUrl: row.destinationUrl,
    order: row.order,
  };
}

export async function createBonusAction(db: Db, contestId: string, input: BonusActionInput) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const [c] = await db.select({ id: contests.id }).from(contests).where(eq(contests.id, contestId));
  if (!c) throw Errors.contestNotFound();
  const order =
    input.order ??
    num(
      (
        await queryOne<{ n: number }>(
          db,
          sql`select coalesce(max("order") + 1, 0) as n from bonus_actions where contest_id = ${contestId}`,
        )
      )?.n,
    );
  const [row] = await db
    .insert(bonusActions)
    .values({
      contestId,
      action: input.action,
      description: input.description ?? '',
      icon: input.icon ?? '',
      iconColor: input.iconColor ?? '',
      points: input.points,
      confirmationType: input.confirmationType ?? 'auto',
      destinationUrl: input.destinationUrl ?? null,
      order,
    })
    .returning();
  return bonusActionJson(row!);
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
    sql`with total as (select count(*) as n from email_outbox where team_id = ${teamId})
        select total.n as total, exists(select 1 from teams where id = ${teamId}) as team_exists, page.*
        from total left join lateral (
          select id, "to", kind, subject, text, status, created_at from email_outbox
          where team_id = ${teamId} order by created_at desc, id desc limit ${limit} offset ${offset}
        ) page on true`,
  );
  if (!rows[0]?.team_exists) throw Errors.teamNotFound();
  return {
    total: num(rows[0].total),
    items: rows
      .filter((r) => r.id !== null)
      .map((r) => ({
        id: r.id!,
        to: r.to,
        kind: r.kind,
        subject: r.subject,
        text: r.text,
        status: r.status,
        createdAt: iso(r.created_at),
      })),
  };
}

/**
 * What a public key shows of entries ('full' or 'masked'), or null when it is not a live public
 * key (the demo page warns about a key that shows personal data). One statement.
 */
export async function publicKeyPersonalData(db: Db, keyHash: string): Promise<'full' | 'masked' | null> {
  const row = await queryOne<{ personal_data: 'full' | 'masked' }>(
    db,
    sql`select personal_data from api_keys where key_hash = ${keyHash} and type = 'public' and revoked_at is null`,
  );
  return row?.personal_data ?? null;
}

/** The key a request was made with: its team (with the name), type and personal-data mode. One statement. */
export async function keyInfo(db: Db, team: Team) {
  const row = await queryOne<{
    id: string;
    team_id: string;
    team_name: string;
    type: 'public' | 'private';
    name: string | null;
    prefix: string;
    personal_data: 'full' | 'masked' | null;
  }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select k.id, k.team_id, t.name as team_name, k.type, k.name, k.prefix, ce_key.personal_data
        from ce_key join api_keys k on k.id = ce_key.key_id join teams t on t.id = k.team_id`,
  );
  if (!row) throw Errors.missingOrInvalidKey();
  return {
    id: row.id,
    teamId: row.team_id,
    teamName: row.team_name,
    type: row.type,
    name: row.name,
    prefix: row.prefix,
    personalData: row.personal_data,
  };
}
