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
import { isUuid } from '../lib/crypto.js';
import { assertStorableStrings, documentedAs, emailSchema, issueToError, jsonDepth } from '../lib/validation.js';
import { newConfirmation } from '../sql/confirmation.js';
import { sqlEmitEvent, sqlEntryEventData, sqlEventDeliveries } from '../sql/events.js';
import { sqlMasked } from '../sql/masking.js';
import { type EntryListItem, type EntryRow, entryListJson, listColumns } from './entry-detail.js';

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
      // a custom check reads as "anything" in the OpenAPI document: it shows as an object
      documentedAs(v.custom<Record<string, unknown>>(isPlainObject, 'customFieldData must be an object'), {
        type: 'object',
        propertyNames: { type: 'string' },
        additionalProperties: {},
      }),
      v.description(
        `any JSON object, at most ${CUSTOM_FIELDS_MAX_DEPTH} levels deep and ${CUSTOM_FIELDS_MAX_BYTES} bytes as UTF-8 JSON; null clears it on update`,
      ),
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

export function parseEntryBody<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input ?? {});
  if (!r.success) throw issueToError(r.issues as unknown as Parameters<typeof issueToError>[0]);
  return r.output;
}

// ---------------------------------------------------------------- create

export {
  type EntryDetail,
  type EntryListItem,
  entryDetailJson,
  entryDetailSql,
  entryListJson,
  getEntry,
  riskJson,
} from './entry-detail.js';

import { sqlQueueEmail, sqlRewardsMay } from '../sql/outbox.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';

/** `%`, `_` and `\` taken literally in a LIKE pattern (escape character `\`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** The entries list's filters (the CSV export takes them too). */
export interface EntryFilters {
  search?: string | null;
  risk?: 'review' | 'high' | null;
  confirmed?: boolean | null;
  disqualified?: boolean | null;
  referred?: boolean | null;
  /** entries referred by this entry */
  referredBy?: string | null;
  /** flagged (level not none) and not reviewed yet: the review queue */
  reviewPending?: boolean;
}

/** A search as given (trimmed; null when empty) and its LIKE pattern: a substring, `%`, `_` and `\` literal. */
export function searchTerms(raw: string | null | undefined): { search: string | null; pattern: string | null } {
  const search = raw?.trim() || null;
  return { search, pattern: search === null ? null : `%${escapeLike(search)}%` };
}

/** The search's rule on entry `e`: its email or its name holds the pattern (case-insensitive). */
export const sqlSearchMatches = (pattern: string) =>
  sql`(e.email ilike ${pattern}::text escape '\\' or e.name ilike ${pattern}::text escape '\\')`;

/**
 * The same, in the form entries_search_trgm_idx answers (email and name as one string), then
 * the rule itself: the index finds the candidates, the rule decides.
 */
const sqlSearchIndexed = (pattern: string) =>
  sql`(coalesce(e.email, '') || ' ' || coalesce(e.name, '')) ilike ${pattern}::text escape '\\' and ${sqlSearchMatches(pattern)}`;

/** The filters but the search, as `and ...` conditions on entries `e`. */
export function sqlEntryConditions(f: EntryFilters): SQL[] {
  const conditions: SQL[] = [];
  if (f.risk != null) conditions.push(sql`and e.risk_level = ${f.risk}::text`);
  if (f.reviewPending) conditions.push(sql`and e.risk_level <> 'none' and e.risk_review is null`);
  // written out, not a parameter: a cached generic plan could not use the partial index of
  // unconfirmed entries for a value it does not know
  if (f.confirmed != null) conditions.push(f.confirmed ? sql`and e.email_confirmed` : sql`and not e.email_confirmed`);
  if (f.disqualified != null) conditions.push(sql`and e.disqualified = ${f.disqualified}::boolean`);
  if (f.referred != null)
    conditions.push(f.referred ? sql`and e.referred_by is not null` : sql`and e.referred_by is null`);
  if (f.referredBy != null) conditions.push(sql`and e.referred_by = ${f.referredBy}::uuid`);
  return conditions;
}

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
  opts: EntryFilters & {
    limit: number;
    offset: number;
    sort?: 'newest' | 'oldest' | 'points';
  },
): Promise<{ items: EntryListItem[]; total: number }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const { search, pattern } = searchTerms(opts.search);
  const conditions = sqlEntryConditions(opts);
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
              sql`select e.* from entries e join c on e.contest_id = c.id and ${sqlNotErased('e')}
                  where e.contest_id = ${contestId}::uuid ${riskFilter}`
            : // two arms, each with its own index, so the planner never has to choose between them:
              // entries_search_trgm_idx for a full key (its first condition is what that index
              // answers, the second the exact rule), entries_contest_email_uq for a masked key,
              // which matches whole emails only; the arm that does not apply stops at once
              sql`select e.* from entries e join c on e.contest_id = c.id and ${sqlNotErased('e')}
                  where not ${sqlMasked(team)} and ${sqlSearchIndexed(pattern)} ${riskFilter}
                  union all
                  select e.* from entries e join c on e.contest_id = c.id and ${sqlNotErased('e')}
                  where ${sqlMasked(team)} and e.email = ${search!.toLowerCase()}::text ${riskFilter}
                  union all
                  -- a referral code, exactly (entries_referral_code_uq), unless the first arm has the entry already
                  select e.* from entries e join c on e.contest_id = c.id and ${sqlNotErased('e')}
                  where e.referral_code = ${search}::text
                    and (${sqlMasked(team)} or not (${sqlSearchIndexed(pattern)})) ${riskFilter}`
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
  const b = parseEntryBody(updateEntrySchema, input);
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
            where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
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
                ? sqlQueueEmail('confirmation', mail, now, {
                    teamId: sql`t.team_id`,
                    contestId: sql`t.contest_id`,
                    to: sql`u.email`,
                    from: sql`u, t where u.needs_mail`,
                  })
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
/**
 * Disqualifies, re-qualifies or toggles an entry. A reason is kept in its points history (a row of
 * 0 points, source manual: "Disqualified: <reason>") and sent as the event's `reason`.
 */
export async function setDisqualified(
  db: Db,
  team: Team,
  entryId: string,
  disqualify: boolean | undefined,
  now: Date,
  reason: string | null = null,
) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const at = now.toISOString();
  const row = await queryOne<{ id: string; disqualified: boolean; contest_id: string }>(
    db,
    sql`with ${team.cte} u as (
          update entries e set disqualified = coalesce(${disqualify ?? null}::boolean, not e.disqualified),
            updated_at = ${at}::timestamptz
          from contests c
          where e.id = ${entryId} and c.id = e.contest_id and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
          returning e.id, e.disqualified, e.contest_id, c.team_id,
            (${sqlEntryEventData('e')}::jsonb || jsonb_build_object('reason', ${reason}::text))::json as ev_data
        ), why as (
          insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, created_at)
          select u.id, u.contest_id, 0, 0, 'manual',
            case when u.disqualified then 'Disqualified: ' else 'Re-qualified: ' end || ${reason}::text, ${at}::timestamptz
          from u where ${reason}::text is not null
        ), ${sqlEmitEvent('ev_dq', 'entry.disqualified', sql`select team_id, contest_id, ev_data as data from u where u.disqualified`, now)},
        ${sqlEmitEvent('ev_rq', 'entry.requalified', sql`select team_id, contest_id, ev_data as data from u where not u.disqualified`, now)}
        select u.id, u.disqualified, u.contest_id, ${sqlEventDeliveries('ev_dq', 'ev_rq')}${sqlRewardsMay(sql`u.contest_id`)} from u`,
  );
  if (!row) throw Errors.entryNotFound();
  return {
    answer: {
      entryId: row.id,
      disqualified: row.disqualified,
      message: row.disqualified ? 'Entry has been disqualified' : 'Entry has been re-qualified',
    },
    /** the entry's contest, whose cached public answers the route drops */
    contestId: row.contest_id,
  };
}
