/**
 * Contests as the v1 API shows them, the rules for when a contest is open, and views.
 */
import { type SQL, sql } from 'drizzle-orm';

export const TOOL_TYPES = ['content_gate', 'instant_win'] as const;

export type ToolType = (typeof TOOL_TYPES)[number];

export interface ContestRow {
  id: string;
  team_id: string;
  tool_type: string | null;
  title: string;
  description: string | null;
  status: string;
  start_date: Date | string | null;
  end_date: Date | string | null;
  is_evergreen: boolean;
  mode: string;
  slug: string;
  entries_count?: number | string;
  views_count?: number | string;
  /** seconds a public key's reads may be cached (src/http/public-cache.ts) */
  public_cache_seconds?: number;
}

/** A stored `active` contest whose endDate has passed (and is not evergreen) reads `ended`. */
export function effectiveStatus(row: Pick<ContestRow, 'status' | 'end_date' | 'is_evergreen'>, now: Date): string {
  if (row.status === 'active' && !row.is_evergreen && row.end_date && new Date(row.end_date) <= now) return 'ended';
  return row.status;
}

/** SQL for "accepts entries, completions, purchases and plays now" on contest alias `c`. */
export function sqlContestOpen(now: Date, alias = 'c'): SQL {
  const a = sql.raw(alias);
  const t = now.toISOString();
  return sql`(${a}.status = 'active'
    and (${a}.start_date is null or ${a}.start_date <= ${t}::timestamptz)
    and (${a}.is_evergreen or ${a}.end_date is null or ${a}.end_date > ${t}::timestamptz))`;
}

/**
 * Where a contest's visitors are sent back to (the confirmation's redirect, the "your link"
 * email), on contest alias `alias`: its landingUrl, or else, while it has one, its hosted page on
 * this service (`<publicUrl>/c/<id>`, src/signups/page.routes.ts; which contest has one is
 * ce_page_contest's rule, the page's own); null otherwise.
 */
export function sqlLandingUrl(alias: string, publicUrl: string): SQL {
  const a = sql.raw(alias);
  return sql`coalesce(${a}.landing_url, (select ${`${publicUrl.replace(/\/$/, '')}/c/`}::text || p.id from ce_page_contest(${a}.id::text) p))`;
}

/**
 * The origin part of a stored page address (`https://shop.example.com` of
 * `https://shop.example.com/join?x=1`): stored addresses are normalised (src/lib/origins.ts
 * returnPage), so this prefix is the origin the browser had.
 */
const sqlOriginOf = (url: SQL) => sql`substring(${url} from '^https?://[^/?#]+')`;

/**
 * Where an entry's visitor is sent back to (the confirmation's redirect): the page they signed up
 * on (entry `entry`'s return_url) while its origin is still one of the contest's allowedOrigins,
 * else the contest's (sqlLandingUrl); never another origin.
 */
export function sqlReturnUrl(entry: string, contest: string, publicUrl: string): SQL {
  const e = sql.raw(entry);
  const c = sql.raw(contest);
  return sql`coalesce(case when ${sqlOriginOf(sql`${e}.return_url`)} = any(${c}.allowed_origins) then ${e}.return_url end, ${sqlLandingUrl(contest, publicUrl)})`;
}

/** A sign-up's page (`href` of origin `origin`), when that origin is one of contest `contest`'s allowedOrigins; else null. */
export function sqlAllowedReturn(page: { href: string; origin: string } | null, contest: string): SQL {
  if (!page) return sql`null::text`;
  return sql`case when ${page.origin}::text = any(${sql.raw(contest)}.allowed_origins) then ${page.href}::text end`;
}
