import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/** One type for the three drivers (PGlite, node-postgres, Neon serverless). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Runs raw SQL and returns its rows, whatever the driver. */
export async function query<T = Record<string, unknown>>(db: Db, statement: SQL): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown as { rows?: T[] } | T[];
  return Array.isArray(result) ? result : (result.rows ?? []);
}

export async function queryOne<T = Record<string, unknown>>(db: Db, statement: SQL): Promise<T | undefined> {
  const rows = await query<T>(db, statement);
  return rows[0];
}

/** The Postgres error (SQLSTATE code, constraint) behind a driver or Drizzle error, if any. */
export function pgError(e: unknown): { code: string; constraint?: string } | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const o = cur as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      return { code: o.code, constraint: typeof o.constraint === 'string' ? o.constraint : undefined };
    }
    cur = o.cause;
  }
  return undefined;
}

export const isUniqueViolation = (e: unknown, constraint?: string) => {
  const pe = pgError(e);
  return pe?.code === '23505' && (constraint === undefined || pe.constraint === constraint);
};

/** ISO 8601 string for a timestamp column value (Date from every driver, string defensively). */
export function iso(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** Number for an int8/numeric column value (drivers give strings for those). */
export function num(v: unknown): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : Number(v);
}
