/**
 * Personal data of entries as a public key with personalData "masked" sees it. A public key sits
 * in page source, so anyone can copy it; such a key reads entries like this:
 *   email  `ann@example.com`   -> `a***@example.com` (first character, ***@, the domain)
 *   phone  `+15551234567`      -> `***4567`           (*** and the last 4 digits)
 *   name   `Ann Marie Bell`    -> `Ann B.`            (first word, initial of the last; one word stays)
 *   customFieldData            -> null
 * null stays null. The same rules exist as SQL functions (ce_mask_email, ce_mask_phone,
 * ce_mask_name: src/db/functions/personal-data.sql) so that a statement masks by itself, at no extra round
 * trip: `maskedEntryColumns(team, 'e')` gives the select list.
 *
 * For another feature that shows entries (draws, plays, exports to a public key...): select
 * `maskedEntryColumns(team, alias)` (or the single `maskEmail`/... SQL helpers) in the
 * statement, or, for rows already read, `maskEntry(row)` in JS when `team` says so.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Team } from '../db/team.js';

/** The team's masking flag as SQL (false for private keys and callers that know the team). */
export const sqlMasked = (team: Team): SQL => team.masked ?? sql`false`;

const col = (alias: string, column: string) => sql.raw(`${alias}.${column}`);

/** `email`, masked when the key is masked. */
export const sqlEmail = (team: Team, expr: SQL): SQL =>
  sql`(case when ${sqlMasked(team)} then ce_mask_email(${expr}) else ${expr} end)`;
export const sqlPhone = (team: Team, expr: SQL): SQL =>
  sql`(case when ${sqlMasked(team)} then ce_mask_phone(${expr}) else ${expr} end)`;
export const sqlName = (team: Team, expr: SQL): SQL =>
  sql`(case when ${sqlMasked(team)} then ce_mask_name(${expr}) else ${expr} end)`;
export const sqlCustomFields = (team: Team, expr: SQL): SQL =>
  sql`(case when ${sqlMasked(team)} then null else ${expr} end)`;

/**
 * Select-list items `email, phone, name, custom_field_data` of entries alias `alias`, masked
 * when the key is: use in place of those columns.
 */
export function maskedEntryColumns(team: Team, alias: string): SQL {
  return sql`${sqlEmail(team, col(alias, 'email'))} as email, ${sqlPhone(team, col(alias, 'phone'))} as phone,
    ${sqlName(team, col(alias, 'name'))} as name, ${sqlCustomFields(team, col(alias, 'custom_field_data'))} as custom_field_data`;
}

// ---------------------------------------------------------------- the same rules in JS

export const maskEmail = (e: string | null): string | null =>
  e === null ? null : `${e.slice(0, 1)}***@${e.split('@')[1] ?? ''}`;
export const maskPhone = (p: string | null): string | null => (p === null ? null : `***${p.slice(-4)}`);
export function maskName(n: string | null): string | null {
  if (n === null) return null;
  const w = n.trim().split(/\s+/);
  return w.length < 2 ? n : `${w[0]} ${w[w.length - 1]!.slice(0, 1)}.`;
}

/** An entry-like object with email/phone/name/customFieldData masked (fields it lacks stay absent). */
export function maskEntry<
  T extends { email?: string | null; phone?: string | null; name?: string | null; customFieldData?: unknown },
>(r: T): T {
  const out = { ...r };
  if ('email' in out) out.email = maskEmail(out.email ?? null);
  if ('phone' in out) out.phone = maskPhone(out.phone ?? null);
  if ('name' in out) out.name = maskName(out.name ?? null);
  if ('customFieldData' in out) out.customFieldData = null;
  return out;
}
