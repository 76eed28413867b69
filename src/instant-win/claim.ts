/**
 * Claiming a win. A first, valid claim is ONE statement: it marks the play claimed under every
 * condition at once (pending, not expired, this device, entry not disqualified), creates or
 * reuses the entry in the game's contest and queues the prize email, its content put together in
 * SQL from templates rendered by prizeEmail(). When that statement claims nothing, its own read
 * of the play answers the exact refusal (or `alreadyClaimed`): one round trip either way.
 *
 * Under concurrent claims of one play, the play row's lock lets exactly one write succeed; the
 * others find it no longer pending, read it again and answer `alreadyClaimed: true` (same email)
 * or 409 (another email).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, pgError, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { newReferralCode } from '../lib/codes.js';
import { isUuid, randomUuid, timingSafeEqual, toHex } from '../lib/crypto.js';
import { prizeEmail } from '../mail/templates.js';
import { sqlEmailSubject, sqlEscapeHtml } from '../sql/confirmation.js';
import { sqlEmitEvent, sqlEntryEventData, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlQueueEmail } from '../sql/outbox.js';
import { sqlRiskCtes } from '../sql/risk.js';

export interface ClaimInput {
  team: Team;
  gameId: string;
  playId: string;
  /** trimmed and lower-cased */
  email: string;
  /** null when the claim sent no playCookie (refused, after the play is known to exist) */
  cookieHash: string | null;
  now: Date;
  /** the claimer's IP hash: stored on the entry the claim creates (risk signals) */
  ipHash?: string | null;
}

export interface ClaimResult {
  alreadyClaimed: boolean;
  prizeName: string;
  couponCode: string | null;
  redeemUrl: string | null;
  /** a prize email was queued by this call */
  emailQueued: boolean;
}

interface ReadRow {
  title: string;
  team_id: string;
  play_id: string | null;
  status: string | null;
  tier_id: string | null;
  cookie_hash: string | null;
  email: string | null;
  expires_at: Date | string | null;
  tier_name: string | null;
  delivery_type: string | null;
  redeem_code: string | null;
  redeem_url: string | null;
  code: string | null;
  entry_id: string | null;
  disqualified: boolean | null;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The play as a claim sees it (at most one row; none when the game is not the team's). */
function readClaimSql(input: ClaimInput): SQL {
  const playId = isUuid(input.playId) ? input.playId : NIL_UUID;
  return sql`select c.title, c.team_id,
               p.id as play_id, p.status, p.tier_id, p.cookie_hash, p.email, p.expires_at,
               t.name as tier_name, t.delivery_type, t.redeem_code, t.redeem_url, ic.code,
               e.id as entry_id, e.disqualified
        from contests c
        left join instant_win_plays p on p.id = ${playId}::uuid and p.game_id = c.id
        left join instant_win_tiers t on t.id = p.tier_id
        left join instant_win_codes ic on ic.id = p.code_id and ic.play_id = p.id
        left join entries e on e.contest_id = c.id and e.email = ${input.email}
        where c.id = ${input.gameId} and c.team_id = ${input.team.id} and c.tool_type = 'instant_win'`;
}

const prizeOf = (row: ReadRow) => ({
  prizeName: row.tier_name ?? '',
  couponCode: row.delivery_type === 'unique_code' ? row.code : row.redeem_code,
  redeemUrl: row.redeem_url,
});

/**
 * The answer the stored play gives, or null when it is claimable now. Order: unknown play,
 * other device, not a win, already claimed (same email: 200 again; other: 409), expired,
 * disqualified entry.
 */
function refusal(row: ReadRow, input: ClaimInput): ClaimResult | null {
  if (!row.play_id) throw Errors.playNotFound();
  // every play has a cookie: a claim without one cannot show it comes from the device that played
  if (input.cookieHash === null) throw Errors.validation('playCookie is required');
  if (!row.cookie_hash || !timingSafeEqual(row.cookie_hash, input.cookieHash)) throw Errors.playOtherDevice();
  if (row.status === 'miss' || !row.tier_id) throw Errors.playDidNotWin();
  if (row.status === 'claimed') {
    if (row.email === input.email) return { alreadyClaimed: true, ...prizeOf(row), emailQueued: false };
    throw Errors.prizeAlreadyClaimed();
  }
  if (row.status === 'expired' || !row.expires_at || new Date(row.expires_at) <= input.now)
    throw Errors.reservationExpired();
  if (row.disqualified) throw Errors.entryDisqualified();
  return null;
}

/**
 * The prize email as SQL expressions of the game title, prize name, coupon code and redeem URL:
 * prizeEmail() renders the four shapes (with or without a code, with or without a link) around
 * random markers, SQL picks the shape and puts the values in (escaped in the HTML part; the
 * subject on one line, at most 200 characters, as emails.ts does).
 */
export function sqlPrizeEmail(random: RandomSource, v: { title: SQL; prize: SQL; code: SQL; url: SQL }) {
  const tag = toHex(random.bytes(8));
  const m = {
    title: `[[game-title-${tag}]]`,
    prize: `[[prize-name-${tag}]]`,
    code: `[[coupon-${tag}]]`,
    url: `[[redeem-url-${tag}]]`,
  };
  const shapes = [
    prizeEmail({ gameTitle: m.title, prizeName: m.prize, couponCode: null, redeemUrl: null }),
    prizeEmail({ gameTitle: m.title, prizeName: m.prize, couponCode: null, redeemUrl: m.url }),
    prizeEmail({ gameTitle: m.title, prizeName: m.prize, couponCode: m.code, redeemUrl: null }),
    prizeEmail({ gameTitle: m.title, prizeName: m.prize, couponCode: m.code, redeemUrl: m.url }),
  ];
  const shape = sql`((case when (${v.code})::text is null then 0 else 2 end) + (case when (${v.url})::text is null then 0 else 1 end))`;
  const pick = (part: 'subject' | 'text' | 'html') =>
    sql`(case ${shape} when 0 then ${shapes[0]![part]}::text when 1 then ${shapes[1]![part]}::text
                       when 2 then ${shapes[2]![part]}::text else ${shapes[3]![part]}::text end)`;
  const fill = (template: SQL, esc: (x: SQL) => SQL) =>
    sql`replace(replace(replace(replace(${template}, ${m.title}::text, ${esc(v.title)}), ${m.prize}::text, ${esc(v.prize)}),
        ${m.code}::text, coalesce(${esc(v.code)}, '')), ${m.url}::text, coalesce(${esc(v.url)}, ''))`;
  const plain = (x: SQL) => sql`(${x})::text`;
  return {
    subject: sqlEmailSubject(fill(pick('subject'), plain)),
    text: fill(pick('text'), plain),
    html: fill(pick('html'), sqlEscapeHtml),
  };
}

/**
 * The one-statement claim. When it claims nothing, the same statement's read of the play (as it
 * was before the statement) says why: the refusal, `alreadyClaimed`, or 'retry' when the play
 * changed under a concurrent claim.
 */
async function claimAtOnce(db: Db, random: RandomSource, input: ClaimInput): Promise<ClaimResult | 'retry'> {
  const at = input.now.toISOString();
  const newEntryId = randomUuid(random);
  const mail = sqlPrizeEmail(random, {
    title: sql`g.title`,
    prize: sql`pz.name`,
    code: sql`pz.coupon`,
    url: sql`pz.redeem_url`,
  });
  try {
    const row = await queryOne<
      ReadRow & { prize_name: string | null; coupon: string | null; prize_redeem_url: string | null }
    >(
      db,
      sql`with ${input.team.cte} g as (
            select c.id, c.title, c.team_id from contests c
            where c.id = ${input.gameId} and c.team_id = ${input.team.id} and c.tool_type = 'instant_win'
          ), upd as (
            update instant_win_plays p set
              status = 'claimed', email = ${input.email}, claimed_at = ${at}::timestamptz,
              entry_id = coalesce(
                (select e.id from entries e where e.contest_id = ${input.gameId} and e.email = ${input.email}),
                ${newEntryId}::uuid)
            -- the game as a constant (its ownership through g): with a sub-select here the planner
            -- could not tell how many of the game's plays match and scanned them by
            -- iw_plays_game_status_idx (4.4 of the statement's 9 ms at 200,000 pending plays)
            -- instead of taking the one play by its primary key
            where p.id = ${isUuid(input.playId) ? input.playId : NIL_UUID}::uuid and p.game_id = ${input.gameId}::uuid
              and exists (select 1 from g)
              and p.status = 'pending' and p.expires_at > ${at}::timestamptz
              and p.cookie_hash = ${input.cookieHash}::text
              and not exists (select 1 from entries e
                              where e.contest_id = ${input.gameId} and e.email = ${input.email} and e.disqualified)
            returning p.id, p.entry_id, p.tier_id, p.code_id
          ), pz as (
            select t.name, t.redeem_url,
                   case when t.delivery_type = 'unique_code' then ic.code else t.redeem_code end as coupon
            from upd join instant_win_tiers t on t.id = upd.tier_id
            left join instant_win_codes ic on ic.id = upd.code_id
          ), c as (
            -- the risk signals of an entry this claim creates (the claimer's address, no referrer):
            -- recorded (entry.flagged), never blocking or holding anything: a claim has no points
            select gc.id, gc.team_id, exists (select 1 from upd where upd.entry_id = ${newEntryId}::uuid) as is_open,
                   gc.risk_max_entries_per_ip_per_hour, gc.risk_max_referrals_per_hour, gc.referral_credit_on,
                   gc.require_email_confirmation, 'flag'::text as risk_mode
            from contests gc where gc.id = (select id from g)
          ), existing as (
            select 1 where false
          ), ref as (
            select null::uuid as id, null::text as email_norm, null::text as ip_hash where false
          ), ${sqlRiskCtes({ contest: 'c', existing: 'existing', referrer: 'ref' }, { email: input.email, ipHash: input.ipHash ?? null, now: at })} entry as (
            insert into entries (id, contest_id, email, referral_code, created_at, updated_at, ip_hash, risk_level, risk_reasons, source)
            select upd.entry_id, ${input.gameId}, ${input.email}, ${newReferralCode(random)}, ${at}::timestamptz, ${at}::timestamptz,
              ${input.ipHash ?? null}::text, risk.level, risk.reasons, 'instant_win'
            from upd cross join risk where upd.entry_id = ${newEntryId}::uuid
            on conflict do nothing
            returning id, risk_level, ${sqlEntryEventData('entries')} as ev_data
          ), ${sqlEmitEvent('ev_flagged', 'entry.flagged', sql`select g.team_id, g.id as contest_id, entry.ev_data as data from entry, g where entry.risk_level <> 'none'`, input.now)},
          queued as (
            ${sqlQueueEmail('prize', mail, at, { teamId: sql`g.team_id`, contestId: sql`g.id`, to: sql`${input.email}`, from: sql`g, pz` })}
          ), ${sqlEmitEvent(
            'ev_claimed',
            'instant_win.claimed',
            sql`select g.team_id, g.id as contest_id, json_build_object('gameId', g.id,
            'playId', upd.id, 'entryId', upd.entry_id, 'tierId', upd.tier_id, 'email', ${input.email}::text, 'prizeName', pz.name,
            'claimedAt', ${sqlIso(sql`${at}::timestamptz`)}) as data from upd, g, pz`,
            input.now,
          )}
          select pz.name as prize_name, pz.coupon, pz.redeem_url as prize_redeem_url,
                 (select count(*) from entry) as entries, (select count(*) from queued) as mails,
                 ${sqlEventDeliveries('ev_flagged', 'ev_claimed')}, r.*
          from (select 1) one
          left join pz on true
          left join lateral (${readClaimSql(input)}) r on true`,
    );
    if (row?.prize_name != null) {
      return {
        alreadyClaimed: false,
        prizeName: row.prize_name,
        couponCode: row.coupon,
        redeemUrl: row.prize_redeem_url,
        emailQueued: true,
      };
    }
    if (!row?.title) throw Errors.gameNotFound();
    return refusal(row, input) ?? 'retry';
  } catch (e) {
    // the entry this claim meant to create was made meanwhile by someone else (or its referral
    // code was taken): the play would point at no entry, so nothing happened
    if (pgError(e)?.code === '23503') return 'retry';
    throw e;
  }
}

export async function claimPlay(db: Db, random: RandomSource, input: ClaimInput): Promise<ClaimResult> {
  if (!isUuid(input.gameId)) throw Errors.gameNotFound();
  for (let attempt = 0; attempt < 4; attempt++) {
    // 'retry': the play changed under a concurrent claim (or the entry it meant to create was
    // made meanwhile): the next statement sees the new state
    const claimed = await claimAtOnce(db, random, input);
    if (claimed !== 'retry') return claimed;
  }
  throw Errors.prizeAlreadyClaimed();
}
