/** The plays log of a game (private key): newest first, filtered by status. */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlEmail } from '../sql/masking.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlOfTeam } from '../sql/scope.js';
import { NO_PRIZE, type PlayStatus } from './presets.js';

interface Row {
  total: string | number;
  found: boolean;
  id: string | null;
  status: PlayStatus;
  tier_id: string | null;
  tier_name: string | null;
  tier_is_miss: boolean | null;
  email: string | null;
  created_at: Date | string;
  expires_at: Date | string | null;
  claimed_at: Date | string | null;
  drawn_tier_id: string | null;
  drawn_tier_name: string | null;
  client_seed: string | null;
  nonce: number | null;
  seed_id: string | null;
}

/**
 * The status a play has NOW: a pending win past expires_at is `expired` even before the sweep
 * stored it so (alias `p`).
 */
export function sqlPlayStatus(at: string): SQL {
  return sql`(case when p.status = 'pending' and p.expires_at <= ${at}::timestamptz then 'expired' else p.status end)`;
}

function statusFilter(status: PlayStatus | undefined, at: string): SQL {
  if (!status) return sql``;
  if (status === 'pending') return sql`and p.status = 'pending' and p.expires_at > ${at}::timestamptz`;
  if (status === 'expired') {
    return sql`and (p.status = 'expired' or (p.status = 'pending' and p.expires_at <= ${at}::timestamptz))`;
  }
  return sql`and p.status = ${status}`;
}

export async function listPlays(
  db: Db,
  team: Team,
  gameId: string,
  opts: { status?: PlayStatus; limit: number; offset: number },
  now: Date,
) {
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const at = now.toISOString();
  const where = sql`p.game_id = ${gameId} ${statusFilter(opts.status, at)}`;
  const rows = await query<Row>(
    db,
    sql`with ${team.cte} g as (
          select c.id from contests c where c.id = ${gameId} and ${sqlOfTeam(team, 'c')} and c.tool_type = 'instant_win'
        )
        ${sqlPaged({
          head: sql`exists (select 1 from g) as found`,
          counted: sql`from instant_win_plays p where exists (select 1 from g) and ${where}`,
          page: sql`select p.id, ${sqlPlayStatus(at)} as status, p.tier_id, t.name as tier_name, t.is_miss as tier_is_miss,
                 ${sqlEmail(team, sql`p.email`)} as email, p.created_at, p.expires_at, p.claimed_at,
                 p.drawn_tier_id, dt.name as drawn_tier_name, p.client_seed, p.nonce, p.seed_id
          from instant_win_plays p left join instant_win_tiers t on t.id = p.tier_id
               left join instant_win_tiers dt on dt.id = p.drawn_tier_id
          where exists (select 1 from g) and ${where}
          order by p.created_at desc, p.id desc
          limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!rows[0]?.found) throw Errors.gameNotFound();
  return pageOf(rows, (r) => ({
    id: r.id,
    status: r.status,
    tier: r.tier_id
      ? { id: r.tier_id, name: r.tier_name!, isMiss: r.tier_is_miss! }
      : { id: NO_PRIZE.id, name: NO_PRIZE.name, isMiss: true },
    email: r.email,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    claimedAt: iso(r.claimed_at),
    // provable fairness (docs/fairness.md): null for plays made before it existed
    drawnTier: r.drawn_tier_id ? { id: r.drawn_tier_id, name: r.drawn_tier_name! } : null,
    clientSeed: r.client_seed,
    nonce: r.nonce === null ? null : Number(r.nonce),
    seedId: r.seed_id,
  }));
}
