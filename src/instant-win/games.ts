/**
 * Instant-win games: create, read, list, update, delete. A game is a `contests` row with
 * tool_type 'instant_win' (its slug holds the preset) plus its `instant_win_games` settings,
 * its tiers and the code pools of unique-code tiers.
 *
 * Fulfilment (redeemCode, redeemUrl, codes) is selected from the database only for private
 * keys: a public key's answer never contains it, not even as null.
 */
import { type SQL, sql } from 'drizzle-orm';
import { batch, type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, randomUuid } from '../lib/crypto.js';
import { effectiveStatus } from '../sql/contests.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlOfTeam } from '../sql/scope.js';
import { SEED_COLUMNS, seedValues, sqlGameFairness } from './fairness.js';
import { newSeed, type SeedMaterial } from './fairness-seed.js';
import {
  type CreateGameInput,
  normalizeEmbedUrl,
  normalizeTiers,
  type StoredTier,
  type TierSpec,
  type UpdateGameInput,
} from './games.schema.js';
import type { DeliveryType } from './presets.js';

export interface View {
  /** private key: fulfilment fields are included */
  secrets: boolean;
  /** include the code lists of unique-code tiers (get/create/update, not the list) */
  codes?: boolean;
}

interface TierJsonRow {
  id: string;
  name: string;
  oddsPercent: number;
  isMiss: boolean;
  color: string | null;
  deliveryType: DeliveryType | null;
  quantity: number | null;
  remaining: number | null;
  codesTotal: number;
  codesAvailable: number;
  redeemCode?: string | null;
  redeemUrl?: string | null;
  codes?: string[] | null;
}

interface GameRow {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  status: string;
  is_evergreen: boolean;
  end_date: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  mechanic: string;
  layout: string;
  entry_limit: string;
  publish_as: string;
  embed_url: string | null;
  public_cache_seconds: number;
  tiers: TierJsonRow[] | string;
  stats: { plays: number; wins: number; claims: number } | string;
  fairness: { seedId: string; seedHash: string } | string | null;
}

const parseJson = <T>(x: T | string): T => (typeof x === 'string' ? (JSON.parse(x) as T) : x);

/** The columns of a game, its live tiers (in draw order) and its stats, for contests alias `c`. */
function gameColumns(view: View): SQL {
  const secretFields = view.secrets ? sql`, 'redeemCode', t.redeem_code, 'redeemUrl', t.redeem_url` : sql``;
  const codeFields = view.secrets && view.codes ? sql`, 'codes', k.codes` : sql``;
  const codeList =
    view.secrets && view.codes ? sql`, coalesce(json_agg(ic.code order by ic.code), '[]'::json) as codes` : sql``;
  return sql`c.id, c.slug, c.title, c.description, c.status, c.is_evergreen, c.end_date, c.created_at, c.updated_at, c.public_cache_seconds,
    g.mechanic, g.layout, g.entry_limit, g.publish_as, g.embed_url,
    coalesce((
      select json_agg(json_build_object(
          'id', t.id, 'name', t.name, 'oddsPercent', t.odds_percent, 'isMiss', t.is_miss, 'color', t.color,
          'deliveryType', t.delivery_type, 'quantity', t.quantity, 'remaining', t.remaining,
          'codesTotal', k.total, 'codesAvailable', k.available ${secretFields} ${codeFields}
        ) order by t.position, t.id)
      from instant_win_tiers t
      cross join lateral (
        select count(*) as total, count(*) filter (where ic.play_id is null) as available ${codeList}
        from instant_win_codes ic where ic.tier_id = t.id
      ) k
      where t.game_id = c.id and t.archived_at is null
    ), '[]'::json) as tiers,
    (select json_build_object(
        'plays', count(*),
        'wins', count(*) filter (where p.status <> 'miss'),
        'claims', count(*) filter (where p.status = 'claimed'))
      from instant_win_plays p where p.game_id = c.id) as stats,
    ${sqlGameFairness}`;
}

function tierJson(t: TierJsonRow, view: View) {
  const out: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    oddsPercent: t.oddsPercent,
    isMiss: t.isMiss,
    color: t.color,
    deliveryType: t.deliveryType,
    quantity: t.quantity,
    remaining: t.remaining,
    codesTotal: num(t.codesTotal),
    codesAvailable: num(t.codesAvailable),
  };
  if (view.secrets) {
    out.redeemCode = t.redeemCode ?? null;
    out.redeemUrl = t.redeemUrl ?? null;
    if (view.codes) out.codes = t.deliveryType === 'unique_code' ? (t.codes ?? []) : [];
  }
  return out;
}

export function gameJson(row: GameRow, now: Date, view: View) {
  const stats = parseJson(row.stats);
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    status: effectiveStatus(row, now),
    mechanic: row.mechanic,
    layout: row.layout,
    entryLimit: row.entry_limit,
    publishAs: row.publish_as,
    embedUrl: row.embed_url,
    publicCacheSeconds: row.public_cache_seconds,
    tiers: parseJson(row.tiers).map((t) => tierJson(t, view)),
    stats: { plays: num(stats.plays), wins: num(stats.wins), claims: num(stats.claims) },
    fairness: row.fairness === null ? null : parseJson(row.fairness),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
export type GameJson = ReturnType<typeof gameJson>;

const GAME_FROM = sql`from contests c join instant_win_games g on g.contest_id = c.id`;
const teamGame = (team: Team, gameId: string) =>
  sql`c.id = ${gameId} and ${sqlOfTeam(team, 'c')} and c.tool_type = 'instant_win'`;

/** The game as the key's team sees it; another team's, unknown or malformed id: 404 Game not found. */
export async function getGame(db: Db, team: Team, gameId: string, now: Date, view: View): Promise<GameJson> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  return gameFromRows(await query(db, getGameSql(team, gameId, view)), now, view);
}

/** The statement that reads one game (alone, or after a write in the same batch). */
const getGameSql = (team: Team, gameId: string, view: View) =>
  sql`with ${team.cte} _ as (select 1)
      select ${gameColumns({ codes: true, ...view })} ${GAME_FROM} where ${teamGame(team, gameId)}`;

function gameFromRows(rows: readonly Record<string, unknown>[], now: Date, view: View): GameJson {
  const row = rows[0] as GameRow | undefined;
  if (!row) throw Errors.gameNotFound();
  return gameJson(row, now, { codes: true, ...view });
}

export async function listGames(
  db: Db,
  team: Team,
  opts: { slug?: string; limit: number; offset: number },
  now: Date,
  view: View,
): Promise<{ items: GameJson[]; total: number }> {
  const where = sql`${sqlOfTeam(team, 'c')} and c.tool_type = 'instant_win' ${opts.slug ? sql`and c.slug = ${opts.slug}` : sql``}`;
  const listView: View = { secrets: view.secrets, codes: false };
  const rows = await query<GameRow & { total: string | number; id: string | null }>(
    db,
    sql`with ${team.cte} listed as (select c.id from contests c where ${where})
        ${sqlPaged({
          counted: sql`from listed`,
          page: sql`select ${gameColumns(listView)} ${GAME_FROM} where c.id in (select id from listed)
            order by c.created_at desc, c.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  return pageOf(rows, (r) => gameJson(r, now, listView));
}

const tiersJsonParam = (specs: readonly (TierSpec & { id: string; isNew: boolean })[]) =>
  JSON.stringify(
    specs.map((t, position) => ({
      id: t.id,
      is_new: t.isNew,
      position,
      name: t.name,
      odds_percent: t.oddsPercent,
      is_miss: t.isMiss,
      color: t.color,
      delivery_type: t.deliveryType,
      redeem_code: t.redeemCode,
      redeem_url: t.redeemUrl,
      quantity: t.quantity,
    })),
  );

const codesJsonParam = (specs: readonly (TierSpec & { id: string })[]) =>
  JSON.stringify(specs.flatMap((t) => t.codes.map((code) => ({ tier_id: t.id, code }))));

const SPEC_RECORD = sql`x(id uuid, is_new boolean, position int, name text, odds_percent float8, is_miss boolean, color text,
  delivery_type text, redeem_code text, redeem_url text, quantity int)`;

/**
 * Creates the game, its tiers and code pools in one statement and reads it back in the same
 * batch (one round trip); answers the game as a private key sees it.
 */
export async function createGame(
  db: Db,
  random: RandomSource,
  team: Team,
  input: CreateGameInput,
  now: Date,
): Promise<GameJson> {
  const tiers = normalizeTiers(input.tiers);
  const embedUrl = normalizeEmbedUrl(input.publishAs, input.embedUrl);
  const gameId = randomUuid(random);
  const specs = tiers.map((t) => ({ ...t, id: randomUuid(random), isNew: true }));
  const at = now.toISOString();
  const seed = await newSeed(random);
  const seedId = randomUuid(random);
  const [, read] = await batch(db, [
    sql`with ${team.cte} c as (
          insert into contests (id, team_id, tool_type, title, description, status, slug, is_evergreen, public_cache_seconds, created_at, updated_at)
          values (${gameId}, ${team.id}, 'instant_win', ${input.title}, ${input.description ?? null}, ${input.status ?? 'active'},
                  ${input.slug}, true, ${input.publicCacheSeconds ?? 0}::int, ${at}::timestamptz, ${at}::timestamptz)
          returning id
        ), g as (
          insert into instant_win_games (contest_id, mechanic, layout, entry_limit, publish_as, embed_url)
          select id, ${input.mechanic}, ${input.layout}, ${input.entryLimit}, ${input.publishAs}, ${embedUrl} from c
          returning contest_id
        ), t as (
          insert into instant_win_tiers (id, game_id, position, name, odds_percent, is_miss, color, delivery_type,
                                         redeem_code, redeem_url, quantity, remaining, created_at)
          select x.id, c.id, x.position, x.name, x.odds_percent, x.is_miss, x.color, x.delivery_type,
                 x.redeem_code, x.redeem_url, x.quantity, x.quantity, ${at}::timestamptz
          from c, jsonb_to_recordset(${tiersJsonParam(specs)}::jsonb) as ${SPEC_RECORD}
          returning id
        ), k as (
          insert into instant_win_codes (tier_id, game_id, code, created_at)
          select x.tier_id, c.id, x.code, ${at}::timestamptz
          from c, jsonb_to_recordset(${codesJsonParam(specs)}::jsonb) as x(tier_id uuid, code text)
          returning id
        ), s as (
          insert into instant_win_seeds ${SEED_COLUMNS}
          select ${seedValues(seedId, seed, sql`c.id`, seedTiersJson(specs), at)} from c
          returning id
        )
        select (select count(*) from g) as games, (select count(*) from t) as tiers, (select count(*) from k) as codes`,
    getGameSql(team, gameId, PRIVATE_VIEW),
  ]);
  return gameFromRows(read!, now, PRIVATE_VIEW);
}

const PRIVATE_VIEW: View = { secrets: true, codes: true };

/** The tiers a seed keeps ([{id, name, oddsPercent}] in draw order), from the tier list being written. */
const seedTiersJson = (specs: readonly (TierSpec & { id: string })[]) =>
  sql`${JSON.stringify(specs.map((t) => ({ id: t.id, name: t.name, oddsPercent: t.oddsPercent })))}::jsonb`;

/**
 * Updates title, description, status, publishAs/embedUrl and (when sent) the tiers. The tier
 * list sent is the new list, in draw order:
 * - a tier with `id` is edited in place; a new `quantity` sets remaining = quantity minus the
 *   units its wins hold now (pending or claimed), never below 0; `codes` are ADDED to its pool
 *   (codes already there are kept, reserved ones stay with their plays);
 * - a tier without `id` is new;
 * - a live tier left out is archived: it leaves the draw, its plays keep pointing at it.
 * A tier that has plays cannot switch between miss and prize, nor to or from unique_code.
 * The game row is locked for the transaction, so two updates of one game never interleave.
 */
export async function updateGame(
  db: Db,
  random: RandomSource,
  team: Team,
  gameId: string,
  input: UpdateGameInput,
  now: Date,
): Promise<GameJson> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const at = now.toISOString();
  for (let attempt = 0; attempt < 5; attempt++) {
    // 1. what the rules need to know: the game's publishing settings and, when tiers are sent,
    //    its live tiers (read without locks: step 2 writes only if they are still the same)
    const stored = await query<{
      publish_as: string;
      embed_url: string | null;
      id: string | null;
      is_miss: boolean | null;
      delivery_type: DeliveryType | null;
      has_plays: boolean | null;
      codes_total: string | number | null;
    }>(
      db,
      sql`with ${team.cte} game as (select g.publish_as, g.embed_url ${GAME_FROM} where ${teamGame(team, gameId)})
          select game.publish_as, game.embed_url, t.* from game left join lateral (
            ${input.tiers ? storedTiersSql(gameId) : sql`select null::uuid as id, null::boolean as is_miss, null::text as delivery_type, null::boolean as has_plays, null::int as codes_total`}
          ) t on true`,
    );
    const cur = stored[0];
    if (!cur) throw Errors.gameNotFound();
    const publishAs = input.publishAs ?? cur.publish_as;
    const embedUrl = normalizeEmbedUrl(publishAs, input.embedUrl !== undefined ? input.embedUrl : cur.embed_url);
    let specs: (TierSpec & { id: string; isNew: boolean })[] | undefined;
    let seen: StoredTier[] = [];
    if (input.tiers) {
      seen = stored
        .filter((s) => s.id !== null)
        .map((s) => ({
          id: s.id!,
          isMiss: s.is_miss!,
          deliveryType: s.delivery_type,
          hasPlays: s.has_plays!,
          codesTotal: num(s.codes_total),
        }));
      const map = new Map(seen.map((t) => [t.id, t]));
      specs = normalizeTiers(input.tiers, map).map((t) => ({
        ...t,
        id: t.id ?? randomUuid(random),
        isNew: t.id === null,
      }));
    }

    // 2. one batch: the write, guarded by "the game and its live tiers are as step 1 read them"
    //    (a concurrent update or a first play in between makes it write nothing: go round
    //    again), then the game as it is now
    // a new seed, used only when the tiers drawn change (id, name or odds, or their order)
    const rotation = specs ? { seedId: randomUuid(random), seed: await newSeed(random) } : undefined;
    const [written, read] = await batch(db, [
      updateGameSql(team, gameId, input, publishAs, embedUrl, specs, seen, at, rotation),
      getGameSql(team, gameId, PRIVATE_VIEW),
    ]);
    if (written![0]?.updated) return gameFromRows(read!, now, PRIVATE_VIEW);
    if (!read![0]) throw Errors.gameNotFound();
  }
  throw new Error('updateGame: the game kept changing under concurrent updates');
}

/** The live tiers of a game with what the update rules need. */
const storedTiersSql = (gameId: string) =>
  sql`select t.id, t.is_miss, t.delivery_type,
             exists (select 1 from instant_win_plays p where p.tier_id = t.id) as has_plays,
             (select count(*) from instant_win_codes ic where ic.tier_id = t.id) as codes_total
      from instant_win_tiers t where t.game_id = ${gameId} and t.archived_at is null`;

function updateGameSql(
  team: Team,
  gameId: string,
  input: UpdateGameInput,
  publishAs: string,
  embedUrl: string | null,
  specs: (TierSpec & { id: string; isNew: boolean })[] | undefined,
  seen: readonly StoredTier[],
  at: string,
  rotation?: { seedId: string; seed: SeedMaterial },
): SQL {
  const seenJson = JSON.stringify(
    seen.map((t) => ({
      id: t.id,
      is_miss: t.isMiss,
      delivery_type: t.deliveryType,
      has_plays: t.hasPlays,
      has_codes: t.codesTotal > 0,
    })),
  );
  // the game row locked first, then its live tiers in id order (the sweep locks tiers in the
  // same order: no deadlock); two updates of one game never interleave
  return sql`with ${team.cte} game as (
        select c.id from contests c where ${teamGame(team, gameId)} for update of c
      ), locked as (
        select id from instant_win_tiers where ${specs ? sql`true` : sql`false`} and game_id in (select id from game)
          and archived_at is null order by id for update
      ), now_tiers as (
        select t.id, t.is_miss, t.delivery_type,
               exists (select 1 from instant_win_plays p where p.tier_id = t.id) as has_plays,
               exists (select 1 from instant_win_codes ic where ic.tier_id = t.id) as has_codes
        from instant_win_tiers t where t.id in (select id from locked)
      ), seen as (
        select * from jsonb_to_recordset(${seenJson}::jsonb) as x(id uuid, is_miss boolean, delivery_type text, has_plays boolean, has_codes boolean)
      ), same as (
        select ${
          specs
            ? sql`not exists (
          (select id, is_miss, delivery_type, has_plays, has_codes from now_tiers
           except select id, is_miss, delivery_type, has_plays, has_codes from seen)
          union all
          (select id, is_miss, delivery_type, has_plays, has_codes from seen
           except select id, is_miss, delivery_type, has_plays, has_codes from now_tiers))`
            : sql`true`
        } as ok
      ), go as (
        select id from game where (select ok from same)
      ), c as (
        update contests set
          title = coalesce(${input.title ?? null}, title),
          description = case when ${input.description !== undefined} then ${input.description ?? null} else description end,
          status = coalesce(${input.status ?? null}, status),
          public_cache_seconds = coalesce(${input.publicCacheSeconds ?? null}::int, public_cache_seconds),
          updated_at = ${at}::timestamptz
        where id in (select id from go)
        returning id
      ), gs as (
        update instant_win_games set publish_as = ${publishAs}, embed_url = ${embedUrl}
        where contest_id in (select id from go)
        returning contest_id
      ), s as (
        select * from jsonb_to_recordset(${specs ? tiersJsonParam(specs) : '[]'}::jsonb) as ${SPEC_RECORD}
        where exists (select 1 from go)
      ), upd as (
        update instant_win_tiers t set
          position = s.position, name = s.name, odds_percent = s.odds_percent, is_miss = s.is_miss, color = s.color,
          delivery_type = s.delivery_type, redeem_code = s.redeem_code, redeem_url = s.redeem_url,
          quantity = s.quantity,
          remaining = case when s.quantity is null then null else greatest(0, s.quantity - t.handed_out) end
        from s
        where t.id = s.id and not s.is_new and t.game_id = ${gameId} and t.archived_at is null
        returning t.id
      ), arch as (
        update instant_win_tiers t set archived_at = ${at}::timestamptz
        where ${specs ? sql`true` : sql`false`} and exists (select 1 from go)
          and t.game_id = ${gameId} and t.archived_at is null
          and t.id not in (select s.id from s where not s.is_new)
        returning t.id
      ), ins as (
        insert into instant_win_tiers (id, game_id, position, name, odds_percent, is_miss, color, delivery_type,
                                       redeem_code, redeem_url, quantity, remaining, created_at)
        select s.id, ${gameId}, s.position, s.name, s.odds_percent, s.is_miss, s.color, s.delivery_type,
               s.redeem_code, s.redeem_url, s.quantity, s.quantity, ${at}::timestamptz
        from s where s.is_new
        returning id
      ), k as (
        insert into instant_win_codes (tier_id, game_id, code, created_at)
        select x.tier_id, ${gameId}, x.code, ${at}::timestamptz
        from jsonb_to_recordset(${specs ? codesJsonParam(specs) : '[]'}::jsonb) as x(tier_id uuid, code text)
        where exists (select 1 from go)
        on conflict (tier_id, code) do nothing
        returning id
      ), seed_old as (
        -- changing the tiers drawn reveals the current seed and commits a new one (fairness.ts)
        update instant_win_seeds cs set revealed_at = ${at}::timestamptz
        where ${rotation ? sql`true` : sql`false`} and cs.game_id in (select id from go) and cs.revealed_at is null
          and cs.tiers is distinct from ${specs ? seedTiersJson(specs) : sql`null::jsonb`}
        returning cs.id
      ), seed_new as (
        insert into instant_win_seeds ${SEED_COLUMNS}
        select ${rotation && specs ? seedValues(rotation.seedId, rotation.seed, sql`${gameId}::uuid`, seedTiersJson(specs), at) : sql`null, null, null, null, null, null, null, null`}
        where exists (select 1 from seed_old)
        returning id
      )
      select (select count(*) from c) > 0 as updated, (select count(*) from upd) as tiers_updated,
             (select count(*) from arch) as archived, (select count(*) from ins) as inserted, (select count(*) from k) as codes`;
}

/**
 * Deletes the game with its tiers, codes, plays and entries (cascade). With claimed plays and
 * no force: 409, nothing deleted.
 */
export async function deleteGame(
  db: Db,
  team: Team,
  gameId: string,
  force: boolean,
): Promise<{ id: string; deleted: true }> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const row = await queryOne<{ found: string | null; has_claims: boolean | null; deleted: string | null }>(
    db,
    sql`with ${team.cte} g as (
          select c.id from contests c where ${teamGame(team, gameId)} for update
        ), cl as (
          select exists (select 1 from instant_win_plays p where p.game_id = ${gameId} and p.status = 'claimed') as has
        ), d as (
          delete from contests where id in (select id from g) and (${force} or not (select has from cl))
          returning id
        )
        select (select id from g) as found, (select has from cl) as has_claims, (select id from d) as deleted`,
  );
  if (!row?.found) throw Errors.gameNotFound();
  if (!row.deleted) throw Errors.gameHasClaims();
  return { id: row.deleted, deleted: true };
}
