/**
 * Arrays as one statement parameter, whatever their length: a Postgres array literal with every
 * element quoted and escaped (any text is safe in it), typed by the statement. The one way every
 * area passes a list of ids or strings (the Neon driver, postgres.js and PGlite take it alike).
 */
import { type SQL, sql } from 'drizzle-orm';

/** `{"a","b"}`: the literal of `items`. */
export function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((s) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** The array of `items` as a `text[]` or `uuid[]` parameter; null stays a typed null. */
export function sqlArray(items: readonly string[] | null, type: 'text' | 'uuid'): SQL {
  const t = sql.raw(`${type}[]`);
  return items === null ? sql`null::${t}` : sql`${arrayLiteral(items)}::${t}`;
}
