/**
 * The entry create statement, shared by the ways an entry is made. Three statements insert into
 * `entries`, and this is their contract:
 * - entry create (API and inbound webhooks, src/entries/create.ts): this statement as it is
 *   (`noExtension`);
 * - the sign-up from a page (src/signups/signup.ts): this statement with an `EntryCreateExtension`
 *   (the public-signup, consent and bot checks, the entry token, the "your link" email);
 * - the instant-win claim (src/instant-win/claim.ts): its own insert (an entry made by a claimed
 *   prize: no referral, no confirmation), sharing this floor's fragments: the risk CTEs
 *   (sqlRiskCtes), the entry's event data (sqlEntryEventData), events (sqlEmitEvent) and the
 *   outbox (sqlQueueEmail).
 * Every one of them writes `source`, the risk level and reasons, and its events in the same
 * statement; a fourth insert is added here first.
 *
 * One statement: contest check, dedupe (`on conflict do nothing`), referral lookup in the same
 * contest (the referrer's row locked), the referrer's new total, the ledger rows of both sides,
 * the events and the confirmation email in the outbox. A statement that inserted nothing and
 * found no existing entry lost a race to a concurrent insert of the same email (its snapshot
 * predates it) or hit a referral-code collision: it runs again with a fresh snapshot and code.
 *
 * The contract with a caller that adds to it (an `EntryCreateExtension<Row>`): the statement's CTEs
 * it may read are `c` (the contest: id, team_id, title, landing_url, the referral and risk
 * columns, and what `contestColumns` adds), `existing` (the entry of the same email or phone:
 * id, email, referred_by, referral_code), `ref` (the referrer), `risk` and `ins` (the new entry:
 * what `returning` names); the CTEs it adds come after `ins`, and its columns of the final
 * select after the shared ones, typed by its `Row` (what `refuse` and the result's `row` are).
 * The referral (ref, adv, ledger), the events and the outbox (sqlQueueEmail) are this file's; an
 * extension never writes them again.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, num, pgError, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { newReferralCode } from '../lib/codes.js';
import { newConfirmation } from './confirmation.js';
import { sqlContestOpen } from './contests.js';
import { sqlEmitEvent, sqlEntryEventData, sqlEventDeliveries } from './events.js';
import { sqlQueueEmail, sqlRewardsMay } from './outbox.js';
import { sqlClampedTotal } from './points.js';
import { hashEntryIp, hashUserAgent, RISK_REFUSED_SQLSTATE, sqlRiskCtes } from './risk.js';
import { sqlNotErased } from './scope.js';

/** An entry's fields, validated (src/entries/entries.ts), and the risk signals of its creator. */
export interface EntryCreateInput {
  email: string | null;
  phone: string | null;
  name: string | null;
  referralCode: string | null;
  customFieldData: Record<string, unknown> | null;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface EntryCreateContext {
  now: Date;
  random: RandomSource;
  publicUrl: string;
  ipHashSalt?: () => Promise<string>;
  /** entries.source: 'api', 'webhook' or 'signup' */
  source: 'api' | 'webhook' | 'signup';
}

/**
 * What a caller adds to the statement (see the contract above). Every part is SQL text spliced
 * at its place; `none` adds nothing, and the statement's text is then the plain entry create.
 */
// biome-ignore lint/complexity/noBannedTypes: an extension that selects nothing adds no column
type NoColumns = {};

export interface EntryCreateExtension<Row extends object = NoColumns> {
  /** the contest's `require_email_confirmation` column of `c` (as that name) */
  requireConfirmation: SQL;
  /** whether the entry may be made (`c.is_open`) */
  isOpen: SQL;
  /** more columns of `c`, each after a comma */
  contestColumns: SQL;
  /** joined to the contest row in `c` (a lateral computed once, that isOpen and contestColumns name) */
  contestJoin?: SQL;
  /** more columns of the entries insert, and their values (each after a comma) */
  insertColumns: SQL;
  insertValues: SQL;
  /** more columns `ins` returns, each after a comma */
  returning: SQL;
  /** more CTEs after `ins`, each followed by a comma */
  ctes: SQL;
  /** more columns of the answer, each after a comma */
  select: SQL;
  /** a condition added to the confirmation email's (after `and`) */
  mailAllowed: SQL;
  /** referral points wait for the email's confirmation, whatever the contest says */
  creditOnConfirm?: boolean;
  /** the confirmation email leaves out the entry's name (`{{name}}` of a team's text: "there"): a stranger typed it */
  mailWithoutName?: boolean;
  /** called with the answer's row before the contest's openness is checked: throws what the extension refuses */
  refuse?: (row: Row) => void;
}

/** The statement as entry create makes it: nothing added. */
export function noExtension(at: Date): EntryCreateExtension {
  const none = sql``;
  return {
    requireConfirmation: sql`c.require_email_confirmation`,
    isOpen: sqlContestOpen(at, 'c'),
    contestColumns: none,
    insertColumns: none,
    insertValues: none,
    returning: none,
    ctes: none,
    select: none,
    mailAllowed: none,
  };
}

export interface EntryCreateResult<Row extends object = NoColumns> {
  status: 200 | 201;
  data: {
    entryId: string;
    email: string | null;
    /** the entry's own code: what its share link carries */
    referralCode: string;
    alreadyExists: boolean;
    isReferred: boolean;
    pointsAwarded: { advocate: number; friend: number };
    /** referral points deferred (referral.creditOn "confirm") or held for review (risk.mode "hold") */
    pointsPending?: { advocate: number; friend: number };
  };
  /** true when a confirmation email was queued (the route then calls triggerEmailDelivery) */
  emailQueued: boolean;
  /** the columns the extension added to the answer */
  row: Row;
}

interface CreateRow {
  contest_found: boolean;
  is_open: boolean;
  new_id: string | null;
  new_email: string | null;
  new_referred_by: string | null;
  friend_points: number | null;
  advocate_points: number | null;
  mails: number | string;
  existing_id: string | null;
  existing_email: string | null;
  existing_referred_by: string | null;
  new_referral_code: string | null;
  existing_referral_code: string | null;
  deferred: boolean | null;
  pending_friend: number | string | null;
  pending_advocate: number | string | null;
}

const MAX_CREATE_ATTEMPTS = 8;

/**
 * Creates the entry, or finds the one with the same email (phone for phone-only entries) in the
 * contest. Throws Errors.contestNotFound() when the contest is not the team's, what the
 * extension refuses, Errors.contestNotActive() when it is not open, Errors.entryRefusedByRisk()
 * when the risk rules block it.
 */
export async function runEntryCreate<Row extends object = NoColumns>(
  db: Db,
  ctx: EntryCreateContext,
  contest: { id: string; team: Team },
  input: EntryCreateInput,
  ext: EntryCreateExtension<Row>,
): Promise<EntryCreateResult<Row>> {
  const { email, phone, name, referralCode, customFieldData, ipAddress, userAgent } = input;
  const now = ctx.now.toISOString();
  const custom = customFieldData === null ? null : JSON.stringify(customFieldData);
  // the salt is read only when there is something to hash (on the Worker, the first time per isolate)
  const salt = ipAddress || userAgent ? ((await ctx.ipHashSalt?.()) ?? '') : '';
  const ipHash = ipAddress ? await hashEntryIp(salt, ipAddress) : null;
  const uaHash = userAgent ? await hashUserAgent(salt, userAgent) : null;
  const source = ctx.source;

  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const code = newReferralCode(ctx.random);
    const confirmation = email ? await newConfirmation(ctx.random, ctx.publicUrl) : null;
    const mail = confirmation?.content({
      title: sql`c.title`,
      name: ext.mailWithoutName ? sql`null::text` : sql`${name}::text`,
    });
    let row: (CreateRow & Row) | undefined;
    try {
      row = await queryOne<CreateRow & Row>(
        db,
        sql`with ${contest.team.cte} c as (
            select c.id, c.team_id, c.title, ${ext.requireConfirmation},
              c.referral_advocate_points, c.referral_friend_points, ${ext.isOpen} as is_open,
              c.referral_credit_on, c.risk_mode, c.risk_max_entries_per_ip_per_hour, c.risk_max_referrals_per_hour${ext.contestColumns}
            from contests c${ext.contestJoin ?? sql``} where c.id = ${contest.id} and c.team_id = ${contest.team.id}
          ), existing as (
            -- two arms, each answered by its own partial unique index whatever the values: as one
            -- OR over the parameters, a cached generic plan (node-postgres prepares statements)
            -- could use neither and read the whole table (143 ms at 1M entries)
            select e.id, e.email, e.referred_by, e.referral_code from entries e join c on e.contest_id = c.id
            where e.contest_id = ${contest.id}::uuid and e.email = ${email}::text
            union all
            select e.id, e.email, e.referred_by, e.referral_code from entries e join c on e.contest_id = c.id
            where e.contest_id = ${contest.id}::uuid and ${email}::text is null and e.email is null and e.phone = ${phone}::text
          ), ref as (
            select e.id, e.points, e.email_norm, e.ip_hash from entries e join c on e.contest_id = c.id
            where ${referralCode}::text is not null and e.referral_code = ${referralCode}::text and ${sqlNotErased('e')}
              and c.is_open and not exists (select 1 from existing)
            for update of e
          ), ${sqlRiskCtes({ contest: 'c', existing: 'existing', referrer: 'ref' }, { email, ipHash, now, creditOnConfirm: ext.creditOnConfirm })} ins as (
            insert into entries (contest_id, email, phone, name, referral_code, referred_by, points,
              email_confirmed, confirmed_at, confirmation_token_hash, custom_field_data, created_at, updated_at,
              ip_hash, user_agent_hash, risk_level, risk_reasons, source${ext.insertColumns})
            select c.id, ${email}::text, ${phone}::text, ${name}::text, ${code}::text, ref.id,
              case when ref.id is null or risk.deferred then 0 else c.referral_friend_points end,
              not c.require_email_confirmation,
              case when c.require_email_confirmation then null else ${now}::timestamptz end,
              case when c.require_email_confirmation then ${confirmation?.tokenHash ?? null}::text end,
              ${custom}::jsonb, ${now}::timestamptz, ${now}::timestamptz,
              ${ipHash}::text, ${uaHash}::text, risk.level, risk.reasons, ${source}::text${ext.insertValues}
            from c left join ref on true cross join risk
            where c.is_open and not exists (select 1 from existing)
              and ce_risk_gate(c.is_open and not exists (select 1 from existing) and c.risk_mode = 'block' and risk.level = 'high')
            on conflict do nothing
            returning id, email, referred_by, points, confirmation_token_hash, referral_code, risk_level, ${sqlEntryEventData('entries')} as ev_data${ext.returning}
          ), ${ext.ctes}adv as (
            update entries e set points = ${sqlClampedTotal(sql`ref.points`, sql`c.referral_advocate_points`)},
              updated_at = ${now}::timestamptz
            from ref, c, ins, risk
            where e.id = ref.id and ins.referred_by = ref.id and c.referral_advocate_points > 0 and not risk.deferred
            returning e.id, e.points - ref.points as delta
          ), ledger as (
            insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at,
              status, held_for, wait_confirm, wait_review)
            select ins.id, c.id, ins.points, c.referral_friend_points, 'referral', 'Joined with a referral code',
              ins.referred_by::text, ${now}::timestamptz, 'applied', null::uuid, false, false
            from ins, c where ins.referred_by is not null and ins.points > 0
            union all
            select adv.id, c.id, adv.delta, c.referral_advocate_points, 'referral', 'Referred a new entry',
              ins.id::text, ${now}::timestamptz, 'applied', null::uuid, false, false
            from adv, ins, c
            union all
            -- deferred referral points: pending rows (delta 0) released by the confirmation and/or the review
            select p.entry_id, c.id, 0, p.points, 'referral', p.reason, p.ref_id, ${now}::timestamptz,
              'pending', ins.id, risk.wait_confirm, risk.wait_review
            from ins, c, risk, lateral (values
              (ins.id, c.referral_friend_points, 'Joined with a referral code', ins.referred_by::text),
              (ins.referred_by, c.referral_advocate_points, 'Referred a new entry', ins.id::text)
            ) p(entry_id, points, reason, ref_id)
            where ins.referred_by is not null and risk.deferred and p.points > 0
            returning entry_id, requested_delta, status
          ), ${sqlEmitEvent('ev_entry', 'entry.created', sql`select c.team_id, c.id as contest_id, ins.ev_data as data from ins, c`, now)},
          ${sqlEmitEvent(
            'ev_ref',
            'referral.credited',
            sql`select c.team_id, c.id as contest_id, json_build_object('advocateEntryId', ins.referred_by,
            'friendEntryId', ins.id, 'contestId', c.id, 'advocatePoints', coalesce((select delta from adv), 0), 'friendPoints', ins.points) as data
            from ins, c where ins.referred_by is not null`,
            now,
          )},
          ${sqlEmitEvent('ev_flagged', 'entry.flagged', sql`select c.team_id, c.id as contest_id, ins.ev_data as data from ins, c where ins.risk_level <> 'none'`, now)},
          mail as (
            ${
              mail
                ? sqlQueueEmail('confirmation', mail, now, {
                    teamId: sql`c.team_id`,
                    contestId: sql`c.id`,
                    to: sql`ins.email`,
                    from: sql`ins, c where ins.confirmation_token_hash is not null${ext.mailAllowed}`,
                  })
                : sql`select null::uuid as id where false`
            }
          )
          select exists (select 1 from c) as contest_found,
            coalesce((select is_open from c), false) as is_open,
            ins.id as new_id, ins.email as new_email, ins.referred_by as new_referred_by, ins.points as friend_points,
            ins.referral_code as new_referral_code, existing.referral_code as existing_referral_code,
            (select delta from adv) as advocate_points,
            (select count(*) from mail) as mails,
            (select deferred from risk) as deferred,
            (select sum(requested_delta) from ledger l where l.status = 'pending' and l.entry_id = ins.id) as pending_friend,
            (select sum(requested_delta) from ledger l where l.status = 'pending' and l.entry_id = ins.referred_by) as pending_advocate,
            existing.id as existing_id, existing.email as existing_email, existing.referred_by as existing_referred_by,
            ${sqlEventDeliveries('ev_entry', 'ev_ref', 'ev_flagged')}${sqlRewardsMay(sql`(select id from c)`)}${ext.select}
          from (select 1) one left join ins on true left join existing on true`,
      );
    } catch (e) {
      if (pgError(e)?.code === RISK_REFUSED_SQLSTATE) throw Errors.entryRefusedByRisk();
      throw e;
    }
    if (!row?.contest_found) throw Errors.contestNotFound();
    ext.refuse?.(row);
    if (!row.is_open) throw Errors.contestNotActive();
    const all: Row = row;
    if (row.new_id) {
      const referred = row.new_referred_by !== null;
      const deferred = referred && row.deferred === true;
      return {
        status: 201,
        data: {
          entryId: row.new_id,
          email: row.new_email,
          referralCode: row.new_referral_code!,
          alreadyExists: false,
          isReferred: referred,
          pointsAwarded: {
            advocate: referred ? num(row.advocate_points) : 0,
            friend: referred ? num(row.friend_points) : 0,
          },
          ...(deferred
            ? { pointsPending: { advocate: num(row.pending_advocate), friend: num(row.pending_friend) } }
            : {}),
        },
        emailQueued: num(row.mails) > 0,
        row: all,
      };
    }
    if (row.existing_id) {
      return {
        status: 200,
        data: {
          entryId: row.existing_id,
          email: row.existing_email,
          referralCode: row.existing_referral_code!,
          alreadyExists: true,
          isReferred: row.existing_referred_by !== null,
          pointsAwarded: { advocate: 0, friend: 0 },
        },
        emailQueued: num(row.mails) > 0,
        row: all,
      };
    }
    // lost a race to a concurrent insert of the same entry, or a referral-code collision: run again
  }
  throw new Error('createEntry: no entry created or found after retries');
}
