/**
 * Sign-ups from a page: the contest's sign-up settings as a widget reads them, and the visitor's
 * own entry read with their token (GET /api/v1/me). The sign-up itself: src/signups/signup.ts.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, num, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid, sha256Hex } from '../lib/crypto.js';
import type { ShareChannel, Theme } from '../lib/share-channels.js';
import type { SignupField } from '../lib/signup-fields.js';
import { sqlEntryRewards } from '../rewards/rewards.js';
import { sqlLandingUrl } from '../sql/contests.js';
import { sqlCountingTotal, sqlPosition } from '../sql/positions.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';
import { sqlShares, sqlVisits } from '../sql/sharing.js';

export async function signupConfig(
  db: Db,
  team: Team,
  contestId: string,
  turnstileSiteKey: string | null,
  publicUrl: string,
) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const row = await queryOne<{
    id: string;
    title: string;
    description: string | null;
    mode: 'giveaway' | 'leaderboard' | 'waitlist';
    public_signup: boolean;
    consent_text: string | null;
    bot_check: 'off' | 'turnstile';
    sends_link: boolean;
    share_message: string;
    share_channels: ShareChannel[];
    theme: Theme;
    signup_fields: SignupField[];
  }>(
    db,
    sql`with ${team.cte} c as (select * from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')})
        select id, title, description, mode, public_signup, consent_text, bot_check,
          ${sqlLandingUrl('c', publicUrl)} is not null as sends_link, share_message, share_channels, theme, signup_fields from c`,
  );
  if (!row) throw Errors.contestNotFound();
  return {
    contestId: row.id,
    title: row.title,
    description: row.description,
    mode: row.mode,
    publicSignup: row.public_signup,
    consentText: row.consent_text,
    botCheck: row.bot_check,
    turnstileSiteKey: row.bot_check === 'turnstile' ? turnstileSiteKey : null,
    sendsLink: row.sends_link,
    shareMessage: row.share_message,
    shareChannels: row.share_channels,
    theme: row.theme,
    signupFields: row.signup_fields,
  };
}

/**
 * Whether a sign-up for this contest must pass the bot check: read (with the key check) before
 * Turnstile's siteverify is called, so that no request without a valid key, and none for a
 * contest without the bot check, makes the server call it. false for an unknown contest (the
 * sign-up's own statement then answers 404).
 */
export async function botCheckAsked(db: Db, team: Team, contestId: string): Promise<boolean> {
  if (!isUuid(contestId)) return false;
  const row = await queryOne<{ asked: boolean }>(
    db,
    sql`with ${team.cte} c as (select * from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')})
        select exists (select 1 from c where c.public_signup and c.bot_check = 'turnstile') as asked`,
  );
  return row?.asked === true;
}

/** The entry of a token (its SHA-256 looked up), with its position; an unknown token or an erased entry: 401. */
export async function readMe(db: Db, token: string) {
  const row = await queryOne<{
    id: string;
    contest_id: string;
    email: string | null;
    name: string | null;
    points: number;
    referral_code: string;
    email_confirmed: boolean;
    admitted_at: Date | string | null;
    created_at: Date | string;
    position: number | string | null;
    total: number | string;
    referrals_count: number | string;
    confirmed_referrals: number | string;
    pending_referrals: number | string;
    visits: number | string;
    shares: number | string;
    rewards: unknown;
  }>(
    db,
    sql`with e as (
          select e.id, e.contest_id, e.email, e.name, e.points, e.referral_code, e.email_confirmed, e.disqualified,
            e.erased_at, e.admitted_at, e.created_at
          from entry_tokens t join entries e on e.id = t.entry_id
          where t.token_hash = ${await sha256Hex(token)} and ${sqlNotErased('e')}
        )
        select e.*, ${sqlPosition('e')} as position, ${sqlCountingTotal(sql`e.contest_id`)} as total,
          r.referrals_count, r.confirmed_referrals, r.pending_referrals,
          ${sqlVisits('e')} as visits, ${sqlShares('e')} as shares,
          ${sqlEntryRewards('e')} as rewards
        from e cross join lateral (
          -- the friends: all of them; those who count (the rewards' own rule, ce_reward_counts); and
          -- those who may still count (not confirmed or not yet reviewed, neither disqualified nor erased)
          select count(*) as referrals_count,
            count(*) filter (where ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review))
              as confirmed_referrals,
            count(*) filter (where not ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review)
              and not f.disqualified and ${sqlNotErased('f')} and f.risk_review is distinct from 'rejected') as pending_referrals
          from entries f where f.referred_by = e.id
        ) r`,
  );
  if (!row) throw Errors.invalidEntryToken();
  return {
    entryId: row.id,
    contestId: row.contest_id,
    email: row.email,
    name: row.name,
    points: row.points,
    position: row.position === null ? null : num(row.position),
    total: num(row.total),
    referralCode: row.referral_code,
    referralsCount: num(row.referrals_count),
    confirmedReferrals: num(row.confirmed_referrals),
    pendingReferrals: num(row.pending_referrals),
    visits: num(row.visits),
    shares: num(row.shares),
    confirmed: row.email_confirmed,
    admittedAt: iso(row.admitted_at),
    createdAt: iso(row.created_at)!,
    rewards: row.rewards,
  };
}
