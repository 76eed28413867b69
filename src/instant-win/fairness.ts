/**
 * Provably fair instant win (docs/fairness.md): every game has one current server seed,
 * committed by its SHA-256 from creation on; rotating reveals it and commits a new one. Changing
 * a game's tiers rotates too (games.ts), so all the plays of one seed were drawn under one set of
 * tiers, which the seed keeps (`tiers`).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid, randomUuid } from '../lib/crypto.js';
import { sqlOfTeam } from '../sql/scope.js';
import { newSeed, type SeedMaterial } from './fairness-seed.js';

/** jsonb [{id, name, oddsPercent}] of a game's live tiers in draw order (`gameId`: an SQL uuid expression) */
export const liveTiersJson = (gameId: SQL) =>
  sql`coalesce((select jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'oddsPercent', t.odds_percent) order by t.position, t.id)
       from instant_win_tiers t where t.game_id = ${gameId} and t.archived_at is null), '[]'::jsonb)`;

/** The values of a new instant_win_seeds row (to follow `insert into instant_win_seeds ${SEED_COLUMNS} select ...`). */
export const SEED_COLUMNS = sql`(id, game_id, seed, seed_hash, hmac_ipad, hmac_opad, tiers, created_at)`;
export const seedValues = (seedId: string, m: SeedMaterial, gameId: SQL, tiers: SQL, at: string) =>
  sql`${seedId}::uuid, ${gameId}, decode(${m.seedHex}, 'hex'), ${m.seedHash}::text, decode(${m.ipadHex}, 'hex'),
      decode(${m.opadHex}, 'hex'), ${tiers}, ${at}::timestamptz`;

/** `fairness` of a game (contests alias `c`): {seedId, seedHash} of its current seed */
export const sqlGameFairness = sql`(select json_build_object('seedId', s.id, 'seedHash', s.seed_hash)
  from instant_win_seeds s where s.game_id = c.id and s.revealed_at is null) as fairness`;

const teamGame = (team: Team, gameId: string) =>
  sql`select c.id from contests c where c.id = ${gameId} and ${sqlOfTeam(team, 'c')} and c.tool_type = 'instant_win'`;

export interface RotateResult {
  revealed: { seedId: string; seedHash: string; seed: string };
  current: { seedId: string; seedHash: string };
}

/** Reveals the game's current seed and commits a new one, in one statement. */
export async function rotateSeed(
  db: Db,
  random: RandomSource,
  team: Team,
  gameId: string,
  now: Date,
): Promise<RotateResult> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const at = now.toISOString();
  // a concurrent rotation of the same game makes this one reveal nothing: then go again
  for (let attempt = 0; attempt < 5; attempt++) {
    const m = await newSeed(random);
    const seedId = randomUuid(random);
    const rows = await query<{
      found: boolean;
      old_id: string | null;
      old_hash: string;
      old_seed: string;
      new_id: string;
      new_hash: string;
    }>(
      db,
      sql`with ${team.cte} g as (${teamGame(team, gameId)}),
          old as (
            update instant_win_seeds s set revealed_at = ${at}::timestamptz
            where s.game_id in (select id from g) and s.revealed_at is null
            returning s.id, s.seed_hash, encode(s.seed, 'hex') as seed
          ), fresh as (
            insert into instant_win_seeds ${SEED_COLUMNS}
            select ${seedValues(seedId, m, sql`g.id`, liveTiersJson(sql`g.id`), at)} from g where exists (select 1 from old)
            returning id, seed_hash
          )
          select exists (select 1 from g) as found, old.id as old_id, old.seed_hash as old_hash, old.seed as old_seed,
                 fresh.id as new_id, fresh.seed_hash as new_hash
          from (select 1) one left join old on true left join fresh on true`,
    );
    const row = rows[0];
    if (!row?.found) throw Errors.gameNotFound();
    if (row.old_id) {
      return {
        revealed: { seedId: row.old_id, seedHash: row.old_hash, seed: row.old_seed },
        current: { seedId: row.new_id, seedHash: row.new_hash },
      };
    }
  }
  throw new Error('rotateSeed: the seed kept changing under concurrent rotations');
}

export interface SeedJson {
  seedId: string;
  seedHash: string;
  seed: string | null;
  createdAt: string | null;
  revealedAt: string | null;
  plays: number;
  tiers: { id: string; name: string; oddsPercent: number }[];
}

/** Every seed of the game, newest first (the current one first), with its play count and tiers. */
export async function listSeeds(db: Db, team: Team, gameId: string): Promise<SeedJson[]> {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const rows = await query<{
    found: boolean;
    id: string | null;
    seed_hash: string;
    seed: string | null;
    created_at: Date | string;
    revealed_at: Date | string | null;
    plays: string | number;
    tiers: SeedJson['tiers'] | string;
  }>(
    db,
    sql`with ${team.cte} g as (${teamGame(team, gameId)})
        select exists (select 1 from g) as found, s.* from (select 1) one left join lateral (
          select s.id, s.seed_hash, case when s.revealed_at is not null then encode(s.seed, 'hex') end as seed,
                 s.created_at, s.revealed_at, s.tiers,
                 (select count(*) from instant_win_plays p where p.seed_id = s.id) as plays
          from instant_win_seeds s where s.game_id in (select id from g)
          order by s.created_at desc, (s.revealed_at is null) desc, s.revealed_at desc, s.id
        ) s on true`,
  );
  if (!rows[0]?.found) throw Errors.gameNotFound();
  return rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      seedId: r.id!,
      seedHash: r.seed_hash,
      seed: r.seed,
      createdAt: iso(r.created_at),
      revealedAt: iso(r.revealed_at),
      plays: num(r.plays),
      tiers: typeof r.tiers === 'string' ? JSON.parse(r.tiers) : r.tiers,
    }));
}
