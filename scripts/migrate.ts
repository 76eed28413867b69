/**
 * `npm run db:migrate`: applies migrations/ to DATABASE_URL with drizzle's node-postgres
 * migrator (the same journal table the Node runner uses), e.g. to a Neon database before
 * `wrangler deploy`. Idempotent: already-applied migrations are skipped.
 */
import { openPg } from '../src/db/drivers/pg.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set. Usage: DATABASE_URL=postgres://user:pass@host/db npm run db:migrate');
  process.exit(1);
}

const started = Date.now();
try {
  const h = await openPg(url, { max: 1 });
  const { rows } = await h.pool.query<{ n: string }>('select count(*)::text as n from drizzle.__drizzle_migrations');
  await h.close();
  console.log(`Migrations applied to ${new URL(url).host}${new URL(url).pathname} (${rows[0]?.n ?? '?'} in the journal, ${Date.now() - started} ms)`);
} catch (e) {
  console.error('Migration failed:', e instanceof Error ? e.message : e);
  process.exit(1);
}
