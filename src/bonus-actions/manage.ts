/**
 * A contest's bonus actions as its team manages them (list, add, change) and the completions
 * waiting for review. One statement each, with the key check; another team's contest or action
 * is not found.
 */
import { type SQL, sql } from 'drizzle-orm';
import type * as v from 'valibot';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlOfTeam } from '../sql/scope.js';
import type { BonusAction } from './bonus-actions.schema.js';
import {
  COMPLETION_STATUSES,
  type Completion,
  type createBonusActionBody,
  type updateBonusActionBody,
} from './bonus-actions.schema.js';

const ACTION_COLUMNS = sql`ba.id, ba.contest_id as "contestId", ba.action, ba.description, ba.icon, ba.icon_color as "iconColor", ba.points,
  ba.confirmation_type as "confirmationType", ba.destination_url as "destinationUrl", ba."order"`;
/** As many typed nulls as ACTION_COLUMNS has columns (the other arm of a union) */
const ACTION_NULLS =
  'null::uuid, null::uuid, null::text, null::text, null::text, null::text, null::int, null::text, null::text, null::int';

/** A bonus action as the API answers it (the schema the admin API's answers use too). */
export type BonusActionSettings = v.InferOutput<typeof BonusAction>;

const contestOf = (team: Team, contestId: string) =>
  sql`select id, public_cache_seconds from contests where id = ${contestId} and team_id = ${team.id} and tool_type is distinct from 'instant_win'`;

/** The contest's bonus actions in display order, and the contest's publicCacheSeconds. */
export async function listContestBonusActions(
  db: Db,
  team: Team,
  contestId: string,
): Promise<{ actions: BonusActionSettings[]; publicCacheSeconds: number }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<(BonusActionSettings | { id: null }) & { public_cache_seconds: number }>(
    db,
    sql`with ${team.cte} c as (${contestOf(team, contestId)})
        select ${ACTION_COLUMNS}, c.public_cache_seconds from c left join bonus_actions ba on ba.contest_id = c.id and ba.archived_at is null
        order by ba."order", ba.created_at, ba.id`,
  );
  if (rows.length === 0) throw Errors.contestNotFound();
  return {
    actions: rows.filter((r) => r.id !== null).map(({ public_cache_seconds: _, ...a }) => a as BonusActionSettings),
    publicCacheSeconds: rows[0]!.public_cache_seconds,
  };
}

/** Adds a bonus action; without `order` it goes last. */
export async function createContestBonusAction(
  db: Db,
  team: Team,
  contestId: string,
  input: v.InferOutput<typeof createBonusActionBody>,
  now: Date,
): Promise<BonusActionSettings> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const row = await queryOne<BonusActionSettings>(
    db,
    sql`with ${team.cte} c as (${contestOf(team, contestId)}),
        ba as (
          insert into bonus_actions (contest_id, action, description, icon, icon_color, points, confirmation_type, destination_url, "order", created_at)
          select c.id, ${input.action}, ${input.description ?? ''}, ${input.icon ?? ''}, ${input.iconColor ?? ''}, ${input.points}::int,
            ${input.confirmationType ?? 'auto'}, ${input.destinationUrl ?? null}::text,
            coalesce(${input.order ?? null}::int, (select coalesce(max(x."order") + 1, 0) from bonus_actions x where x.contest_id = c.id)),
            ${now.toISOString()}::timestamptz
          from c
          returning *
        )
        select ${ACTION_COLUMNS} from ba`,
  );
  if (!row) throw Errors.contestNotFound();
  return row;
}

/** Changes the given fields; points already awarded stay as they were. */
export async function updateContestBonusAction(
  db: Db,
  team: Team,
  bonusActionId: string,
  input: v.InferOutput<typeof updateBonusActionBody>,
): Promise<BonusActionSettings> {
  if (!isUuid(bonusActionId)) throw Errors.bonusActionNotFound();
  const set = (column: SQL, value: unknown, cast: SQL) =>
    value === undefined ? sql`${column} = b.${column}` : sql`${column} = ${value}${cast}`;
  // a "click" action takes the person to its link: the change is refused when it would leave one without
  const type = input.confirmationType ?? null;
  const url = input.destinationUrl === undefined ? sql`b.destination_url` : sql`${input.destinationUrl}::text`;
  const row = await queryOne<BonusActionSettings & { click_without_link?: boolean }>(
    db,
    sql`with ${team.cte} cur as (
          select b.id from bonus_actions b join contests c on c.id = b.contest_id
          where b.id = ${bonusActionId} and b.archived_at is null and ${sqlOfTeam(team, 'c')}
        ), bad as (
          select 1 from bonus_actions b join cur on cur.id = b.id
          where coalesce(${type}::text, b.confirmation_type) = 'click' and ${url} is null
        ), ba as (
          update bonus_actions b set
            ${set(sql`action`, input.action, sql`::text`)},
            ${set(sql`description`, input.description, sql`::text`)},
            ${set(sql`icon`, input.icon, sql`::text`)},
            ${set(sql`icon_color`, input.iconColor, sql`::text`)},
            ${set(sql`points`, input.points, sql`::int`)},
            ${set(sql`confirmation_type`, input.confirmationType, sql`::text`)},
            ${set(sql`destination_url`, input.destinationUrl, sql`::text`)},
            ${set(sql`"order"`, input.order, sql`::int`)}
          from cur
          where b.id = cur.id and not exists (select 1 from bad)
          returning b.*
        )
        select ${ACTION_COLUMNS}, false as click_without_link from ba
        union all
        select ${sql.raw(ACTION_NULLS)}, true from bad`,
  );
  if (!row) throw Errors.bonusActionNotFound();
  if (row.click_without_link) throw Errors.clickActionNeedsLink();
  const { click_without_link: _, ...action } = row;
  return action;
}

/** Removes a bonus action: gone from the lists, cannot be completed; the points it gave stay. */
export async function deleteContestBonusAction(db: Db, team: Team, bonusActionId: string, now: Date) {
  if (!isUuid(bonusActionId)) throw Errors.bonusActionNotFound();
  const row = await queryOne<{ id: string }>(
    db,
    sql`with ${team.cte} d as (
          update bonus_actions b set archived_at = ${now.toISOString()}::timestamptz
          from contests c
          where b.id = ${bonusActionId} and c.id = b.contest_id and b.archived_at is null and ${sqlOfTeam(team, 'c')}
          returning b.id
        )
        select id from d`,
  );
  if (!row) throw Errors.bonusActionNotFound();
  return { id: row.id, deleted: true as const };
}

export { COMPLETION_STATUSES };
export type CompletionStatus = (typeof COMPLETION_STATUSES)[number];
export type CompletionItem = v.InferOutput<typeof Completion>;

/**
 * A contest's completions of one status, newest first: `pending` is the review queue of manual
 * actions (a partial index keeps it fast however many completions the contest has).
 */
export async function listBonusCompletions(
  db: Db,
  team: Team,
  contestId: string,
  opts: { status: CompletionStatus; limit: number; offset: number },
): Promise<{ total: number; items: CompletionItem[] }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<{
    found: boolean;
    total: number | string;
    id: string | null;
    entry_id: string;
    email: string | null;
    name: string | null;
    bonus_action_id: string;
    action: string;
    status: CompletionStatus;
    proof: string | null;
    answer: string | null;
    points_awarded: number;
    completed_at: Date | string;
  }>(
    db,
    sql`with ${team.cte} c as (${contestOf(team, contestId)}),
        f as (select bc.* from bonus_completions bc, c where bc.contest_id = c.id and bc.status = ${opts.status})
        ${sqlPaged({
          head: sql`exists (select 1 from c) as found`,
          counted: sql`from f`,
          page: sql`select f.id, f.entry_id, e.email, e.name, f.bonus_action_id, ba.action,
              f.status, f.proof, f.answer, f.points_awarded, f.completed_at
            from f join entries e on e.id = f.entry_id join bonus_actions ba on ba.id = f.bonus_action_id
            order by f.completed_at desc, f.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!rows[0]?.found) throw Errors.contestNotFound();
  return pageOf(rows, (r) => ({
    id: r.id,
    entryId: r.entry_id,
    email: r.email,
    name: r.name,
    bonusActionId: r.bonus_action_id,
    action: r.action,
    status: r.status,
    proof: r.proof,
    answer: r.answer,
    pointsAwarded: num(r.points_awarded),
    completedAt: iso(r.completed_at)!,
  }));
}
