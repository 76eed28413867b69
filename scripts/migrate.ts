/**
 * `npm run db:migrate`: applies migrations/ to DATABASE_URL with drizzle's node-postgres
 * migrator (the same journal table the Node runner uses), e.g. to a Neon database before
 * `wrangler deploy`. Idempotent: already-applied migrations are skipped, and it says so.
 */
import pg from 'pg';
import { openPg } from '../src/db/drivers/pg.js';
import { readSettings, SettingsError } from '../src/environment.js';
import { explainDbError } from './db-errors.js';

let url: string | undefined;
try {
  url = readSettings(process.env, 'migrate').DATABASE_URL;
} catch (e) {
  if (!(e instanceof SettingsError)) throw e;
  console.error(e.message);
  process.exit(1);
}
if (!url) {
  console.error('DATABASE_URL is not set. Usage: DATABASE_URL=postgres://user:pass@host/db npm run db:migrate');
  process.exit(1);
}
const where = `${new URL(url).host}${new URL(url).pathname}`;

async function journalCount(): Promise<number> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    const found = await c.query<{ t: string | null }>(`select to_regclass('drizzle.__drizzle_migrations')::text as t`);
    if (!found.rows[0]?.t) return 0;
    const { rows } = await c.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations');
    return rows[0]!.n;
  } finally {
    await c.end();
  }
}

const started = Date.now();
try {
  const before = await journalCount();
  const h = await openPg(url, { max: 1 });
  await h.close();
  const after = await journalCount();
  const ms = Date.now() - started;
  if (after === before) console.log(`Nothing to apply: ${where} has all ${after} migrations (${ms} ms)`);
  else
    console.log(
      `Applied ${after - before} migration${after - before === 1 ? '' : 's'} to ${where}: ${after} in all (${ms} ms)`,
    );
} catch (e) {
  console.error(`Migration of ${where} failed: ${explainDbError(url, e)}`);
  process.exit(1);
}
