import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, num, pgError, queryOne } from '../db/client.js';
import { contests, teams } from '../db/tables/core.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, randomBase62 } from '../lib/crypto.js';
import type { ShareChannel, Theme } from '../lib/share-channels.js';
import type { SignupField } from '../lib/signup-fields.js';
import type { ContestRow } from '../sql/contests.js';
import { sqlOfTeam } from '../sql/scope.js';
import { contestJson } from './contests.js';

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
  publicSignup?: boolean;
  consentText?: string | null;
  landingUrl?: string | null;
  allowedOrigins?: string[];
  botCheck?: 'off' | 'turnstile';
  bonusActionsNeedEntryToken?: boolean;
  imageUrl?: string | null;
  logoUrl?: string | null;
  rulesUrl?: string | null;
  privacyUrl?: string | null;
  pageLeaderboard?: number;
  shareMessage?: string;
  shareChannels?: ShareChannel[];
  theme?: Theme;
  signupFields?: SignupField[];
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
  if (s.publicSignup !== undefined) out.publicSignup = s.publicSignup;
  if (s.consentText !== undefined) out.consentText = s.consentText;
  if (s.landingUrl !== undefined) out.landingUrl = s.landingUrl;
  if (s.allowedOrigins !== undefined) out.allowedOrigins = s.allowedOrigins;
  if (s.botCheck !== undefined) out.botCheck = s.botCheck;
  if (s.bonusActionsNeedEntryToken !== undefined) out.bonusActionsNeedEntryToken = s.bonusActionsNeedEntryToken;
  if (s.imageUrl !== undefined) out.imageUrl = s.imageUrl;
  if (s.logoUrl !== undefined) out.logoUrl = s.logoUrl;
  if (s.rulesUrl !== undefined) out.rulesUrl = s.rulesUrl;
  if (s.privacyUrl !== undefined) out.privacyUrl = s.privacyUrl;
  if (s.pageLeaderboard !== undefined) out.pageLeaderboard = s.pageLeaderboard;
  if (s.shareMessage !== undefined) out.shareMessage = s.shareMessage;
  if (s.shareChannels !== undefined) out.shareChannels = s.shareChannels;
  if (s.theme !== undefined) out.theme = s.theme;
  if (s.signupFields !== undefined) out.signupFields = s.signupFields;
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
  public_signup: boolean;
  consent_text: string | null;
  landing_url: string | null;
  allowed_origins: string[];
  bot_check: string;
  bonus_actions_need_entry_token: boolean;
  image_url: string | null;
  logo_url: string | null;
  rules_url: string | null;
  privacy_url: string | null;
  page_leaderboard: number;
  share_message: string;
  share_channels: ShareChannel[];
  theme: Theme;
  signup_fields: SignupField[];
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
    publicSignup: row.public_signup,
    consentText: row.consent_text,
    landingUrl: row.landing_url,
    allowedOrigins: row.allowed_origins,
    botCheck: row.bot_check as 'off' | 'turnstile',
    bonusActionsNeedEntryToken: row.bonus_actions_need_entry_token,
    imageUrl: row.image_url,
    logoUrl: row.logo_url,
    rulesUrl: row.rules_url,
    privacyUrl: row.privacy_url,
    pageLeaderboard: row.page_leaderboard,
    shareMessage: row.share_message,
    shareChannels: row.share_channels,
    theme: row.theme,
    signupFields: row.signup_fields,
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
    sql`with ${team.cte} _ as (select 1) ${adminContestSelect(sql`contests`)} where c.id = ${contestId} and ${sqlOfTeam(team, 'c')}`,
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
