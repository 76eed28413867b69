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
