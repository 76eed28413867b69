/**
 * The database's own code (functions and trigger functions) as files: src/db/functions/*.sql, one
 * file per family, each definition a `create or replace` that can run any number of times. They
 * are applied after the migrations on every path (npm start, npm run db:migrate, npm run dev, the
 * tests), before the statement functions that may call them. Within a file, definitions are
 * separated by a line `-- ce:function`, and applied in file-name order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Db, pgError } from './client.js';

export const FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
const SEPARATOR = /^-- ce:function$/m;

/** Each file's definitions, in the order they are applied. */
export function databaseFunctionFiles(): { file: string; definitions: string[] }[] {
  return readdirSync(FUNCTIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => ({
      file,
      definitions: readFileSync(`${FUNCTIONS_DIR}${file}`, 'utf8')
        .split(SEPARATOR)
        .map((d) => d.trim())
        .filter((d) => /\bcreate\b/i.test(d.replace(/^--.*$/gm, ''))),
    }));
}

/** Postgres's "undefined function": a definition that calls one applied later (an SQL function is checked when made) */
const UNDEFINED_FUNCTION = '42883';

export async function installDatabaseFunctions(db: Db): Promise<number> {
  let waiting = databaseFunctionFiles().flatMap((f) => f.definitions);
  const total = waiting.length;
  // in file order; a definition that needs one further down waits for the next round
  while (waiting.length > 0) {
    const next: string[] = [];
    let lastError: unknown;
    for (const d of waiting) {
      try {
        await db.execute(sql.raw(d));
      } catch (e) {
        if (pgError(e)?.code !== UNDEFINED_FUNCTION) throw e;
        next.push(d);
        lastError = e;
      }
    }
    if (next.length === waiting.length) throw lastError;
    waiting = next;
  }
  return total;
}
