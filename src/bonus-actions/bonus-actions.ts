/**
 * Bonus actions for an entry: the list with completion state, and completing one (points once,
 * in the same statement as the completion row and the ledger row).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlEmail } from '../sql/masking.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { MAX_POINTS_TOTAL } from '../sql/points.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';

export const PROOF_MAX = 2000;
export const ANSWER_MAX = 2000;

interface ActionRow {
  entry_id: string | null;
  email: string | null;
  total_points: number;
  action_id: string | null;
  action: string;
  description: string;
  icon: string;
  icon_color: string;
  points: number;
  confirmation_type: string;
  destination_url: string | null;
  order: number;
  completed_at: Date | string | null;
  completion_status: string | null;
  points_awarded: number | null;
}

export type EntryRef = { entryId: string } | { email: string; contestId: string };

/**
 * The contest's bonus actions as seen by one entry, in display order. The entry is named by id
 * or (the `lookup` form) by email + contest. Another team's entry or contest: not found.
 */
/**
 * @param ownToken the SHA-256 of a keyless visitor's entry token: only the entry of that token
 *   is found (any other answers Entry not found)
 */
export async function listBonusActionsForEntry(db: Db, team: Team, ref: EntryRef, ownToken?: string) {
  let where: SQL;
  let contestFound: SQL;
  if ('entryId' in ref) {
    if (!isUuid(ref.entryId)) throw Errors.entryNotFound();
    where = sql`e.id = ${ref.entryId}`;
    contestFound = sql`true`;
  } else {
    if (!isUuid(ref.contestId)) throw Errors.contestNotFound();
    where = sql`e.contest_id = ${ref.contestId} and e.email = ${ref.email.trim().toLowerCase()}`;
    contestFound = sql`exists (select 1 from contests where id = ${ref.contestId} and team_id = ${team.id})`;
  }
  // a visitor without a key (an entry token): their own entry and nothing else
  const own = ownToken
    ? sql` and exists (select 1 from entry_tokens et where et.token_hash = ${ownToken} and et.entry_id = e.id)`
    : sql``;
  const rows = await query<ActionRow & { contest_found: boolean }>(
    db,
    sql`with ${team.cte} e as (
          select e.id, e.email, e.points, e.contest_id from entries e join contests c on c.id = e.contest_id
          where ${where} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}${own}
        )
        select ${contestFound} as contest_found, x.* from (select 1) one left join lateral (
          select e.id as entry_id, ${sqlEmail(team, sql`e.email`)} as email, e.points as total_points,
            ba.id as action_id, ba.action, ba.description, ba.icon, ba.icon_color, ba.points, ba.confirmation_type,
            ba.destination_url, ba."order", ba.created_at as action_created_at,
            bc.completed_at, bc.status as completion_status, bc.points_awarded
          from e
          left join bonus_actions ba on ba.contest_id = e.contest_id and ba.archived_at is null
          left join bonus_completions bc on bc.entry_id = e.id and bc.bonus_action_id = ba.id
        ) x on true
        order by x."order", x.action_created_at, x.action_id`,
  );
  const first = rows[0];
  if (!first?.contest_found) throw Errors.contestNotFound();
  if (first.entry_id === null) throw Errors.entryNotFound();
  const actions = rows
    .filter((r) => r.action_id !== null)
    .map((r) => ({
      id: r.action_id!,
      action: r.action,
      description: r.description,
      icon: r.icon,
      iconColor: r.icon_color,
      points: num(r.points),
      confirmationType: r.confirmation_type,
      destinationUrl: r.destination_url,
      order: num(r.order),
      completed: r.completed_at !== null && r.completion_status !== 'rejected',
      completedAt: iso(r.completed_at),
      completionStatus: r.completion_status,
    }));
  const done = rows.filter((r) => r.completed_at !== null && r.completion_status !== 'rejected');
  return {
    entryId: first.entry_id,
    email: first.email,
    totalPoints: num(first.total_points),
    bonusActionsCompleted: done.length,
    bonusActionsTotal: actions.length,
    bonusPointsEarned: done.reduce((s, r) => s + num(r.points_awarded), 0),
    actions,
  };
}

export type CompleteResult =
  | { alreadyCompleted: false; completedAt: string; pointsAdded: number; newTotalPoints: number; message: string }
  | { alreadyCompleted: true; completedAt: string; message: string };

interface CompleteRow {
  entry_id: string;
  disqualified: boolean;
  is_open: boolean;
  token_wrong?: boolean;
  token_missing?: boolean;
  unconfirmed?: boolean;
  completion_id: string | null;
  points_awarded: number | null;
  completed_at: Date | string | null;
  new_total: number;
  prev_completed_at: Date | string | null;
  completion_status: string | null;
}

const MAX_COMPLETE_ATTEMPTS = 5;

/**
 * CTEs `upd` and `ledger` (no trailing comma): the points awarded by the completion rows of CTE
 * `done` (id, entry_id, points_awarded) added to their entries, each with its bonus_action
 * ledger row in the same statement; CTE `action` has the action's contest_id, action and
 * action_points. Nothing is written for 0 points. Completing and verifying both credit this way.
 */
function sqlCreditCompletion(done: 'ins' | 'u', action: 't' | 'p', at: string): SQL {
  const d = sql.raw(done);
  const a = sql.raw(action);
  return sql`upd as (
      update entries en set points = en.points + ${d}.points_awarded, updated_at = ${at}::timestamptz
      from ${d} where en.id = ${d}.entry_id and ${d}.points_awarded > 0
      returning en.id, en.points
    ), ledger as (
      insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
      select ${d}.entry_id, ${a}.contest_id, ${d}.points_awarded, ${a}.action_points, 'bonus_action',
        left('Bonus action: ' || ${a}.action, 500), ${d}.id::text, ${at}::timestamptz
      from ${d}, ${a} where ${d}.points_awarded > 0
      returning 1
    )`;
}

/**
 * Completes a bonus action for an entry, once. Checks, in this order: entry and action exist,
 * belong together (same contest) and to the team (404 Entry or bonus action not found); entry
 * not disqualified (403); contest open (409); then the first completion adds the action's
 * points and later ones answer alreadyCompleted. One statement: the entry row is locked, the
 * completion inserted (`on conflict do nothing` on entry+action), the total and the ledger row
 * written only when the insert happened.
 */
export async function completeBonusAction(
  db: Db,
  team: Team,
  entryId: string,
  bonusActionId: string,
  input: { proof?: string | null; answer?: string | null },
  now: Date,
  /**
   * private keys: a manual action is verified at once; public keys: stored pending, no points.
   * `entryToken`: the SHA-256 of the visitor's `Authorization: Bearer et_…` (null: none sent); a
   * token must be the entry's own, and a contest with bonusActionsNeedEntryToken needs one from a
   * public key.
   */
  opts: { verifyManual?: boolean; entryToken?: { hash: string | null; publicKey: boolean } } = {},
): Promise<CompleteResult> {
  if (!isUuid(entryId) || !isUuid(bonusActionId)) throw Errors.entryOrBonusActionNotFound();
  const t = now.toISOString();
  for (let attempt = 0; attempt < MAX_COMPLETE_ATTEMPTS; attempt++) {
    const row = await queryOne<CompleteRow>(
      db,
      sql`with ${team.cte} t as (
            select e.id as entry_id, e.contest_id, e.disqualified, e.points, ba.id as action_id, ba.points as action_points,
              ba.action, ${sqlContestOpen(now, 'c')} as is_open,
              (ba.confirmation_type = 'manual' and not ${opts.verifyManual ?? false}::boolean) as held${
                opts.entryToken
                  ? sql`,
              (${opts.entryToken.hash}::text is not null and not exists (
                select 1 from entry_tokens et where et.token_hash = ${opts.entryToken.hash}::text and et.entry_id = e.id)) as token_wrong,
              (${opts.entryToken.hash}::text is null and ${opts.entryToken.publicKey}::boolean and c.bonus_actions_need_entry_token) as token_missing,
              -- a sign-up earns nothing before its email is confirmed (only the team's server may credit it)
              (${opts.entryToken.publicKey}::boolean and e.source = 'signup' and not e.email_confirmed) as unconfirmed`
                  : sql``
              }
            from entries e
            join contests c on c.id = e.contest_id
            join bonus_actions ba on ba.contest_id = e.contest_id
            where e.id = ${entryId} and ba.id = ${bonusActionId} and ba.archived_at is null and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
            for update of e
          ), ins as (
            insert into bonus_completions (entry_id, bonus_action_id, contest_id, status, proof, answer, points_awarded, completed_at)
            select entry_id, action_id, contest_id, case when held then 'pending' else 'verified' end,
              ${input.proof ?? null}::text, ${input.answer ?? null}::text,
              case when held then 0 else least(action_points::bigint, ${MAX_POINTS_TOTAL}::bigint - points)::int end, ${t}::timestamptz
            from t where not disqualified and is_open${opts.entryToken ? sql` and not token_wrong and not token_missing and not unconfirmed` : sql``}
            -- a rejected manual completion may be completed again
            on conflict (entry_id, bonus_action_id) do update set status = excluded.status, proof = excluded.proof,
              answer = excluded.answer, points_awarded = excluded.points_awarded, completed_at = excluded.completed_at
              where bonus_completions.status = 'rejected'
            returning id, entry_id, points_awarded, completed_at, status
          ), ${sqlCreditCompletion('ins', 't', t)}, ${sqlEmitEvent(
            'ev_bonus',
            'bonus_action.completed',
            sql`select ${team.id} as team_id, t.contest_id, json_build_object('entryId', ins.entry_id, 'contestId', t.contest_id,
              'bonusActionId', t.action_id, 'completionId', ins.id, 'action', t.action, 'pointsAwarded', ins.points_awarded,
              'newTotalPoints', coalesce((select points from upd), t.points), 'completedAt', ${sqlIso(sql`ins.completed_at`)}) as data
              from ins, t`,
            now,
          )}
          select t.entry_id, t.disqualified, t.is_open, ins.id as completion_id, ins.points_awarded, ins.completed_at,
            ins.status as completion_status,
            coalesce(upd.points, t.points) as new_total,
            (select completed_at from bonus_completions where entry_id = t.entry_id and bonus_action_id = t.action_id) as prev_completed_at,
            ${sqlEventDeliveries('ev_bonus')}${sqlRewardsMay(sql`t.contest_id`)}${opts.entryToken ? sql`, t.token_wrong, t.token_missing, t.unconfirmed` : sql``}
          from t left join ins on true left join upd on true`,
    );
    if (!row) throw Errors.entryOrBonusActionNotFound();
    if (row.token_wrong) throw Errors.invalidEntryToken();
    if (row.token_missing) throw Errors.entryTokenRequired();
    if (row.unconfirmed) throw Errors.signupNotConfirmed();
    if (row.disqualified) throw Errors.entryDisqualified();
    if (!row.is_open) throw Errors.contestNotActive();
    if (row.completion_id) {
      const pointsAdded = num(row.points_awarded);
      return {
        alreadyCompleted: false,
        completedAt: iso(row.completed_at)!,
        pointsAdded,
        newTotalPoints: num(row.new_total),
        message:
          row.completion_status === 'pending'
            ? 'Bonus action submitted: points are added once it is verified'
            : pointsAdded > 0
              ? `Bonus action completed: ${pointsAdded} points added`
              : 'Bonus action completed',
      };
    }
    if (row.prev_completed_at) {
      return {
        alreadyCompleted: true,
        completedAt: iso(row.prev_completed_at)!,
        message: 'Bonus action already completed',
      };
    }
    // completed by a concurrent request this statement's snapshot predates: read again
  }
  throw new Error('completeBonusAction: completion neither inserted nor found after retries');
}

export interface VerifyResult {
  completionStatus: 'verified' | 'rejected';
  pointsAdded: number;
  newTotalPoints: number;
}

/**
 * A private key's decision on a pending (manual) completion: `approve` turns it verified and adds
 * the action's points once (ledger row); otherwise rejected, no points, and the entry may
 * complete the action again. One statement; the completion row is locked, so two decisions
 * never both apply (the second finds nothing pending: 409 No pending completion).
 */
export async function verifyBonusCompletion(
  db: Db,
  team: Team,
  entryId: string,
  bonusActionId: string,
  approve: boolean,
  now: Date,
): Promise<VerifyResult> {
  if (!isUuid(entryId) || !isUuid(bonusActionId)) throw Errors.entryOrBonusActionNotFound();
  const t = now.toISOString();
  const row = await queryOne<{
    found: boolean;
    completion_id: string | null;
    status: string | null;
    points_awarded: number | null;
    new_total: number | null;
  }>(
    db,
    sql`with ${team.cte} x as (
          select e.id as entry_id, e.contest_id, e.points, ba.id as action_id, ba.points as action_points, ba.action
          from entries e
          join contests c on c.id = e.contest_id
          join bonus_actions ba on ba.contest_id = e.contest_id
          where e.id = ${entryId} and ba.id = ${bonusActionId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
        ), p as (
          select bc.id, x.* from bonus_completions bc join x on bc.entry_id = x.entry_id and bc.bonus_action_id = x.action_id
          where bc.status = 'pending'
          for update of bc
        ), e as (
          select e.id, e.points from entries e join p on e.id = p.entry_id for update of e
        ), u as (
          update bonus_completions bc set
            status = case when ${approve}::boolean then 'verified' else 'rejected' end,
            points_awarded = case when ${approve}::boolean
              then least(p.action_points::bigint, ${MAX_POINTS_TOTAL}::bigint - (select points from e))::int else 0 end
          from p where bc.id = p.id and bc.status = 'pending'
          returning bc.id, bc.entry_id, bc.status, bc.points_awarded
        ), ${sqlCreditCompletion('u', 'p', t)}
        select exists (select 1 from x) as found, u.id as completion_id, u.status, u.points_awarded,
          coalesce((select points from upd), (select points from e), (select points from x)) as new_total
          ${sqlRewardsMay(sql`(select contest_id from x)`)}
        from (select 1) one left join u on true`,
  );
  if (!row?.found) throw Errors.entryOrBonusActionNotFound();
  if (!row.completion_id) throw Errors.noPendingCompletion();
  return {
    completionStatus: row.status as 'verified' | 'rejected',
    pointsAdded: num(row.points_awarded),
    newTotalPoints: num(row.new_total),
  };
}
