import { createEntrySchema, parseEntryBody } from './entries.js';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, num, pgError, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { newReferralCode } from '../lib/codes.js';
import { newConfirmation } from '../sql/confirmation.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlClampedTotal } from '../sql/points.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlEntryEventData } from '../sql/events.js';
import { hashEntryIp, hashUserAgent, RISK_REFUSED_SQLSTATE, riskInputSchema, sqlRiskCtes } from '../sql/risk.js';
import { sqlNotErased } from '../sql/scope.js';
import { type SqlEmail, sqlQueueEmail, sqlRewardsMay } from '../sql/outbox.js';
import { sqlPosition } from '../sql/positions.js';
import { sqlMailboxWindow } from '../sql/mailbox.js';

export interface CreateEntryInput {
  email?: string;
  phone?: string;
  name?: string;
  referralCode?: string;
  customFieldData?: Record<string, unknown>;
  /** the participant's IP address and user agent as the team's server saw them (risk signals; stored only as salted hashes) */
  ipAddress?: string | null;
  userAgent?: string | null;
}

/**
 * A sign-up (POST /contests/:id/signup, src/signups/): refused unless the contest takes public
 * sign-ups, consent checked against the contest's consentText and kept, a token for the visitor,
 * and for an email already entered a fresh token mailed to its owner instead of any detail.
 */
export interface SignupOptions {
  /** the email must be confirmed before the entry counts, whatever the contest says (public keys) */
  forceConfirmation: boolean;
  /** the visitor agreed to the contest's consentText */
  consent: boolean;
  /** a bot-check token came and siteverify accepted it (a contest with botCheck "turnstile" needs it) */
  botChecked: boolean;
  /** the answer when the contest needs the bot check and it did not pass (403, or 503 when siteverify was unreachable) */
  botCheckError?: Error;
  /** SHA-256 of the new entry's token */
  tokenHash: string;
  /** an email already entered: a new token for its owner and the email that carries it */
  statusLink: { tokenHash: string; mail: (p: { title: SQL; name: SQL; position?: SQL }) => SqlEmail };
}

export interface CreateEntryResult {
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
  /** sign-ups: whether the email must be confirmed, and the entry's position (null while it does not count) */
  signup?: { confirmationRequired: boolean; position: number | null };
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
  signup_closed?: boolean;
  consent_missing?: boolean;
  bot_check_failed?: boolean;
  new_confirmation_required?: boolean;
  new_position?: number | string | null;
  status_mails?: number | string;
}

const MAX_CREATE_ATTEMPTS = 8;

/**
 * Creates an entry, or finds the one with the same email (phone for phone-only entries) in
 * the contest. Throws Errors.contestNotFound() when the contest is not the team's,
 * Errors.contestNotActive() when it is not open, Errors.emailOrPhoneRequired() when both are
 * missing, a 400 naming the field for invalid input.
 *
 * One statement: contest check, dedupe (`on conflict do nothing`), referral lookup in the same
 * contest (the referrer's row locked), the referrer's new total, the ledger rows of both sides
 * and the confirmation email in the outbox. A statement that inserted nothing and found no
 * existing entry lost a race to a concurrent insert of the same email (its snapshot predates
 * it) or hit a referral-code collision: it runs again with a fresh snapshot and code.
 */
export async function createEntry(
  db: Db,
  ctx: {
    now: Date;
    random: RandomSource;
    publicUrl: string;
    ipHashSalt?: () => Promise<string>;
    /** how the entry comes, when not through the API or a sign-up: an inbound webhook */
    source?: 'webhook';
  },
  contest: { id: string; team: Team },
  input: CreateEntryInput,
  signup?: SignupOptions,
): Promise<CreateEntryResult> {
  const {
    email = null,
    phone = null,
    name = null,
    referralCode = null,
    customFieldData = null,
  } = parseEntryBody(createEntrySchema, input);
  const { ipAddress = null, userAgent = null } = parseEntryBody(riskInputSchema, {
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
  });
  if (!email && !phone) throw Errors.emailOrPhoneRequired();
  if (!isUuid(contest.id)) throw Errors.contestNotFound();
  const now = ctx.now.toISOString();
  const custom = customFieldData === null ? null : JSON.stringify(customFieldData);
  // the salt is read only when there is something to hash (on the Worker, the first time per isolate)
  const salt = ipAddress || userAgent ? ((await ctx.ipHashSalt?.()) ?? '') : '';
  const ipHash = ipAddress ? await hashEntryIp(salt, ipAddress) : null;
  const uaHash = userAgent ? await hashUserAgent(salt, userAgent) : null;
  const hourAgo = new Date(ctx.now.getTime() - 3_600_000).toISOString();
  const source = signup ? 'signup' : (ctx.source ?? 'api');

  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const code = newReferralCode(ctx.random);
    const confirmation = email ? await newConfirmation(ctx.random, ctx.publicUrl) : null;
    const mail = confirmation?.content({ title: sql`c.title`, name: sql`${name}::text` });
    const s = signupSql(signup, ctx.now, now);
    let row: CreateRow | undefined;
    try {
      row = await queryOne<CreateRow>(
        db,
        sql`with ${contest.team.cte} c as (
            select c.id, c.team_id, c.title, ${s.requireConfirmation},
              c.referral_advocate_points, c.referral_friend_points, ${s.isOpen} as is_open,
              c.referral_credit_on, c.risk_mode, c.risk_max_entries_per_ip_per_hour, c.risk_max_referrals_per_hour${s.contestColumns}
            from contests c where c.id = ${contest.id} and c.team_id = ${contest.team.id}
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
          ), ${sqlRiskCtes({ contest: 'c', existing: 'existing', referrer: 'ref' }, { email, ipHash, now, hourAgo, creditOnConfirm: signup?.forceConfirmation })} ins as (
            insert into entries (contest_id, email, phone, name, referral_code, referred_by, points,
              email_confirmed, confirmed_at, confirmation_token_hash, custom_field_data, created_at, updated_at,
              ip_hash, user_agent_hash, risk_level, risk_reasons, source${s.insertColumns})
            select c.id, ${email}::text, ${phone}::text, ${name}::text, ${code}::text, ref.id,
              case when ref.id is null or risk.deferred then 0 else c.referral_friend_points end,
              not c.require_email_confirmation,
              case when c.require_email_confirmation then null else ${now}::timestamptz end,
              case when c.require_email_confirmation then ${confirmation?.tokenHash ?? null}::text end,
              ${custom}::jsonb, ${now}::timestamptz, ${now}::timestamptz,
              ${ipHash}::text, ${uaHash}::text, risk.level, risk.reasons, ${source}::text${s.insertValues}
            from c left join ref on true cross join risk
            where c.is_open and not exists (select 1 from existing)
              and ce_risk_gate(c.is_open and not exists (select 1 from existing) and c.risk_mode = 'block' and risk.level = 'high')
            on conflict do nothing
            returning id, email, referred_by, points, confirmation_token_hash, referral_code, risk_level, ${sqlEntryEventData('entries')} as ev_data${s.returning}
          ), ${s.ctes}adv as (
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
                    from: sql`ins, c where ins.confirmation_token_hash is not null${s.mailAllowed}`,
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
            ${sqlEventDeliveries('ev_entry', 'ev_ref', 'ev_flagged')}${sqlRewardsMay(sql`(select id from c)`)}${s.select}
          from (select 1) one left join ins on true left join existing on true`,
      );
    } catch (e) {
      if (pgError(e)?.code === RISK_REFUSED_SQLSTATE) throw Errors.entryRefusedByRisk();
      throw e;
    }
    if (!row?.contest_found) throw Errors.contestNotFound();
    if (row.signup_closed) throw Errors.signupClosed();
    if (row.bot_check_failed) throw signup?.botCheckError ?? Errors.botCheckFailed();
    if (row.consent_missing) throw Errors.consentRequired();
    if (!row.is_open) throw Errors.contestNotActive();
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
        ...(signup
          ? {
              signup: {
                confirmationRequired: row.new_confirmation_required === true,
                position: row.new_position === null || row.new_position === undefined ? null : num(row.new_position),
              },
            }
          : {}),
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
        // a sign-up for an email already entered mails its owner a fresh link (at most one per 10 minutes)
        emailQueued: num(row.mails) + num(row.status_mails) > 0,
      };
    }
    // lost a race to a concurrent insert of the same entry, or a referral-code collision: run again
  }
  throw new Error('createEntry: no entry created or found after retries');
}

// ---------------------------------------------------------------- what a sign-up adds

/**
 * The parts a sign-up adds to the create statement (empty for every other create, whose text
 * stays as it was). The contest must take public sign-ups and, with a consentText, the visitor
 * must have agreed (else nothing is written and the answer says which); the entry keeps when and
 * the SHA-256 of the text; its token is stored; for an email already entered, its owner gets a
 * fresh token by email when the contest has a landing page, at most once per 10 minutes.
 */
function signupSql(signup: SignupOptions | undefined, at: Date, now: string) {
  const open = sqlContestOpen(at, 'c');
  if (!signup) {
    const none = sql``;
    return {
      requireConfirmation: sql`c.require_email_confirmation`,
      isOpen: open,
      contestColumns: none,
      insertColumns: none,
      insertValues: none,
      returning: none,
      ctes: none,
      select: none,
      mailAllowed: none,
    };
  }
  const link = signup.statusLink.mail({ title: sql`c.title`, name: sql`sl.name`, position: sql`sl.position` });
  return {
    requireConfirmation: signup.forceConfirmation
      ? sql`true as require_email_confirmation`
      : sql`c.require_email_confirmation`,
    isOpen: sql`(${open} and c.public_signup and (c.bot_check = 'off' or ${signup.botChecked}::boolean)
              and (c.consent_text is null or ${signup.consent}::boolean))`,
    contestColumns: sql`, not c.public_signup as signup_closed,
              (c.public_signup and c.bot_check = 'turnstile' and not ${signup.botChecked}::boolean) as bot_check_failed,
              (c.public_signup and c.consent_text is not null and not ${signup.consent}::boolean) as consent_missing,
              c.consent_text, c.landing_url`,
    insertColumns: sql`, consented_at, consent_text_sha256`,
    insertValues: sql`,
              case when c.consent_text is not null then ${now}::timestamptz end,
              case when c.consent_text is not null then encode(sha256(convert_to(c.consent_text, 'UTF8')), 'hex') end`,
    returning: sql`, contest_id, created_at, email_confirmed, disqualified, erased_at, admitted_at`,
    ctes: sql`tok as (
            insert into entry_tokens (token_hash, entry_id, kind, created_at)
            select ${signup.tokenHash}, ins.id, 'answer', ${now}::timestamptz from ins
            returning 1
          ), ${sqlMailboxWindow({ contest: 'c', entry: 'ins' }, at)} sl as (
            update entries e set status_link_sent_at = ${now}::timestamptz
            from existing, c
            where e.id = existing.id and c.landing_url is not null and e.email is not null and e.erased_at is null
              and (e.status_link_sent_at is null or e.status_link_sent_at <= ${now}::timestamptz - interval '10 minutes')
            returning e.id, e.email, e.name, ${sqlPosition('e')} as position
          ), sl_tok as (
            insert into entry_tokens (token_hash, entry_id, created_at)
            select ${signup.statusLink.tokenHash}, sl.id, ${now}::timestamptz from sl
            returning 1
          ), sl_mail as (
            ${sqlQueueEmail('status_link', link, now, { teamId: sql`c.team_id`, contestId: sql`c.id`, to: sql`sl.email`, from: sql`sl, c` })}
          ), `,
    select: sql`,
            coalesce((select signup_closed from c), false) as signup_closed,
            coalesce((select consent_missing from c), false) as consent_missing,
            coalesce((select bot_check_failed from c), false) as bot_check_failed,
            (select require_email_confirmation from c) as new_confirmation_required,
            (select ${sqlPosition('ins')} from ins) as new_position,
            (select count(*) from sl_mail) as status_mails`,
    mailAllowed: sql` and exists (select 1 from mailbox)`,
  };
}
