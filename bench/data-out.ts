/**
 * npm run bench (its last part), or alone: tsx bench/data-out.ts [--entries N] [--events E]
 *
 * Getting data out, measured on a fresh database of BENCH_DATABASE_URL's server:
 *  1. CSV export of a contest of N entries (default 1,000,000) through the real app (the bench
 *     server, bench/server.ts, as a child process): seconds, rows/s, MB, and the server's resident
 *     memory before and at its peak during the export (sampled from /proc every 50 ms).
 *  2. Outbound event throughput: E events (default 20,000) committed to the outbox, delivered
 *     by the real deliverer (deliverDueEvents, real fetch, signatures) to a local receiver on
 *     127.0.0.1: events/s with one deliverer and with four side by side.
 * Writes bench/data-out-results.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { createApiKey, createTeam } from '../src/admin/admin.js';
import { createContest } from '../src/contests/contest-settings.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { cryptoRandom } from '../src/deps.js';
import { deliverDueEvents } from '../src/events/deliver.js';
import { flag, freshDatabase, startBenchServer } from './support.js';

export interface DataOutOptions {
  entries: number;
  events: number;
  baseUrl: string;
  port: number;
  log?: (...a: unknown[]) => void;
}

const rssKb = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
};
const mb = (kb: number) => Math.round(kb / 1024);

export async function dataOutBench(o: DataOutOptions) {
  const log = o.log ?? console.log;
  const fresh = await freshDatabase(o.baseUrl, `ce_bench_out_${process.pid}`);
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  try {
    const h = await openPg(fresh.url, { max: 8 });
    const db = h.db;
    const team = await createTeam(db, 'Data out bench');
    const priv = (await createApiKey(db, cryptoRandom, team.id, 'private', 'bench')).key;
    const contest = await createContest(
      db,
      cryptoRandom,
      team.id,
      { title: 'Export bench', status: 'active', isEvergreen: true },
      new Date(),
    );
    const seedStart = Date.now();
    await query(
      db,
      sql`insert into entries (contest_id, email, name, phone, referral_code, points, email_confirmed, disqualified, created_at)
          select ${contest.id}, 'person' || i || '@example.com', 'Person ' || i, case when i % 4 = 0 then '+1555' || lpad(i::text, 7, '0') end,
                 'X' || lpad(i::text, 9, '0'), (i * 7) % 1000, i % 10 <> 0, i % 100 = 0,
                 now() - interval '30 days' + (i || ' milliseconds')::interval
          from generate_series(1, ${o.entries}::int) i`,
    );
    await query(db, sql`vacuum analyze entries`);
    log(`data out: seeded ${o.entries.toLocaleString()} entries in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    // ---------- 1. CSV export through the app ----------
    server = await startBenchServer(fresh.url, o.port);
    const pid = server.pid;
    // the server at rest (modules loaded, one request answered) is the baseline
    const baseline = rssKb(pid, 'VmRSS');
    let peak = baseline;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssKb(pid, 'VmRSS'));
      } catch {
        /* exited */
      }
    }, 50);
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${o.port}/api/v1/contests/${contest.id}/entries/export`, {
      headers: { 'x-api-key': priv },
    });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let bytes = 0;
    let lines = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssKb(pid, 'VmRSS'));
    const exportResult = {
      entries: o.entries,
      rows: lines - 1,
      seconds: Number(seconds.toFixed(2)),
      rowsPerSecond: Math.round((lines - 1) / seconds),
      megabytes: Number((bytes / 1e6).toFixed(1)),
      serverRssBeforeMb: mb(baseline),
      serverRssPeakMb: mb(peak),
    };
    log(
      `data out: CSV export of ${exportResult.rows.toLocaleString()} entries: ${exportResult.seconds} s (${exportResult.rowsPerSecond.toLocaleString()} rows/s, ` +
        `${exportResult.megabytes} MB); server RSS ${exportResult.serverRssBeforeMb} MB before, peak ${exportResult.serverRssPeakMb} MB during`,
    );
    if (exportResult.rows !== o.entries)
      throw new Error(`export gave ${exportResult.rows} rows, expected ${o.entries}`);

    // ---------- 2. outbox -> local receiver ----------
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const [ep] = await query<{ id: string }>(
      db,
      sql`insert into webhook_endpoints (team_id, url, secret) values (${team.id}, ${hookUrl}, ${`whsec_${Buffer.from(cryptoRandom.bytes(32)).toString('base64')}`})
          returning id`,
    );
    const seedEvents = (n: number) =>
      query(
        db,
        sql`with ev as (
              insert into events (team_id, contest_id, type, data, created_at)
              select ${team.id}::uuid, ${contest.id}::uuid, 'entry.created',
                jsonb_build_object('entryId', gen_random_uuid(), 'contestId', ${contest.id}::text, 'email', 'p' || g || '@example.com',
                  'name', 'Person ' || g, 'points', g % 100, 'emailConfirmed', true, 'disqualified', false), now()
              from generate_series(1, ${n}::int) g returning id
            )
            insert into event_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
            select ev.id, ${ep!.id}::uuid, now() - interval '1 second', now() from ev`,
      );
    const ctx = { fetch: globalThis.fetch, allowHttp: true };
    const clock = { now: () => new Date() };
    const drain = async () => {
      let n = 0;
      for (;;) {
        const r = await deliverDueEvents(db, ctx, clock);
        n += r.delivered;
        if (r.delivered + r.retrying + r.failed === 0) return n;
        if (r.retrying + r.failed > 0) throw new Error('deliveries failed in the bench');
      }
    };
    const events: Record<string, number> = {};
    for (const workers of [1, 4]) {
      await seedEvents(o.events);
      const s = performance.now();
      const counts = await Promise.all(Array.from({ length: workers }, drain));
      const total = counts.reduce((a, b) => a + b, 0);
      if (total !== o.events) throw new Error(`delivered ${total} of ${o.events}`);
      events[`deliverers${workers}`] = Math.round(total / ((performance.now() - s) / 1000));
      log(
        `data out: ${total.toLocaleString()} events outbox -> local receiver, ${workers} deliverer(s): ${events[`deliverers${workers}`]!.toLocaleString()} events/s`,
      );
    }
    const result = { date: new Date().toISOString(), export: exportResult, eventsPerSecond: events, events: o.events };
    writeFileSync('bench/data-out-results.json', JSON.stringify(result, null, 2));
    await h.close();
    return result;
  } finally {
    receiver.close();
    await server?.stop();
    await fresh.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  dataOutBench({
    entries: Number(flag('entries') ?? 1_000_000),
    events: Number(flag('events') ?? 20_000),
    baseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    port: Number(process.env.BENCH_PORT ?? 8791),
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
