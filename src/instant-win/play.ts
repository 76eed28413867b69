/**
 * One play: the weighted draw, the inventory decrement or code reservation, and the play row,
 * in ONE SQL statement (data-modifying CTEs; one round trip).
 *
 * - The number is provably fair (docs/fairness.md): the nonce of (current seed, play cookie) is
 *   taken from its counter row (INSERT ... ON CONFLICT DO UPDATE: concurrent plays of one cookie
 *   queue on that row and get 1, 2, 3... with no gap, since a refused play rolls its increment
 *   back); u_i = the first 8 bytes of HMAC-SHA256(seed, `<gameId>:<clientSeed>:<nonce>:<i>`)
 *   (computed in SQL from the seed's stored pads), i = 0, 1, ... until u_i < 2^64 - (2^64 mod
 *   10^8); r = (u mod 10^8) / 10^6, in [0, 100).
 * - r picks the tier whose running sum of oddsPercent, in tier order (IEEE double addition: the
 *   window sum of float8 adds in order), first exceeds it (drawTier() in draw.ts is the same rule
 *   in TypeScript). The play keeps that drawn tier beside the tier it got.
 * - A unique-code prize reserves one free code (FOR UPDATE SKIP LOCKED: concurrent plays take
 *   different codes, never the same one). A prize with a quantity takes one unit
 *   (`remaining > 0` re-checked on the locked row: never more wins than the quantity).
 * - No unit or code left: the play gets the first miss tier, or the built-in "No prize"; the
 *   prize's odds never go to another prize.
 * - The entry limit is the UNIQUE (game, key) indexes on the play row: a second play of a
 *   cookie or IP address makes the INSERT fail, which aborts the whole statement, unit and
 *   code included, and answers 403.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, pgError, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlOfTeam } from '../sql/scope.js';
import { NO_PRIZE, RESERVATION_MS } from './presets.js';

export interface PlayInput {
  team: Team;
  gameId: string;
  /** made up front so the reserved code can point at the play */
  playId: string;
  cookieHash: string;
  /** the client seed: the caller's, or the hex SHA-256 of the play cookie */
  clientSeed: string;
  /** null when the runtime does not know the caller's address: only the cookie limit applies */
  ipHash: string | null;
  now: Date;
}

export interface PlayOutcome {
  playId: string;
  status: 'pending' | 'miss';
  expiresAt: string | null;
  result: { id: string | null; name: string; isMiss: boolean; color: string | null };
  fairness: { seedId: string; seedHash: string; clientSeed: string; nonce: number };
}

interface Row {
  open: boolean;
  entry_limit: string;
  play_id: string | null;
  status: 'pending' | 'miss' | null;
  expires_at: Date | string | null;
  tier_id: string | null;
  tier_name: string | null;
  tier_is_miss: boolean | null;
  tier_color: string | null;
  seed_id: string | null;
  seed_hash: string | null;
  nonce: number | null;
}

/** 2^64 - (2^64 mod 10^8): a u at or above it is rejected (no modulo bias) */
export const U_LIMIT = '18446744073700000000';

const LIMIT_INDEXES = new Set(['iw_plays_limit_cookie_uq', 'iw_plays_limit_ip_uq']);

/** The UTC day of `now` (daily limits reset at 00:00 UTC). */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

export async function playGame(db: Db, input: PlayInput): Promise<PlayOutcome> {
  if (!isUuid(input.gameId)) throw Errors.gameNotFound();
  const { gameId, team, playId, cookieHash, clientSeed, ipHash, now } = input;
  const at = now.toISOString();
  const expires = new Date(now.getTime() + RESERVATION_MS).toISOString();
  const day = utcDay(now);
  let row: Row | undefined;
  try {
    row = await queryOne<Row>(
      db,
      sql`with ${team.cte} g as (
            select c.id, ${sqlContestOpen(now, 'c')} as open, ig.entry_limit
            from contests c join instant_win_games ig on ig.contest_id = c.id
            where c.id = ${gameId} and ${sqlOfTeam(team, 'c')} and c.tool_type = 'instant_win'
          ), seed as (
            select s.id, s.seed_hash, s.hmac_ipad, s.hmac_opad from instant_win_seeds s
            where s.game_id = (select id from g) and s.revealed_at is null
          ), nc as (
            insert into instant_win_nonces (seed_id, cookie_hash, last_nonce)
            select seed.id, ${cookieHash}::text, 1 from seed, g where g.open
            on conflict (seed_id, cookie_hash) do update set last_nonce = instant_win_nonces.last_nonce + 1
            returning seed_id, last_nonce
          ), rnd as (
            -- u_0, u_1, ... computed one at a time, stopping at the first accepted
            with recursive stream(i, u) as (
              select 0, ce_u64(ce_hmac(seed.hmac_ipad, seed.hmac_opad, g.id::text || ':' || ${clientSeed}::text || ':' || nc.last_nonce::text || ':0'))
              from seed, g, nc
              union all
              select stream.i + 1, ce_u64(ce_hmac(seed.hmac_ipad, seed.hmac_opad, g.id::text || ':' || ${clientSeed}::text || ':' || nc.last_nonce::text || ':' || (stream.i + 1)::text))
              from stream, seed, g, nc
              where stream.u >= ${U_LIMIT}::numeric and stream.i < 10000
            )
            select (mod(u, 100000000)::float8 / 1000000::float8) as r from stream where u < ${U_LIMIT}::numeric order by i limit 1
          ), t as (
            select id, position, name, odds_percent, is_miss, color, delivery_type,
                   sum(odds_percent) over (order by position, id rows between unbounded preceding and current row) as cum
            from instant_win_tiers
            where game_id = ${gameId} and archived_at is null and exists (select 1 from g where g.open)
          ), drawn as (
            select * from t where t.id = coalesce(
              (select id from t where (select r from rnd) < t.cum order by position, id limit 1),
              (select id from t where odds_percent > 0 order by position desc, id desc limit 1))
          ), code as (
            update instant_win_codes ic set play_id = ${playId}::uuid
            where ic.id = (
              select k.id from instant_win_codes k
              where k.tier_id = (select id from drawn where not is_miss and delivery_type = 'unique_code')
                and k.play_id is null
              order by k.id limit 1
              for update skip locked)
            returning ic.id
          ), dec as (
            update instant_win_tiers it set
              handed_out = it.handed_out + 1,
              remaining = case when it.remaining is null then null else greatest(it.remaining - 1, 0) end
            from drawn d
            where it.id = d.id and not d.is_miss
              and case when d.delivery_type = 'unique_code' then exists (select 1 from code)
                       else it.remaining is null or it.remaining > 0 end
            returning it.id
          ), res as (
            select coalesce(
                     (select id from dec),
                     (select id from drawn where is_miss),
                     (select id from t where is_miss order by position, id limit 1)) as tier_id,
                   exists (select 1 from dec) as won
          ), ins as (
            insert into instant_win_plays (id, game_id, tier_id, status, random_value, cookie_hash, ip_hash,
                                           limit_cookie_key, limit_ip_key, play_day, code_id, created_at, expires_at,
                                           seed_id, client_seed, nonce, drawn_tier_id)
            select ${playId}::uuid, g.id, res.tier_id, case when res.won then 'pending' else 'miss' end,
                   (select r from rnd), ${cookieHash}::text, ${ipHash}::text,
                   case g.entry_limit when 'device' then ${cookieHash}::text
                                      when 'daily' then ${cookieHash}::text || ':' || ${day}::text end,
                   case when ${ipHash}::text is null then null
                        when g.entry_limit = 'device' then ${ipHash}::text
                        when g.entry_limit = 'daily' then ${ipHash}::text || ':' || ${day}::text end,
                   ${day}::date, (select id from code), ${at}::timestamptz,
                   case when res.won then ${expires}::timestamptz end,
                   nc.seed_id, ${clientSeed}::text, nc.last_nonce, (select id from drawn)
            from g, res, nc where g.open
            returning id, tier_id, status, expires_at, seed_id, nonce
          ), ${sqlEmitEvent(
            'ev_won',
            'instant_win.won',
            sql`select ${team.id} as team_id, g.id as contest_id,
            json_build_object('gameId', g.id, 'playId', ins.id, 'tierId', ins.tier_id, 'prizeName', t.name,
              'createdAt', ${sqlIso(sql`${at}::timestamptz`)}, 'expiresAt', ${sqlIso(sql`ins.expires_at`)}) as data
            from ins join t on t.id = ins.tier_id cross join g where ins.status = 'pending'`,
            now,
          )}
          select g.open, g.entry_limit, ins.id as play_id, ins.status, ins.expires_at, ins.tier_id,
                 t.name as tier_name, t.is_miss as tier_is_miss, t.color as tier_color,
                 ins.seed_id, (select seed_hash from seed) as seed_hash, ins.nonce, ${sqlEventDeliveries('ev_won')}
          from g left join ins on true left join t on t.id = ins.tier_id`,
    );
  } catch (e) {
    const pe = pgError(e);
    if (pe?.code === '23505' && pe.constraint && LIMIT_INDEXES.has(pe.constraint)) {
      // refused: nothing of the statement happened. Which message depends on the game's limit.
      const g = await queryOne<{ entry_limit: string }>(
        db,
        sql`select entry_limit from instant_win_games where contest_id = ${gameId}`,
      );
      throw g?.entry_limit === 'daily' ? Errors.alreadyPlayedToday() : Errors.alreadyPlayed();
    }
    throw e;
  }
  if (!row) throw Errors.gameNotFound();
  if (!row.open || !row.play_id) throw Errors.gameNotActive();
  const result = row.tier_id
    ? { id: row.tier_id, name: row.tier_name!, isMiss: row.status === 'miss', color: row.tier_color }
    : { ...NO_PRIZE };
  return {
    playId: row.play_id,
    status: row.status!,
    expiresAt: iso(row.expires_at),
    result,
    fairness: { seedId: row.seed_id!, seedHash: row.seed_hash!, clientSeed, nonce: Number(row.nonce) },
  };
}
