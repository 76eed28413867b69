/**
 * Entries: create (dedupe, referral, confirmation email), list, detail, update, disqualify.
 *
 * Every state change is ONE SQL statement (data-modifying CTEs): correctness under concurrency
 * comes from the unique indexes (email per contest, phone per contest for phone-only entries,
 * referral codes), `on conflict do nothing` and row locks taken inside the statement, never
 * from reading in JavaScript first.
 */
import { type SQL, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { type Db, num, pgError, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { assertStorableStrings, emailSchema, issueToError, jsonDepth } from '../lib/validation.js';
import { isUuid } from '../lib/crypto.js';
import { newReferralCode } from '../lib/codes.js';
import { newConfirmation } from '../sql/confirmation.js';
import { sqlContestOpen } from '../sql/contests.js';
import { sqlClampedTotal } from '../sql/points.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlEntryEventData } from '../sql/events.js';
import { entryListJson, type EntryListItem, type EntryRow, listColumns } from './entry-detail.js';
import { sqlMasked } from '../sql/masking.js';
import { hashEntryIp, hashUserAgent, RISK_REFUSED_SQLSTATE, riskInputSchema, sqlRiskCtes } from '../sql/risk.js';

// ---------------------------------------------------------------- input rules

export const NAME_MAX = 200;
export { EMAIL_MAX } from '../lib/email.js';
export const REFERRAL_CODE_MAX = 100;
/** customFieldData: at most this many bytes as UTF-8 JSON, and this many levels of nesting */
export const CUSTOM_FIELDS_MAX_BYTES = 16_384;
export const CUSTOM_FIELDS_MAX_DEPTH = 10;
export const SEARCH_MAX = 200;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const blankToNull = (s: string) => (s === '' ? null : s);

/** An optional single-line text: trimmed, bounded, no control characters; '' and null read as null. */
const optionalText = (field: string, max: number) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.string(`Invalid ${field}`),
        v.trim(),
        v.maxLength(max, `${field} must be at most ${max} characters`),
        v.check((s) => !CONTROL_CHARS.test(s), `${field} must not contain control characters`),
        v.transform(blankToNull),
      ),
    ),
  );

/** The shared email normal form (src/lib/email.ts); '' and null read as null. */
const optionalEmail = v.optional(
  v.nullable(v.pipe(v.string('Invalid email'), v.trim(), v.transform(blankToNull), v.nullable(emailSchema))),
);

/** Digits with an optional leading +; spaces, dots, dashes and parentheses are dropped. */
const optionalPhone = v.optional(
  v.nullable(
    v.pipe(
      v.string('Invalid phone'),
      v.maxLength(64, 'Invalid phone'),
      v.transform((s) => s.replace(/[\s().-]/g, '')),
      v.transform(blankToNull),
      v.nullable(v.pipe(v.string(), v.regex(/^\+?[0-9]{4,20}$/, 'Invalid phone'))),
    ),
  ),
);

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Any JSON object, at most CUSTOM_FIELDS_MAX_DEPTH levels deep (the object itself is level 1;
 * checked first and without recursion, so a body nested thousands of levels is a plain 400) and
 * at most CUSTOM_FIELDS_MAX_BYTES of UTF-8 JSON, with no string Postgres cannot store; null
 * reads as null (clears on update).
 */
const optionalCustomFields = v.optional(
  v.nullable(
    v.pipe(
      v.custom<Record<string, unknown>>(isPlainObject, 'customFieldData must be an object'),
      // one check, in this order: valibot runs every check of a pipe, and JSON.stringify must
      // never see a value nested deeper than the limit
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const o = dataset.value;
        if (jsonDepth(o, CUSTOM_FIELDS_MAX_DEPTH) > CUSTOM_FIELDS_MAX_DEPTH) {
          addIssue({ message: `customFieldData must be at most ${CUSTOM_FIELDS_MAX_DEPTH} levels deep` });
        } else if (new TextEncoder().encode(JSON.stringify(o)).byteLength > CUSTOM_FIELDS_MAX_BYTES) {
          addIssue({ message: `customFieldData must be at most ${CUSTOM_FIELDS_MAX_BYTES} bytes as JSON` });
        } else {
          try {
            assertStorableStrings(o, ['customFieldData']);
          } catch (e) {
            addIssue({ message: (e as Error).message });
          }
        }
      }),
    ),
  ),
);

export const entryFields = {
  email: optionalEmail,
  phone: optionalPhone,
  name: optionalText('name', NAME_MAX),
  customFieldData: optionalCustomFields,
};

/** Body of POST /contests/:id/entries (unknown fields are dropped). */
export const createEntrySchema = v.object({
  ...entryFields,
  referralCode: optionalText('referralCode', REFERRAL_CODE_MAX),
});

/** Body of PUT /entries/:id: any of the fields; null clears name, phone, customFieldData (and email when a phone remains). */
export const updateEntrySchema = v.object(entryFields);

function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input ?? {});
  if (!r.success) throw issueToError(r.issues as unknown as Parameters<typeof issueToError>[0]);
  return r.output;
}

// ---------------------------------------------------------------- create

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
  ctx: { now: Date; random: RandomSource; publicUrl: string; ipHashSalt?: string },
  contest: { id: string; team: Team },
  input: CreateEntryInput,
): Promise<CreateEntryResult> {
  const {
    email = null,
    phone = null,
    name = null,
    referralCode = null,
    customFieldData = null,
  } = parse(createEntrySchema, input);
  const { ipAddress = null, userAgent = null } = parse(riskInputSchema, {
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
  });
  if (!email && !phone) throw Errors.emailOrPhoneRequired();
  if (!isUuid(contest.id)) throw Errors.contestNotFound();
  const now = ctx.now.toISOString();
  const custom = customFieldData === null ? null : JSON.stringify(customFieldData);
  const salt = ctx.ipHashSalt ?? '';
  const ipHash = ipAddress ? await hashEntryIp(salt, ipAddress) : null;
  const uaHash = userAgent ? await hashUserAgent(salt, userAgent) : null;
  const hourAgo = new Date(ctx.now.getTime() - 3_600_000).toISOString();

  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const code = newReferralCode(ctx.random);
    const confirmation = email ? await newConfirmation(ctx.random, ctx.publicUrl) : null;
    const mail = confirmation?.content({ title: sql`c.title`, name: sql`${name}::text` });
    let row: CreateRow | undefined;
    try {
      row = await queryOne<CreateRow>(
        db,
        sql`with ${contest.team.cte} c as (
            select c.id, c.team_id, c.title, c.require_email_confirmation,
              c.referral_advocate_points, c.referral_friend_points, ${sqlContestOpen(ctx.now, 'c')} as is_open,
              c.referral_credit_on, c.risk_mode, c.risk_max_entries_per_ip_per_hour, c.risk_max_referrals_per_hour
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
            where ${referralCode}::text is not null and e.referral_code = ${referralCode}::text and e.erased_at is null
              and c.is_open and not exists (select 1 from existing)
            for update of e
          ), ${sqlRiskCtes({ email, ipHash, now, hourAgo })} ins as (
            insert into entries (contest_id, email, phone, name, referral_code, referred_by, points,
              email_confirmed, confirmed_at, confirmation_token_hash, custom_field_data, created_at, updated_at,
              ip_hash, user_agent_hash, risk_level, risk_reasons)
            select c.id, ${email}::text, ${phone}::text, ${name}::text, ${code}::text, ref.id,
              case when ref.id is null or risk.deferred then 0 else c.referral_friend_points end,
              not c.require_email_confirmation,
              case when c.require_email_confirmation then null else ${now}::timestamptz end,
              case when c.require_email_confirmation then ${confirmation?.tokenHash ?? null}::text end,
              ${custom}::jsonb, ${now}::timestamptz, ${now}::timestamptz,
              ${ipHash}::text, ${uaHash}::text, risk.level, risk.reasons
            from c left join ref on true cross join risk
            where c.is_open and not exists (select 1 from existing)
              and ce_risk_gate(c.is_open and not exists (select 1 from existing) and c.risk_mode = 'block' and risk.level = 'high')
            on conflict do nothing
            returning id, email, referred_by, points, confirmation_token_hash, referral_code, risk_level, ${sqlEntryEventData('entries')} as ev_data
          ), adv as (
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
                ? sql`insert into email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
                      select c.team_id, c.id, ins.email, 'confirmation', ${mail.subject}, ${mail.text}, ${mail.html},
                        ${now}::timestamptz, ${now}::timestamptz
                      from ins, c where ins.confirmation_token_hash is not null
                      returning id`
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
            ${sqlEventDeliveries('ev_entry', 'ev_ref', 'ev_flagged')}
          from (select 1) one left join ins on true left join existing on true`,
      );
    } catch (e) {
      if (pgError(e)?.code === RISK_REFUSED_SQLSTATE) throw Errors.entryRefusedByRisk();
      throw e;
    }
    if (!row?.contest_found) throw Errors.contestNotFound();
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
        emailQueued: false,
      };
    }
    // lost a race to a concurrent insert of the same entry, or a referral-code collision: run again
  }
  throw new Error('createEntry: no entry created or found after retries');
}

// ---------------------------------------------------------------- read (the read model: entry-detail.ts)

export {
  entryDetailJson,
  entryDetailSql,
  entryListJson,
  getEntry,
  riskJson,
  type EntryDetail,
  type EntryListItem,
} from './entry-detail.js';

/** `%`, `_` and `\` taken literally in a LIKE pattern (escape character `\`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * A page of a contest's entries, newest first (or oldest first, or most points first). `search`:
 * case-insensitive substring of the email or the name, or a referral code exactly; for a masked
 * public key only a whole email or a referral code matches (no enumeration). `risk`: entries of exactly that risk level; `confirmed`,
 * `disqualified`, `referred`: that state; `reviewPending`: flagged and not reviewed yet. Throws
 * contestNotFound for another team's contest.
 */
export async function listEntries(
  db: Db,
  team: Team,
  contestId: string,
  opts: {
    limit: number;
    offset: number;
    search?: string | null;
    risk?: 'review' | 'high' | null;
    confirmed?: boolean | null;
    disqualified?: boolean | null;
    referred?: boolean | null;
    /** entries referred by this entry */
    referredBy?: string | null;
    /** flagged (level not none) and not reviewed yet: the review queue */
    reviewPending?: boolean;
    sort?: 'newest' | 'oldest' | 'points';
  },
): Promise<{ items: EntryListItem[]; total: number }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const search = opts.search?.trim() || null;
  const pattern = search === null ? null : `%${escapeLike(search)}%`;
  const risk = opts.risk ?? null;
  const conditions: SQL[] = [];
  if (risk !== null) conditions.push(sql`and e.risk_level = ${risk}::text`);
  if (opts.reviewPending) conditions.push(sql`and e.risk_level <> 'none' and e.risk_review is null`);
  // written out, not a parameter: a cached generic plan could not use the partial index of
  // unconfirmed entries for a value it does not know
  if (opts.confirmed != null)
    conditions.push(opts.confirmed ? sql`and e.email_confirmed` : sql`and not e.email_confirmed`);
  if (opts.disqualified != null) conditions.push(sql`and e.disqualified = ${opts.disqualified}::boolean`);
  if (opts.referred != null)
    conditions.push(opts.referred ? sql`and e.referred_by is not null` : sql`and e.referred_by is null`);
  if (opts.referredBy != null) conditions.push(sql`and e.referred_by = ${opts.referredBy}::uuid`);
  const riskFilter = sql.join(conditions, sql` `);
  const filtered = conditions.length > 0;
  const order =
    opts.sort === 'oldest'
      ? sql`e.created_at asc, e.id asc`
      : opts.sort === 'points'
        ? sql`e.points desc nulls last, e.created_at asc, e.id asc`
        : sql`e.created_at desc, e.id desc`;
  // without a search the total comes from contest_stats (exact, kept by triggers) and the page
  // from entries_contest_created_idx; with one, the trigram index finds the matches; a risk
  // filter reads entries_contest_risk_idx
  // one flag alone (confirmed or disqualified, either way) also takes its total from contest_stats,
  // which keeps both counts: counting 900,000 matching rows would take a second at 1M entries
  const flag =
    pattern === null && conditions.length === 1
      ? opts.confirmed != null
        ? { column: sql`confirmed`, entryColumn: sql`email_confirmed`, value: opts.confirmed }
        : opts.disqualified != null
          ? { column: sql`disqualified`, entryColumn: sql`disqualified`, value: opts.disqualified }
          : null
      : null;
  const total =
    pattern === null && !filtered
      ? sql`(select coalesce(sum(s.entries), 0) from contest_stats s where s.contest_id = ${contestId})
          - (select count(*) from entries x where x.contest_id = ${contestId} and x.erased_at is not null)`
      : flag !== null
        ? sql`(select coalesce(sum(${flag.value ? flag.column : sql`s.entries - s.${flag.column}`}), 0) from contest_stats s where s.contest_id = ${contestId})
            - (select count(*) from entries x where x.contest_id = ${contestId} and x.erased_at is not null
                 and x.${flag.entryColumn} = ${flag.value}::boolean)`
        : sql`(select count(*) from f)`;
  const rows = await query<EntryRow & { contest_found: boolean; total: number | string }>(
    db,
    sql`with ${team.cte} c as (select id from contests where id = ${contestId} and team_id = ${team.id}),
        f as (${
          pattern === null
            ? // the contest id as a constant too (not only through c): the planner then reads the
              // index whose order is the page's (entries_contest_points_idx for sort=points)
              // instead of joining the whole contest and sorting it
              sql`select e.* from entries e join c on e.contest_id = c.id and e.erased_at is null
                  where e.contest_id = ${contestId}::uuid ${riskFilter}`
            : // two arms, each with its own index, so the planner never has to choose between them:
              // entries_search_trgm_idx for a full key (its first condition is what that index
              // answers, the second the exact rule), entries_contest_email_uq for a masked key,
              // which matches whole emails only; the arm that does not apply stops at once
              sql`select e.* from entries e join c on e.contest_id = c.id and e.erased_at is null
                  where not ${sqlMasked(team)}
                    and (coalesce(e.email, '') || ' ' || coalesce(e.name, '')) ilike ${pattern}::text escape '\\'
                    and (e.email ilike ${pattern}::text escape '\\' or e.name ilike ${pattern}::text escape '\\') ${riskFilter}
                  union all
                  select e.* from entries e join c on e.contest_id = c.id and e.erased_at is null
                  where ${sqlMasked(team)} and e.email = ${search!.toLowerCase()}::text ${riskFilter}
                  union all
                  -- a referral code, exactly (entries_referral_code_uq), unless the first arm has the entry already
                  select e.* from entries e join c on e.contest_id = c.id and e.erased_at is null
                  where e.referral_code = ${search}::text
                    and (${sqlMasked(team)} or not (
                      (coalesce(e.email, '') || ' ' || coalesce(e.name, '')) ilike ${pattern}::text escape '\\'
                      and (e.email ilike ${pattern}::text escape '\\' or e.name ilike ${pattern}::text escape '\\'))) ${riskFilter}`
        })
        select exists (select 1 from c) as contest_found, ${total} as total, p.*
        from (select 1) one left join lateral (
          select ${listColumns(team)} from f e order by ${order} limit ${opts.limit} offset ${opts.offset}
        ) p on true`,
  );
  if (!rows[0]?.contest_found) throw Errors.contestNotFound();
  return { total: num(rows[0].total), items: rows.filter((r) => r.id !== null).map(entryListJson) };
}

export interface UpdateEntryInput {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  customFieldData?: Record<string, unknown> | null;
}

/**
 * Changes any of name, email, phone, customFieldData (replaced whole; null clears). One
 * statement; duplicates are refused by the unique indexes (409), an entry left with neither
 * email nor phone by the CHECK (400). A new email in a contest that requires confirmation makes
 * the entry unconfirmed again and queues a confirmation email to the new address.
 */
export async function updateEntry(
  db: Db,
  ctx: { now: Date; random: RandomSource; publicUrl: string },
  team: Team,
  entryId: string,
  input: UpdateEntryInput,
): Promise<{
  data: { id: string; email: string | null; name: string | null; phone: string | null; points: number };
  emailQueued: boolean;
}> {
  const b = parse(updateEntrySchema, input);
  const has = (k: keyof typeof b) => Object.hasOwn(b, k) && (b as Record<string, unknown>)[k] !== undefined;
  if (!has('name') && !has('email') && !has('phone') && !has('customFieldData')) throw Errors.nothingToUpdate();
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const now = ctx.now.toISOString();
  const email = b.email ?? null;
  const custom = b.customFieldData == null ? null : JSON.stringify(b.customFieldData);
  const confirmation = has('email') && email ? await newConfirmation(ctx.random, ctx.publicUrl) : null;
  const mail = confirmation?.content({ title: sql`t.title`, name: sql`u.name` });
  let row:
    | {
        id: string;
        email: string | null;
        name: string | null;
        phone: string | null;
        points: number;
        mails: number | string;
      }
    | undefined;
  try {
    row = await queryOne(
      db,
      sql`with ${team.cte} t as (
            select e.id, c.id as contest_id, c.team_id, c.title, c.require_email_confirmation,
              (${has('email')}::boolean and e.email is distinct from ${email}::text) as email_changed
            from entries e join contests c on c.id = e.contest_id
            where e.id = ${entryId} and c.team_id = ${team.id} and e.erased_at is null
            for update of e
          ), u as (
            update entries e set
              name = case when ${has('name')}::boolean then ${b.name ?? null}::text else e.name end,
              email = case when ${has('email')}::boolean then ${email}::text else e.email end,
              phone = case when ${has('phone')}::boolean then ${b.phone ?? null}::text else e.phone end,
              custom_field_data = case when ${has('customFieldData')}::boolean then ${custom}::jsonb else e.custom_field_data end,
              email_confirmed = case when t.email_changed then not t.require_email_confirmation else e.email_confirmed end,
              confirmed_at = case when t.email_changed
                then (case when t.require_email_confirmation then null else coalesce(e.confirmed_at, ${now}::timestamptz) end)
                else e.confirmed_at end,
              confirmation_token_hash = case when t.email_changed
                then (case when t.require_email_confirmation then ${confirmation?.tokenHash ?? null}::text end)
                else e.confirmation_token_hash end,
              updated_at = ${now}::timestamptz
            from t where e.id = t.id
            returning e.id, e.email, e.name, e.phone, e.points, e.confirmation_token_hash,
              (t.email_changed and t.require_email_confirmation and e.email is not null) as needs_mail
          ), mail as (
            ${
              mail
                ? sql`insert into email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
                      select t.team_id, t.contest_id, u.email, 'confirmation', ${mail.subject}, ${mail.text}, ${mail.html},
                        ${now}::timestamptz, ${now}::timestamptz
                      from u, t where u.needs_mail
                      returning id`
                : sql`select null::uuid as id where false`
            }
          )
          select u.id, u.email, u.name, u.phone, u.points, (select count(*) from mail) as mails from u`,
    );
  } catch (e) {
    const pe = pgError(e);
    if (pe?.code === '23505' && pe.constraint === 'entries_contest_email_uq') throw Errors.emailAlreadyUsed();
    if (pe?.code === '23505' && pe.constraint === 'entries_contest_phone_uq') throw Errors.phoneAlreadyUsed();
    if (pe?.code === '23514' && pe.constraint === 'entries_contact_ck') throw Errors.emailOrPhoneRequired();
    throw e;
  }
  if (!row) throw Errors.entryNotFound();
  return {
    data: { id: row.id, email: row.email, name: row.name, phone: row.phone, points: num(row.points) },
    emailQueued: num(row.mails) > 0,
  };
}

// ---------------------------------------------------------------- disqualify

/** true disqualifies, false re-qualifies, undefined toggles; atomic in one UPDATE. */
export async function setDisqualified(db: Db, team: Team, entryId: string, disqualify: boolean | undefined, now: Date) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const row = await queryOne<{ id: string; disqualified: boolean }>(
    db,
    sql`with ${team.cte} u as (
          update entries e set disqualified = coalesce(${disqualify ?? null}::boolean, not e.disqualified),
            updated_at = ${now.toISOString()}::timestamptz
          from contests c
          where e.id = ${entryId} and c.id = e.contest_id and c.team_id = ${team.id} and e.erased_at is null
          returning e.id, e.disqualified, e.contest_id, c.team_id, ${sqlEntryEventData('e')} as ev_data
        ), ${sqlEmitEvent('ev_dq', 'entry.disqualified', sql`select team_id, contest_id, ev_data as data from u where u.disqualified`, now)},
        ${sqlEmitEvent('ev_rq', 'entry.requalified', sql`select team_id, contest_id, ev_data as data from u where not u.disqualified`, now)}
        select u.id, u.disqualified, ${sqlEventDeliveries('ev_dq', 'ev_rq')} from u`,
  );
  if (!row) throw Errors.entryNotFound();
  return {
    entryId: row.id,
    disqualified: row.disqualified,
    message: row.disqualified ? 'Entry has been disqualified' : 'Entry has been re-qualified',
  };
}
