/**
 * The bench build of the Node server: the same createApp(deps) over node-postgres, plus
 *  - a floor route `GET /bench/floor` doing `SELECT 1` through the same driver and pool, and a
 *    write floor `POST /bench/write-floor` (one INSERT and its commit), and
 *  - `POST /bench/dry`: the statements the app would send for a list of requests, not sent (the
 *    per-endpoint write floors of bench/run.ts replay them straight from pg), and
 *  - a round-trip counter: every query a pg client sends while a request is being handled is
 *    counted for that request (AsyncLocalStorage) and reported in the `x-round-trips` response
 *    header. Work a request leaves in the background (email delivery) is not on its path and is
 *    not counted. bench/run.ts reads it from sequential requests, where attribution is exact.
 * Rate limiting is off, play/claim and the public key limit alike (the load comes from one address). Emails are not delivered.
 * Started by bench/run.ts as a child process so that load generation does not share its CPU.
 */
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { createApp } from '../src/app.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { benchDeps, type Captured, statementScope } from './capture.js';

const counter = statementScope;

const url = process.env.DATABASE_URL!;
const port = Number(process.env.PORT ?? 8790);
const h = await openPg(url, { max: Number(process.env.DATABASE_POOL_MAX ?? 10), migrate: false });
const deps = benchDeps(h.provider, `http://localhost:${port}`);
const app = createApp(deps);
const outer = new Hono();
outer.use('*', async (c, next) => {
  if (c.req.path === '/bench/dry') return next();
  const store = { n: 0 };
  await counter.run(store, () => next());
  c.res.headers.set('x-round-trips', String(store.n));
});
/**
 * The statements the app WOULD send for each of the given requests, without sending them (the
 * per-endpoint write floor replays them straight from pg: bench/run.ts). Each request's first
 * statement is its whole database work (one statement per request); with nothing answered, the
 * app then stops.
 */
outer.post('/bench/dry', async (c) => {
  const reqs = (await c.req.json()) as {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
  }[];
  const out: Captured[] = [];
  for (const r of reqs) {
    const store = { n: 0, dry: [] as Captured[] };
    await counter.run(store, () => app.request(r.path, { method: r.method, headers: r.headers, body: r.body }));
    const own = store.dry.filter((q) => q.text.includes('ce_key'));
    if (own[0]) out.push(own[0]);
  }
  return c.json(out);
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
