/**
 * The bench build of the Node server: the same createApp(deps) over node-postgres, plus
 *  - a floor route `GET /bench/floor` doing `SELECT 1` through the same driver and pool, and a
 *    write floor `POST /bench/write-floor` (one INSERT and its commit), and
 *  - a round-trip counter: every query a pg client sends while a request is being handled is
 *    counted for that request (AsyncLocalStorage) and reported in the `x-round-trips` response
 *    header. Work a request leaves in the background (email delivery) is not on its path and is
 *    not counted. bench/run.ts reads it from sequential requests, where attribution is exact.
 * Play/claim rate limiting is off (the load comes from one address). Emails are not delivered.
 * Started by bench/run.ts as a child process so that load generation does not share its CPU.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { type Deps, cryptoRandom, systemClock } from '../src/deps.js';

const counter = new AsyncLocalStorage<{ n: number }>();
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function patched(this: pg.Client, ...args: unknown[]) {
  const store = counter.getStore();
  if (store) store.n += 1;
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof originalQuery;

const url = process.env.DATABASE_URL!;
const port = Number(process.env.PORT ?? 8790);
const h = await openPg(url, { max: Number(process.env.DATABASE_POOL_MAX ?? 10), migrate: false });
const silent = { info: () => {}, error: (msg: string, f?: Record<string, unknown>) => console.error(msg, f) };
const deps: Deps = {
  database: h.provider,
  clock: systemClock,
  random: cryptoRandom,
  rateLimiter: { limit: async () => ({ success: true, retryAfterSeconds: 0 }) },
  mailer: { send: async () => {} },
  logger: silent,
  config: { adminToken: undefined, publicUrl: `http://localhost:${port}`, ipHashSalt: 'bench' },
  clientIp: (c) => c.req.header('x-forwarded-for') ?? '127.0.0.1',
  background: (_c, work) => {
    work.catch(() => {});
  },
};
const app = createApp(deps);
const outer = new Hono();
outer.use('*', async (c, next) => {
  const store = { n: 0 };
  await counter.run(store, () => next());
  c.res.headers.set('x-round-trips', String(store.n));
});
outer.get('/bench/floor', async (c) => {
  await query(h.db, sql`select 1`);
  return c.json({ success: true, data: { ok: 1 } });
});
// the cost of one committed write through the same pool (table made by bench/run.ts)
outer.post('/bench/write-floor', async (c) => {
  await query(h.db, sql`insert into bench_writes default values`);
  return c.json({ success: true, data: { ok: 1 } });
});
outer.route('/', app);
serve({ fetch: outer.fetch, port }, () => console.log(`bench server ready on ${port}`));
process.on('SIGTERM', () => process.exit(0));
