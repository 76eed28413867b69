/**
 * The hot statements as PL/pgSQL functions, for the Worker: over Neon's HTTP endpoint every
 * statement arrives unnamed and Postgres plans it every time, while the statements inside a
 * function keep their plans on the (pooled) connection, as a prepared statement does on Node.
 *
 * Each function is the statement as the code builds it, its parameters `$n` as arguments of the
 * types Postgres infers for them, answering the statement's own columns with their own types (its
 * Parse/Describe), named after the statement text (statementName). The Worker calls
 * `select * from <name>($1, ...)` with the same parameters when the name is registered
 * (STATEMENT_FUNCTIONS) and sends the statement itself otherwise: a statement that changed is
 * planned again, never answered wrongly. The functions are made by `installStatementFunctions`
 * after the migrations; test/statement-functions.test.ts writes them (and fails when they drift).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

export { STATEMENT_FUNCTIONS } from './statement-functions.generated.js';

export const STATEMENT_FUNCTIONS_FILE = fileURLToPath(new URL('./statement-functions.generated.sql', import.meta.url));
/** separates the functions in the generated file */
export const FUNCTION_SEPARATOR = '\n-- ce:function\n';

export interface DescribedStatement {
  text: string;
  name: string;
  /** Postgres type names of $1..$n */
  params: string[];
  /** the answer's columns: name and Postgres type name */
  columns: { name: string; type: string }[];
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * The function of a described statement, or null when one cannot carry it (two columns with one
 * name: RETURNS TABLE needs them distinct). A statement that answers no columns (an UPDATE
 * without RETURNING) is a `SETOF void` function that returns no rows, as the statement does.
 */
export function statementFunctionSql(d: DescribedStatement): string | null {
  const names = d.columns.map((c) => c.name);
  if (new Set(names).size !== names.length) return null;
  const args = d.params.map((t, i) => `ce_a${i + 1} ${t}`).join(', ');
  const body = d.text.replace(/\$(\d+)\b/g, (_, n: string) => `ce_a${n}`);
  if (body.includes('$ce_fn$')) return null;
  const returns = names.length
    ? `TABLE (${d.columns.map((c) => `${ident(c.name)} ${c.type}`).join(', ')})`
    : 'SETOF void';
  return `CREATE OR REPLACE FUNCTION ${d.name}(${args}) RETURNS ${returns} LANGUAGE plpgsql VOLATILE AS $ce_fn$
#variable_conflict use_column
BEGIN
  ${names.length ? 'RETURN QUERY ' : ''}${body};
END
$ce_fn$`;
}

/** Makes (or remakes) every registered statement function; after the migrations, on Node only. */
export async function installStatementFunctions(db: Db): Promise<number> {
  const text = readFileSync(STATEMENT_FUNCTIONS_FILE, 'utf8');
  const functions = text.split(FUNCTION_SEPARATOR).filter((f) => f.includes('CREATE OR REPLACE FUNCTION'));
  for (const f of functions) await db.execute(sql.raw(f));
  return functions.length;
}
