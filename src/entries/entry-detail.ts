/**
 * The entry read model: an entry as the list and the detail show it (masked for a masked public
 * key), and the detail read. Its own module so that every writer that answers with the entry
 * (create, update, confirm, review, export) imports it without importing the others.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, num, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlCustomFields, sqlEmail, sqlName, sqlPhone } from '../sql/masking.js';
import { sqlPosition } from '../sql/positions.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';

export interface EntryRow {
  id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  points: number;
  email_confirmed: boolean;
  disqualified: boolean;
  referral_code: string | null;
  created_at: Date | string;
  risk_level?: string;
  risk_reasons?: string[] | string | null;
  risk_review?: string | null;
}

/** risk {level, reasons, review} of an entry row (signals computed at creation). */
export function riskJson(r: {
  risk_level?: string;
  risk_reasons?: string[] | string | null;
  risk_review?: string | null;
}) {
  return {
    level: (r.risk_level ?? 'none') as 'none' | 'review' | 'high',
    reasons: parsePgTextArray(r.risk_reasons),
    review: (r.risk_review ?? null) as 'approved' | 'rejected' | null,
  };
}

/** text[] as the drivers give it: an array, or (some drivers) the literal `{a,b}`. */
function parsePgTextArray(v: string[] | string | null | undefined): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, '');
  return inner === '' ? [] : inner.split(',');
}

export function entryListJson(r: EntryRow) {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    phone: r.phone,
    points: num(r.points),
    emailConfirmed: r.email_confirmed,
    disqualified: r.disqualified,
    referralCode: r.referral_code,
    createdAt: iso(r.created_at),
    risk: riskJson(r),
  };
}
export type EntryListItem = ReturnType<typeof entryListJson>;

/** the list's columns; email, name and phone masked for a masked public key (masking.ts) */
export const listColumns = (team: Team) =>
  sql`e.id, ${sqlEmail(team, sql`e.email`)} as email, ${sqlName(team, sql`e.name`)} as name, ${sqlPhone(team, sql`e.phone`)} as phone,
    e.points, e.email_confirmed, e.disqualified, e.referral_code, e.created_at, e.risk_level, e.risk_reasons, e.risk_review`;

type EntryDetailRow = EntryRow & {
  points_used: number;
  contest_id: string;
  contest_title: string;
  custom_field_data: unknown;
  referrals_count: number | string;
  bonus_actions_completed: number | string;
  total_purchase_value: number | string;
  total_purchase_count: number | string;
  position: number | string | null;
  consented_at: Date | string | null;
  consent_text_sha256: string | null;
  referred_by: string | null;
  source: string;
  admitted_at: Date | string | null;
};

/**
 * The detail's select list and joins over `source` (entries, or a CTE of entries rows named e:
 * a statement that changed the entry answers with its new version); masked for a masked key.
 */
export function entryDetailSql(team: Team, source: SQL): SQL {
  return sql`select ${listColumns(team)}, e.points_used, e.contest_id, c.title as contest_title,
          ${sqlCustomFields(team, sql`e.custom_field_data`)} as custom_field_data,
          (select count(*) from entries r where r.referred_by = e.id) as referrals_count,
          (select count(*) from bonus_completions b where b.entry_id = e.id and b.status <> 'rejected') as bonus_actions_completed,
          p.value as total_purchase_value, p.n as total_purchase_count,
          ${sqlPosition('e')} as position, e.consented_at, e.consent_text_sha256, e.referred_by, e.source,
          e.admitted_at
        from ${source} e
        join contests c on c.id = e.contest_id
        cross join lateral (select coalesce(sum(amount), 0) as value, count(*) as n from purchases where entry_id = e.id) p`;
}

export function entryDetailJson(r: EntryDetailRow) {
  return {
    ...entryListJson(r),
    pointsUsed: num(r.points_used),
    contestId: r.contest_id,
    contestTitle: r.contest_title,
    referralsCount: num(r.referrals_count),
    bonusActionsCompleted: num(r.bonus_actions_completed),
    totalPurchaseValue: num(r.total_purchase_value),
    totalPurchaseCount: num(r.total_purchase_count),
    customFieldData: (r.custom_field_data ?? null) as Record<string, unknown> | null,
    position: r.position === null || r.position === undefined ? null : num(r.position),
    consent: r.consented_at ? { at: iso(r.consented_at)!, textSha256: r.consent_text_sha256 ?? '' } : null,
    referredBy: r.referred_by ?? null,
    source: r.source as 'api' | 'signup' | 'instant_win' | 'webhook',
    admittedAt: iso(r.admitted_at),
  };
}
export type EntryDetail = ReturnType<typeof entryDetailJson>;

/** The entry detail of the reference, plus customFieldData and risk. Another team's entry: entryNotFound. */
export async function getEntry(db: Db, team: Team, entryId: string) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const r = await queryOne<EntryDetailRow>(
    db,
    sql`with ${team.cte} _ as (select 1)
        ${entryDetailSql(team, sql`entries`)}
        where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}`,
  );
  if (!r) throw Errors.entryNotFound();
  return entryDetailJson(r);
}
