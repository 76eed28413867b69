/**
 * Getting data out: the streamed CSV export of a contest's entries, the per-person export
 * (everything held about one entry) and erasure.
 *
 * - CSV: RFC 4180 (CRLF line ends, fields with `"`, `,`, CR or LF quoted, quotes doubled), no
 *   BOM; every cell that a spreadsheet would read as a formula (first character `=`, `+`, `-`,
 *   `@`, tab or CR) is prefixed with `'`. Rows come in keyset pages ordered by (created_at, id):
 *   each page is one indexed range scan (entries_contest_created_idx), so memory stays flat
 *   however many entries a contest has, and the stream pulls the next page only when the
 *   client has taken the previous one.
 * - Erasure keeps the row (points, ledger, purchases, referral links: every total stays exact)
 *   and removes what identifies the person; `erased_at` makes every read skip it.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, query, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlEmitEvent, sqlEventDeliveries } from '../sql/events.js';
import { sqlMailboxKey } from '../sql/mailbox.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';
import { type EntryFilters, searchTerms, sqlEntryConditions, sqlSearchMatches } from './entries.js';
import { entryDetailJson, entryDetailSql } from './entry-detail.js';

export const EXPORT_HEADER =
  'id,email,name,phone,points,emailConfirmed,disqualified,referralCode,referredBy,referralsCount,riskLevel,createdAt,consentedAt,consentTextSha256,admittedAt';
/** After the fixed columns, one per field of the contest's signupFields, in its order: `field.<key>`. */
export const fieldColumn = (key: string) => `field.${key}`;
export const EXPORT_PAGE_SIZE = 5000;

/** The export's `riskLevel` cell: the entry's risk level (none, review, high), computed at creation. */
export const SQL_EXPORT_RISK_LEVEL: SQL = sql`e.risk_level`;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: formula guard first, then RFC 4180 quoting. null/undefined = empty cell. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

interface ExportRow {
  id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  points: number;
  email_confirmed: boolean;
  disqualified: boolean;
  referral_code: string | null;
  referred_by: string | null;
  referrals_count: number | string;
  risk_level: string | null;
  created_at: Date | string;
  consented_at: Date | string | null;
  consent_text_sha256: string | null;
  admitted_at: Date | string | null;
  custom_field_data: Record<string, unknown> | null;
  /** the keyset cursor, exact to the microsecond */
  cursor: string;
}

/** An answer to a sign-up field as a cell: text as it is, true/false, anything else as JSON. */
function answerCell(value: unknown): string | boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

function csvLine(r: ExportRow, fields: readonly string[]): string {
  return `${[
    r.id,
    r.email,
    r.name,
    r.phone,
    num(r.points),
    r.email_confirmed,
    r.disqualified,
    r.referral_code,
    r.referred_by,
    num(r.referrals_count),
    r.risk_level,
    iso(r.created_at),
    iso(r.consented_at),
    r.consent_text_sha256,
    iso(r.admitted_at),
    ...fields.map((k) => answerCell(r.custom_field_data?.[k])),
  ]
    .map(csvCell)
    .join(',')}\r\n`;
}

const EXPORT_COLUMNS = sql`e.id, e.email, e.name, e.phone, e.points, e.email_confirmed, e.disqualified, e.referral_code,
  e.referred_by, (select count(*) from entries r where r.referred_by = e.id) as referrals_count,
  ${SQL_EXPORT_RISK_LEVEL} as risk_level, e.created_at, e.consented_at, e.consent_text_sha256, e.admitted_at, e.custom_field_data, e.created_at::text as cursor`;

/**
 * A page of the export: the list's filters as conditions; a search (a private key's: a substring
 * of the email or the name, or a referral code exactly) as one more condition on the same walk of
 * the contest in join order.
 */
function pageSql(
  contestId: string,
  filters: EntryFilters,
  after: { ts: string; id: string } | null,
  size: number,
): SQL {
  const keyset = after ? sql`and (e.created_at, e.id) > (${after.ts}::timestamptz, ${after.id}::uuid)` : sql``;
  const { search, pattern } = searchTerms(filters.search);
  const matches =
    search === null ? sql`` : sql`and (${sqlSearchMatches(pattern!)} or e.referral_code = ${search}::text)`;
  return sql`select ${EXPORT_COLUMNS} from entries e
    where e.contest_id = ${contestId} and ${sqlNotErased('e')} ${sql.join(sqlEntryConditions(filters), sql` `)} ${matches} ${keyset}
    order by e.created_at, e.id limit ${size}`;
}

export interface EntriesExport {
  /** `<slug>-entries.csv` */
  filename: string;
  /** the CSV, header line first, pulled page by page */
  stream: ReadableStream<Uint8Array>;
}

/**
 * Checks the key and the contest and reads the first page in one statement; the stream then
 * reads the following pages on `pageDb()` (a handle of its own: the request's may be released
 * while the answer is still streaming), released by `done()`.
 */
export async function exportEntries(
  db: Db,
  team: Team,
  contestId: string,
  pages: { acquire: () => { db: Db; release: () => Promise<void> }; pageSize?: number },
  filters: EntryFilters = {},
): Promise<EntriesExport> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const size = pages.pageSize ?? EXPORT_PAGE_SIZE;
  const first = await query<ExportRow & { slug: string; field_keys: string[] }>(
    db,
    sql`with ${team.cte} c as (select id, slug, signup_fields from contests where id = ${contestId} and team_id = ${team.id})
        select c.slug, array(select f->>'key' from jsonb_array_elements(c.signup_fields) f) as field_keys, p.*
        from c left join lateral (${pageSql(contestId, filters, null, size)}) p on true`,
  );
  if (!first[0]) throw Errors.contestNotFound();
  const slug = first[0].slug;
  const fields = first[0].field_keys;
  const header = [EXPORT_HEADER, ...fields.map((k) => csvCell(fieldColumn(k)))].join(',');
  const enc = new TextEncoder();
  let rows: ExportRow[] = first.filter((r) => r.id !== null);
  let headerSent = false;
  let finished = rows.length < size;
  let handle: { db: Db; release: () => Promise<void> } | null = null;
  const release = async () => {
    const h = handle;
    handle = null;
    await h?.release();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!headerSent) {
            headerSent = true;
            controller.enqueue(enc.encode(`${header}\r\n`));
          }
          if (rows.length > 0) {
            let chunk = '';
            for (const r of rows) chunk += csvLine(r, fields);
            const last = rows[rows.length - 1]!;
            rows = [];
            controller.enqueue(enc.encode(chunk));
            if (!finished) {
              handle ??= pages.acquire();
              rows = await query<ExportRow>(
                handle.db,
                pageSql(contestId, filters, { ts: last.cursor, id: last.id }, size),
              );
              if (rows.length < size) finished = true;
            }
            return;
          }
          await release();
          controller.close();
        } catch (e) {
          await release().catch(() => {});
          controller.error(e);
        }
      },
      async cancel() {
        await release();
      },
    },
    { highWaterMark: 1 },
  );
  return { filename: `${slug}-entries.csv`, stream };
}

// ---------------------------------------------------------------- one person's data

/** Everything held about one entry: the detail, its ledger, completions, purchases, plays and emails. */
export async function exportPerson(db: Db, team: Team, entryId: string) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const r = await queryOne<{
    ledger: unknown;
    bonus: unknown;
    purchases: unknown;
    plays: unknown;
    emails: unknown;
  }>(
    db,
    sql`with ${team.cte} e as (
          select e.*, c.title as contest_title, c.team_id from entries e join contests c on c.id = e.contest_id
          where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
        ), plays as (
          select p.id, p.game_id, p.status, p.tier_id, t.name as tier_name, t.is_miss, p.email, p.created_at, p.expires_at, p.claimed_at
          from e join instant_win_plays p on p.email = e.email and p.status = 'claimed'
          join contests g on g.id = p.game_id and g.team_id = e.team_id
          left join instant_win_tiers t on t.id = p.tier_id
        )
        select d.*,
          (select coalesce(json_agg(json_build_object('delta', l.delta, 'reason', l.reason, 'source', l.source, 'createdAt', l.created_at)
             order by l.created_at, l.id), '[]') from points_ledger l where l.entry_id = e.id) as ledger,
          (select coalesce(json_agg(json_build_object('bonusActionId', b.bonus_action_id, 'action', ba.action, 'status', b.status,
             'pointsAwarded', b.points_awarded, 'proof', b.proof, 'answer', b.answer, 'completedAt', b.completed_at)
             order by b.completed_at, b.id), '[]')
           from bonus_completions b join bonus_actions ba on ba.id = b.bonus_action_id where b.entry_id = e.id) as bonus,
          (select coalesce(json_agg(json_build_object('purchaseId', p.id, 'orderId', p.order_id, 'amount', p.amount,
             'currency', p.currency, 'pointsAwarded', p.points_awarded, 'source', p.source, 'createdAt', p.created_at)
             order by p.created_at, p.id), '[]') from purchases p where p.entry_id = e.id) as purchases,
          (select coalesce(json_agg(json_build_object('id', p.id, 'gameId', p.game_id, 'status', p.status,
             'tier', case when p.tier_id is null then null else json_build_object('id', p.tier_id, 'name', p.tier_name, 'isMiss', p.is_miss) end,
             'email', p.email, 'createdAt', p.created_at, 'expiresAt', p.expires_at, 'claimedAt', p.claimed_at)
             order by p.created_at, p.id), '[]') from plays p) as plays,
          (select coalesce(json_agg(json_build_object('type', o.kind, 'status', o.status, 'createdAt', o.created_at, 'sentAt', o.sent_at)
             order by o.created_at, o.id), '[]')
           from email_outbox o where o.team_id = e.team_id and o."to" = e.email
             and (o.contest_id = e.contest_id or o.contest_id in (select game_id from plays))) as emails
        -- the entry exactly as GET /entries/:id shows it
        from e cross join lateral (${entryDetailSql(team, sql`entries`)} where e.id = ${entryId}) d`,
  );
  if (!r) throw Errors.entryNotFound();
  const list = (x: unknown) => (typeof x === 'string' ? JSON.parse(x) : x) as Record<string, unknown>[];
  // timestamps as JavaScript ISO strings, numbers as numbers (json_build_object gives Postgres' forms)
  const fix = (items: Record<string, unknown>[], dates: string[], numbers: string[] = []) =>
    items.map((o) => {
      const out = { ...o };
      for (const k of dates) out[k] = iso(o[k] as string | null);
      for (const k of numbers) out[k] = o[k] === null ? null : num(o[k]);
      return out;
    });
  return {
    entry: entryDetailJson(r as unknown as Parameters<typeof entryDetailJson>[0]),
    ledger: fix(list(r.ledger), ['createdAt']),
    bonusActions: fix(list(r.bonus), ['completedAt']),
    purchases: fix(list(r.purchases), ['createdAt'], ['amount']),
    instantWinPlays: fix(list(r.plays), ['createdAt', 'expiresAt', 'claimedAt']),
    emails: fix(list(r.emails), ['createdAt', 'sentAt']),
  };
}

/**
 * Erasure, one statement: the entry's email, name, phone, custom fields, confirmation token and
 * the hashes of its IP address and user agent go, and so does its share of the per-IP and
 * per-referrer risk windows (a window it alone was in goes whole); what it wrote for manual bonus
 * actions (proof, answer) goes; the IP hashes (and the entry-limit keys made from them) and the email address of its
 * claimed plays in the team go; emails to it lose address, subject and text, and unsent ones are
 * cancelled; every recorded event naming the person (its entry, its claimed plays, a draw it won)
 * loses its personal fields, so pending deliveries and retries send it scrubbed; inbound webhook
 * answers kept for replay lose the email; the `entry.erased` event is recorded. Points, ledger amounts, purchases and
 * referral links stay, so every total stays exact. The count of sign-up emails its mailbox was
 * sent this hour (mailbox_sends) goes.
 *
 * What the update of the entry makes the database's triggers do, in the same transaction
 * (src/db/functions/): entries_risk_update takes its share of the email window (the alias
 * counter) and drops a window left empty; entries_rewards_update unlinks its reward unlocks (the
 * codes given stay given); entries_position_update and entries_stats_update stop counting it.
 */
export async function eraseEntry(db: Db, team: Team, entryId: string, now: Date) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const at = now.toISOString();
  const row = await queryOne<{ id: string; contest_id: string }>(
    db,
    sql`with ${team.cte} t as (
          select e.id, e.contest_id, e.email, e.ip_hash, e.referred_by, e.created_at, c.team_id
          from entries e join contests c on c.id = e.contest_id
          where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
          for update of e
        ), windows as (
          -- the person's share of the per-IP and per-referrer windows: one count and their
          -- timestamp; a window left with no entry goes, and its key (the IP hash) with it
          select w.contest_id, w.kind, w.key, w.n, array_position(w.times, t.created_at) as pos
          from risk_windows w, t
          where w.contest_id = t.contest_id
            and ((w.kind = 'ip' and w.key = t.ip_hash) or (w.kind = 'ref' and w.key = t.referred_by::text))
          for update of w
        ), windows_left as (
          update risk_windows w set n = w.n - 1,
            times = case when x.pos is null then w.times else w.times[:x.pos - 1] || w.times[x.pos + 1:] end
          from windows x
          where w.contest_id = x.contest_id and w.kind = x.kind and w.key = x.key and x.n > 1
          returning 1
        ), windows_gone as (
          delete from risk_windows w using windows x
          where w.contest_id = x.contest_id and w.kind = x.kind and w.key = x.key and x.n <= 1
          returning 1
        ), tokens as (
          -- the visitor's entry tokens: dead with the entry
          delete from entry_tokens et using t where et.entry_id = t.id
          returning 1
        ), mailbox as (
          -- the emails their mailbox was sent this hour by the team's sign-ups (keyed by the address's hash)
          delete from mailbox_sends w using t
          where w.team_id = t.team_id and t.email is not null and w.mailbox = ${sqlMailboxKey(sql`t.email`)}
          returning 1
        ), proofs as (
          -- what the person wrote for manual bonus actions (a profile URL, a sentence)
          update bonus_completions bc set proof = null, answer = null
          from t where bc.entry_id = t.id and (bc.proof is not null or bc.answer is not null)
          returning 1
        ), p as (
          update instant_win_plays p set ip_hash = null, limit_ip_key = null, email = null
          from t, contests g
          where g.id = p.game_id and g.team_id = t.team_id
            and (p.entry_id = t.id or (t.email is not null and p.email = t.email))
          returning p.id, p.game_id
        ), m as (
          update email_outbox o set "to" = '', subject = '', text = '', html = null,
            status = case when o.status = 'pending' then 'cancelled' else o.status end,
            locked_until = null
          from t
          where o.team_id = t.team_id and t.email is not null and o."to" = t.email
            and (o.contest_id = t.contest_id or o.contest_id in (select game_id from p))
          returning o.id
        ), u as (
          update entries e set email = null, name = null, phone = null, custom_field_data = null,
            confirmation_token_hash = null, ip_hash = null, user_agent_hash = null,
            consented_at = null, consent_text_sha256 = null, return_url = null,
            erased_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
          from t where e.id = t.id
          returning e.id, e.contest_id
        ), scrubbed as (
          -- every recorded event naming the person (whatever its deliveries' state: a pending or
          -- retried delivery sends the scrubbed body): their personal fields become null
          update events ev set data = case
              when ev.type = 'draw.revealed' then jsonb_set(ev.data, '{results}', (
                select coalesce(jsonb_agg(case when r->>'entryId' = t.id::text then r || '{"email": null, "name": null}'::jsonb else r end
                                          order by o), '[]'::jsonb)
                from jsonb_array_elements(ev.data->'results') with ordinality x(r, o)))
              else ev.data || coalesce((select jsonb_object_agg(k, null) from jsonb_object_keys(ev.data) k
                                        where k in ('email', 'name', 'phone', 'customFieldData')), '{}'::jsonb)
            end
          from t
          where ev.team_id = t.team_id and ev.id in (
            select x.id from events x where x.data @> jsonb_build_object('entryId', t.id)
            union all
            select x.id from events x where x.data @> jsonb_build_object('results', jsonb_build_array(jsonb_build_object('entryId', t.id)))
            union all
            select x.id from events x join p on x.data @> jsonb_build_object('playId', p.id))
          returning ev.id
        ), receipts as (
          -- inbound webhook answers kept for replay (a signup's answer carries the email)
          update webhook_receipts r set response = jsonb_set(r.response, '{data,email}', 'null'::jsonb)
          from t
          where r.contest_id = t.contest_id and (r.response->'data'->>'entryId') = t.id::text
            and (r.response->'data'->>'email') is not null
          returning r.id
        ), ${sqlEmitEvent('ev_erased', 'entry.erased', sql`select t.team_id, u.contest_id, json_build_object('entryId', u.id) as data from u, t`, now)}
        select u.id, u.contest_id, (select count(*) from m) as emails, (select count(*) from p) as plays, ${sqlEventDeliveries('ev_erased')} from u`,
  );
  if (!row) throw Errors.entryNotFound();
  return { answer: { entryId: row.id, erased: true as const }, contestId: row.contest_id };
}
