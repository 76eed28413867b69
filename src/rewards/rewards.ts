/**
 * Rewards at milestones: what a contest gives at a number of confirmed referrals or points, managed
 * with a private key, one statement per request. Unlocking is not here: the statement that takes
 * an entry across a threshold unlocks it (the triggers of src/db/functions/rewards.sql), so
 * no code path that moves points or confirms a referral can forget it. Here: the rewards, their
 * codes, who unlocked what, and what an entry has unlocked and is closest to.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlArray } from '../sql/arrays.js';
import { sqlIso } from '../sql/events.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';
import { CODES_PER_POOL, type CreateRewardInput, type UpdateRewardInput } from './rewards.schema.js';

/** A reward as the private API shows it, from the rewards row `r`. */
function sqlRewardJson(r: string): SQL {
  const a = sql.raw(r);
  return sql`json_build_object('id', ${a}.id, 'contestId', ${a}.contest_id, 'name', ${a}.name, 'description', ${a}.description,
    'imageUrl', ${a}.image_url,
    'referralsRequired', ${a}.referrals_required, 'pointsRequired', ${a}.points_required,
    'gives', case ${a}.kind when 'none' then 'nothing' else ${a}.kind end, 'code', ${a}.code,
    'codesTotal', (select count(*) from reward_codes k where k.reward_id = ${a}.id),
    'codesLeft', (select count(*) from reward_codes k where k.reward_id = ${a}.id and k.given_at is null),
    'unlocked', (select count(*) from reward_unlocks u where u.reward_id = ${a}.id),
    'waitingForCode', (select count(*) from reward_unlocks u where u.reward_id = ${a}.id and u.code_pending and u.entry_id is not null),
    'createdAt', ${sqlIso(sql`${a}.created_at`)}, 'updatedAt', ${sqlIso(sql`${a}.updated_at`)})`;
}

/** Codes of a request without repeats, in their order; how many repeats were dropped. */
function distinctCodes(codes: readonly string[]): { codes: string[]; repeats: number } {
  const unique = [...new Set(codes)];
  return { codes: unique, repeats: codes.length - unique.length };
}

/** The contest of the team (CTE `c`), as every statement here starts. */
const sqlContest = (team: Team, contestId: string) =>
  sql`${team.cte} c as (select c.id from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')})`;

export async function createReward(db: Db, team: Team, contestId: string, input: CreateRewardInput, now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const at = now.toISOString();
  const kind = input.codes !== undefined ? 'codes' : input.code !== undefined ? 'code' : 'none';
  const { codes, repeats } = distinctCodes(input.codes ?? []);
  const row = await queryOne<{
    contest_found: boolean;
    reward: Record<string, unknown> | null;
    added: number | string;
  }>(
    db,
    sql`with ${sqlContest(team, contestId)}, ins as (
          insert into rewards (contest_id, name, description, image_url, referrals_required, points_required, kind, code, codes_total,
            created_at, updated_at)
          select c.id, ${input.name}, ${input.description ?? null}::text, ${input.imageUrl ?? null}::text, ${input.referralsRequired ?? null}::int,
            ${input.pointsRequired ?? null}::int, ${kind}, ${input.code ?? null}::text, ${codes.length}::int, ${at}::timestamptz, ${at}::timestamptz
          from c
          returning *
        ), k as (
          insert into reward_codes (reward_id, seq, code, created_at)
          select ins.id, x.seq, x.code, ${at}::timestamptz
          from ins, unnest(${sqlArray(codes, 'text')}) with ordinality as x(code, seq)
          returning 1
        )
        select exists (select 1 from c) as contest_found, (select count(*) from k) as added,
          (select json_build_object('id', ins.id, 'contestId', ins.contest_id, 'name', ins.name, 'description', ins.description,
            'imageUrl', ins.image_url,
            'referralsRequired', ins.referrals_required, 'pointsRequired', ins.points_required,
            'gives', case ins.kind when 'none' then 'nothing' else ins.kind end, 'code', ins.code,
            'codesTotal', ins.codes_total, 'codesLeft', ins.codes_total, 'unlocked', 0, 'waitingForCode', 0,
            'createdAt', ${sqlIso(sql`ins.created_at`)}, 'updatedAt', ${sqlIso(sql`ins.updated_at`)}) from ins) as reward`,
  );
  if (!row?.contest_found || !row.reward) throw Errors.contestNotFound();
  // entries already past the threshold unlock it in this statement (its trigger), after this answer was made
  return { ...row.reward, duplicates: repeats } as Record<string, unknown>;
}

/** A reward as anyone may see it (a public key's list, the hosted page's prizes): what there is to earn, never a code. */
export const sqlPublicRewardJson = (a: string): SQL => {
  const r = sql.raw(a);
  return sql`json_build_object('id', ${r}.id, 'name', ${r}.name, 'description', ${r}.description, 'imageUrl', ${r}.image_url,
    'referralsRequired', ${r}.referrals_required, 'pointsRequired', ${r}.points_required)`;
};

/** The order rewards are listed in (the widget's ladder, the hosted page's prizes): friends' rewards first, then by threshold. */
export const sqlRewardOrder = (a: string): SQL => {
  const r = sql.raw(a);
  return sql`${r}.referrals_required is null, coalesce(${r}.referrals_required, ${r}.points_required), ${r}.created_at, ${r}.id`;
};

/** The contest's live rewards, smallest threshold first; a public key sees what there is to earn, never a code. */
export async function listRewards(db: Db, team: Team, contestId: string, access: 'public' | 'private') {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const item = access === 'private' ? sqlRewardJson('r') : sqlPublicRewardJson('r');
  const row = await queryOne<{ contest_found: boolean; items: unknown[] | null }>(
    db,
    sql`with ${sqlContest(team, contestId)}
        select exists (select 1 from c) as contest_found,
          (select json_agg(${item} order by ${sqlRewardOrder('r')})
           from rewards r join c on r.contest_id = c.id where r.deleted_at is null) as items`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return row.items ?? [];
}

const sqlReward = (team: Team, contestId: string, rewardId: string) =>
  sql`${sqlContest(team, contestId)}, r0 as (
      select r.* from rewards r join c on r.contest_id = c.id where r.id = ${rewardId} and r.deleted_at is null
      for update of r
    )`;

export async function updateReward(
  db: Db,
  team: Team,
  contestId: string,
  rewardId: string,
  patch: UpdateRewardInput,
  now: Date,
) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  if (!isUuid(rewardId)) throw Errors.rewardNotFound();
  const at = now.toISOString();
  const has = (k: keyof UpdateRewardInput) => patch[k] !== undefined;
  // a new threshold replaces the old one, whichever kind it was
  const threshold = has('referralsRequired') || has('pointsRequired');
  const row = await queryOne<{ contest_found: boolean; found: boolean; one_code: boolean; reward: unknown }>(
    db,
    sql`with ${sqlReward(team, contestId, rewardId)}, u as (
          update rewards r set
            name = coalesce(${patch.name ?? null}::text, r.name),
            description = case when ${has('description')}::boolean then ${patch.description ?? null}::text else r.description end,
            image_url = case when ${has('imageUrl')}::boolean then ${patch.imageUrl ?? null}::text else r.image_url end,
            referrals_required = case when ${threshold}::boolean then ${patch.referralsRequired ?? null}::int else r.referrals_required end,
            points_required = case when ${threshold}::boolean then ${patch.pointsRequired ?? null}::int else r.points_required end,
            code = coalesce(${patch.code ?? null}::text, r.code),
            updated_at = ${at}::timestamptz
          from r0 where r.id = r0.id and (${patch.code ?? null}::text is null or r0.kind = 'code')
          returning r.*
        )
        select exists (select 1 from c) as contest_found, exists (select 1 from r0) as found,
          coalesce((select kind = 'code' from r0), false) as one_code,
          (select ${sqlRewardJson('u')} from u) as reward`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  if (!row.found) throw Errors.rewardNotFound();
  if (!row.reward && has('code') && !row.one_code) throw Errors.rewardNotOneCode();
  return row.reward as Record<string, unknown>;
}

/** Deleted: no new unlocks, gone from lists; what entries unlocked stays theirs, codes given stay given. */
export async function deleteReward(db: Db, team: Team, contestId: string, rewardId: string, now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  if (!isUuid(rewardId)) throw Errors.rewardNotFound();
  const row = await queryOne<{ contest_found: boolean; id: string | null }>(
    db,
    sql`with ${sqlReward(team, contestId, rewardId)}, d as (
          update rewards r set deleted_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
          from r0 where r.id = r0.id returning r.id
        )
        select exists (select 1 from c) as contest_found, (select id from d) as id`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  if (!row.id) throw Errors.rewardNotFound();
  return { id: row.id, deleted: true as const };
}

/**
 * Adds codes to a pool (each given once): the unlocks waiting for a code get them first, oldest
 * first, in this statement (the codes' trigger). Two adds at once queue on the reward's row.
 */
export async function addCodes(db: Db, team: Team, contestId: string, rewardId: string, input: string[], now: Date) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  if (!isUuid(rewardId)) throw Errors.rewardNotFound();
  const at = now.toISOString();
  const { codes, repeats } = distinctCodes(input);
  const row = await queryOne<{
    contest_found: boolean;
    found: boolean;
    pool: boolean;
    full: boolean;
    added: number | string;
    free_before: number | string;
    pending: number | string;
    total: number | string;
  }>(
    db,
    sql`with ${sqlReward(team, contestId, rewardId)}, hw as (
          update rewards r set codes_total = r.codes_total + ${codes.length}::int, updated_at = ${at}::timestamptz
          from r0 where r.id = r0.id and r0.kind = 'codes' and r0.codes_total + ${codes.length}::int <= ${CODES_PER_POOL}
          returning r.id, r0.codes_total as base
        ), k as (
          insert into reward_codes (reward_id, seq, code, created_at)
          select hw.id, hw.base + x.n, x.code, ${at}::timestamptz
          from hw, unnest(${sqlArray(codes, 'text')}) with ordinality as x(code, n)
          on conflict (reward_id, code) do nothing
          returning 1
        )
        select exists (select 1 from c) as contest_found, exists (select 1 from r0) as found,
          coalesce((select kind = 'codes' from r0), false) as pool, not exists (select 1 from hw) as full,
          (select count(*) from k) as added,
          (select count(*) from reward_codes x, r0 where x.reward_id = r0.id and x.given_at is null) as free_before,
          (select count(*) from reward_unlocks u, r0 where u.reward_id = r0.id and u.code_pending and u.entry_id is not null) as pending,
          (select count(*) from reward_codes x, r0 where x.reward_id = r0.id) as total`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  if (!row.found) throw Errors.rewardNotFound();
  if (!row.pool) throw Errors.rewardNotAPool();
  if (row.full) throw Errors.rewardPoolFull();
  const added = num(row.added);
  const free = num(row.free_before) + added;
  const given = Math.min(num(row.pending), free);
  return {
    added,
    duplicates: codes.length - added + repeats,
    given,
    codesTotal: num(row.total) + added,
    codesLeft: free - given,
  };
}

/** Who unlocked a reward (newest first), with the code each got. */
export async function listUnlocks(
  db: Db,
  team: Team,
  contestId: string,
  rewardId: string,
  page: { limit: number; offset: number },
) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  if (!isUuid(rewardId)) throw Errors.rewardNotFound();
  const rows = await query<{
    contest_found: boolean;
    found: boolean;
    total: number | string;
    items: unknown[] | null;
  }>(
    db,
    sql`with ${sqlContest(team, contestId)}, r0 as (
          select r.id from rewards r join c on r.contest_id = c.id where r.id = ${rewardId}
        ), page as (
          select u.* from reward_unlocks u join r0 on u.reward_id = r0.id
          order by u.unlocked_at desc, u.id desc limit ${page.limit} offset ${page.offset}
        )
        select exists (select 1 from c) as contest_found, exists (select 1 from r0) as found,
          (select count(*) from reward_unlocks u join r0 on u.reward_id = r0.id) as total,
          (select json_agg(json_build_object('unlockId', p.id, 'entryId', p.entry_id, 'email', e.email, 'name', e.name,
              'code', coalesce(k.code, r.code), 'waitingForCode', p.code_pending and p.entry_id is not null,
              'unlockedAt', ${sqlIso(sql`p.unlocked_at`)}) order by p.unlocked_at desc, p.id desc)
           from page p join rewards r on r.id = p.reward_id left join entries e on e.id = p.entry_id
           left join reward_codes k on k.unlock_id = p.id) as items`,
  );
  const row = rows[0];
  if (!row?.contest_found) throw Errors.contestNotFound();
  if (!row.found) throw Errors.rewardNotFound();
  return { items: row.items ?? [], total: num(row.total) };
}

/**
 * What the entry in `alias` (columns id, contest_id, points) unlocked, with its codes, and the
 * reward it is closest to, as one JSON value (GET /entries/{id}/rewards, the visitor's /me).
 */
export function sqlEntryRewards(alias: string): SQL {
  const e = sql.raw(alias);
  const referrals = sql`(select count(*) from entries f where f.referred_by = ${e}.id
    and ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review))`;
  return sql`json_build_object(
    'unlocked', coalesce((
      select json_agg(json_build_object('rewardId', r.id, 'name', r.name, 'description', r.description,
        'code', coalesce(k.code, r.code), 'waitingForCode', u.code_pending, 'unlockedAt', ${sqlIso(sql`u.unlocked_at`)})
        order by u.unlocked_at, u.id)
      from reward_unlocks u join rewards r on r.id = u.reward_id left join reward_codes k on k.unlock_id = u.id
      where u.entry_id = ${e}.id), '[]'::json),
    'next', (
      select json_build_object('rewardId', n.id, 'name', n.name, 'description', n.description,
        'referralsRequired', n.referrals_required, 'pointsRequired', n.points_required,
        'referralsMissing', case when n.referrals_required is not null then greatest(0, n.referrals_required - n.have) end,
        'pointsMissing', case when n.points_required is not null then greatest(0, n.points_required - n.have) end)
      from (
        select r.*, case when r.referrals_required is not null then ${referrals} else ${e}.points end as have
        from rewards r
        where r.contest_id = ${e}.contest_id and r.deleted_at is null
          and not exists (select 1 from reward_unlocks u where u.reward_id = r.id and u.entry_id = ${e}.id)
      ) n
      order by greatest(0, coalesce(n.referrals_required, n.points_required) - n.have)::float8
        / coalesce(n.referrals_required, n.points_required), coalesce(n.referrals_required, n.points_required), n.created_at, n.id
      limit 1))`;
}

/** GET /entries/{entryId}/rewards: the entry's unlocks and its next reward. */
export async function entryRewards(db: Db, team: Team, entryId: string) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const row = await queryOne<{ rewards: unknown }>(
    db,
    sql`with ${team.cte} e as (
          select e.id, e.contest_id, e.points from entries e join contests c on c.id = e.contest_id
          where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
        )
        select ${sqlEntryRewards('e')} as rewards from e`,
  );
  if (!row) throw Errors.entryNotFound();
  return row.rewards;
}

/**
 * The every-minute job's part: free codes to the unlocks still waiting for one (a pool's codes
 * added at the very moment an entry unlocked it, each statement blind to the other's rows).
 */
export async function giveWaitingCodes(db: Db, now: Date): Promise<number> {
  const row = await queryOne<{ given: unknown }>(
    db,
    sql`select ce_give_codes(array(select distinct u.reward_id from reward_unlocks u
          where u.code_pending and u.entry_id is not null), ${now.toISOString()}::timestamptz, '{}') as given`,
  );
  return num(row?.given);
}
