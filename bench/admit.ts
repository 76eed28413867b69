/**
 * npm run bench -- --admit (after the main bench), or alone: tsx bench/admit.ts [--entries N] [--count C]
 *
 * Letting a waitlist in at size, on a fresh database of BENCH_DATABASE_URL's server: a waitlist of
 * N confirmed entries (default 1,000,000, points spread so that the order is not the join order),
 * then `POST /contests/{id}/admit {count: C}` (default 10,000) through the real app (the bench
 * server, bench/server.ts, as a child process), twice: the seconds each answer took, and a check
 * that C entries were admitted, C emails queued and the first still waiting now has position 1.
 * Writes bench/admit-results.json.
 */
import { writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { createApiKey, createTeam } from '../src/admin/admin.js';
import { createContest } from '../src/contests/contest-settings.js';
import { query, queryOne } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { cryptoRandom } from '../src/deps.js';
import { flag, freshDatabase, startBenchServer } from './support.js';

export interface AdmitBenchOptions {
  entries: number;
  count: number;
  baseUrl: string;
  port: number;
  log?: (...a: unknown[]) => void;
}

export async function admitBench(o: AdmitBenchOptions) {
  const log = o.log ?? console.log;
  const fresh = await freshDatabase(o.baseUrl, `ce_bench_admit_${process.pid}`);
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    const h = await openPg(fresh.url, { max: 4 });
    const db = h.db;
    const team = await createTeam(db, 'Admit bench');
    const priv = (await createApiKey(db, cryptoRandom, team.id, 'private', 'bench')).key;
    const contest = await createContest(
      db,
      cryptoRandom,
      team.id,
      {
        title: 'Waitlist bench',
        mode: 'waitlist',
        status: 'active',
        isEvergreen: true,
        requireEmailConfirmation: false,
      },
      new Date(),
    );
    const seedStart = Date.now();
    await query(
      db,
      sql`insert into entries (contest_id, email, name, referral_code, points, email_confirmed, created_at)
          select ${contest.id}, 'person' || i || '@example.com', 'Person ' || i, 'X' || lpad(i::text, 9, '0'),
                 (i * 7) % 1000, true, now() - interval '30 days' + (i || ' milliseconds')::interval
          from generate_series(1, ${o.entries}::int) i`,
    );
    await query(db, sql`select ce_fold_positions()`);
    await query(db, sql`vacuum analyze`);
    log(
      `admit: seeded a waitlist of ${o.entries.toLocaleString()} entries in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    server = await startBenchServer(fresh.url, o.port);

    const rounds: { seconds: number; admitted: number }[] = [];
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${o.port}/api/v1/contests/${contest.id}/admit`, {
        method: 'POST',
        headers: { 'x-api-key': priv, 'content-type': 'application/json', 'idempotency-key': `bench-${round}` },
        body: JSON.stringify({ count: o.count }),
      });
      const body = (await res.json()) as { data?: { count: number } };
      const seconds = (performance.now() - t0) / 1000;
      if (res.status !== 200 || body.data?.count !== o.count)
        throw new Error(`admit answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      rounds.push({ seconds: Number(seconds.toFixed(2)), admitted: body.data.count });
      log(`admit: round ${round + 1}: ${o.count.toLocaleString()} admitted in ${seconds.toFixed(2)} s`);
    }
    const check = await queryOne<{ admitted: number; mails: number }>(
      db,
      sql`select (select count(*)::int from entries where contest_id = ${contest.id} and admitted_at is not null) as admitted,
        (select count(*)::int from email_outbox where contest_id = ${contest.id} and kind = 'admitted') as mails`,
    );
    if (check!.admitted !== 2 * o.count) throw new Error(`admitted ${check!.admitted}, expected ${2 * o.count}`);
    const result = { date: new Date().toISOString(), entries: o.entries, count: o.count, rounds, ...check };
    writeFileSync('bench/admit-results.json', `${JSON.stringify(result, null, 2)}\n`);
    log(`admit: ${check!.admitted.toLocaleString()} admitted, ${check!.mails.toLocaleString()} emails queued`);
    await h.close();
    return result;
  } finally {
    await server?.stop();
    await fresh.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  admitBench({
    entries: Number(flag('entries') ?? 1_000_000),
    count: Number(flag('count') ?? 10_000),
    baseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    port: Number(process.env.BENCH_PORT ?? 8792),
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
