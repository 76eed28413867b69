/**
 * npm run bench -- --explain <database>   (a database kept by `npm run bench -- --keep`)
 *
 * Where a write's time goes inside Postgres. The app builds each endpoint's statement (captured,
 * not sent, as the bench's own floor does), then every statement is run 200 times with
 * EXPLAIN (ANALYZE, BUFFERS) inside a transaction that is rolled back, with `auto_explain` on
 * for nested statements and triggers: the time of every trigger and function a statement sets
 * off shows. Prints, per endpoint, the median execution time, the plan nodes and triggers
 * ranked by their share, and one full plan.
 */

import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createApiKey } from '../src/admin/admin.js';
import { createApp } from '../src/app.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { cryptoRandom } from '../src/deps.js';
import { hashCookie } from '../src/instant-win/hashing.js';
import { benchDeps, type Captured, statementScope } from './capture.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export async function explainWrites(url: string, log: (...a: unknown[]) => void, runs = 200) {
  const h = await openPg(url, { max: 2, migrate: false });
  const db = h.db;
  const contest = (
    await query<{ id: string }>(db, sql`select id from contests where tool_type is null order by created_at limit 1`)
  )[0]!;
  const team = (await query<{ team_id: string }>(db, sql`select team_id from contests where id = ${contest.id}`))[0]!;
  const priv = (await createApiKey(db, cryptoRandom, team.team_id, 'private', 'explain')).key;
  const pub = (await createApiKey(db, cryptoRandom, team.team_id, 'public', 'explain')).key;
  const referrer = (
    await query<{ referral_code: string }>(
      db,
      sql`select referral_code from entries where contest_id = ${contest.id} order by random() limit 1`,
    )
  )[0]!;
  const game = (
    await query<{ id: string; tier: string }>(
      db,
      sql`select g.contest_id as id, t.id as tier from instant_win_games g join instant_win_tiers t on t.game_id = g.contest_id and not t.is_miss limit 1`,
    )
  )[0];
  const cookie = 'explaincookie0123456789abcdefghijklmnop';
  const deps = benchDeps(h.provider, 'http://localhost');
  const app = createApp(deps);
  const statementOf = async (method: string, path: string, key: string, body: unknown) => {
    const store: Captured[] = [];
    await statementScope.run({ n: 0, dry: store }, () =>
      app.request(path, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    const own = store.find((q) => q.text.includes('ce_key'));
    if (!own) throw new Error(`${method} ${path}: no statement captured`);
    return own;
  };

  const cases: { name: string; make: (i: number) => Promise<Captured> }[] = [
    {
      name: 'entry create (referral)',
      make: (i) =>
        statementOf('POST', `/api/v1/contests/${contest.id}/entries`, priv, {
          email: `explain-${Date.now()}-${i}@example.com`,
          name: 'New',
          referralCode: referrer.referral_code,
        }),
    },
  ];
  if (game) {
    const plays = await query<{ id: string }>(
      db,
      sql`insert into instant_win_plays (game_id, tier_id, status, random_value, cookie_hash, play_day, expires_at)
          select ${game.id}, ${game.tier}, 'pending', 1, ${await hashCookie(cookie)}, current_date, now() + interval '24 hours'
          from generate_series(1, ${14 * runs + 60}::int) returning id`,
    );
    cases.push({
      name: 'instant-win claim',
      make: (i) =>
        statementOf('POST', `/api/v1/instant-win-games/${game.id}/plays/${plays[i]!.id}/claim`, pub, {
          email: `explain-winner-${Date.now()}-${i}@example.com`,
          playCookie: cookie,
        }),
    });
  }

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const notices: string[] = [];
  client.on('notice', (n) => notices.push(n.message ?? ''));
  await client.query(`load 'auto_explain'`);
  for (const s of [
    'auto_explain.log_min_duration = 0',
    'auto_explain.log_analyze = on',
    'auto_explain.log_buffers = on',
    'auto_explain.log_triggers = on',
    'auto_explain.log_nested_statements = on',
    'auto_explain.log_timing = on',
    'auto_explain.log_format = text',
    'client_min_messages = log',
  ])
    await client.query(`set ${s}`);

  const out: Record<string, unknown> = {};
  for (const c of cases) {
    const exec: number[] = [];
    const nodeTimes = new Map<string, number[]>();
    let sample = '';
    for (let i = 0; i < runs; i++) {
      const st = await c.make(i);
      notices.length = 0;
      await client.query('begin');
      let plan: string;
      try {
        const r = await client.query({ text: `explain (analyze, buffers, timing) ${st.text}`, values: st.values });
        plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
      } finally {
        await client.query('rollback');
      }
      exec.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
      // triggers (statement-level ones are where contest_stats and series go) and nested statements
      for (const m of plan.matchAll(/Trigger (\S+)(?: on \S+)?: time=([\d.]+) calls=(\d+)/g)) {
        const k = `trigger ${m[1]}`;
        (nodeTimes.get(k) ?? nodeTimes.set(k, []).get(k)!).push(Number(m[2]));
      }
      for (const n of notices) {
        const m = /duration: ([\d.]+) ms\s+plan:\s+Query Text: ([^\n]+)/.exec(n);
        if (!m || m[2]!.includes('explain (analyze')) continue;
        const k = `nested: ${m[2]!.trim().replace(/\s+/g, ' ').slice(0, 90)}`;
        (nodeTimes.get(k) ?? nodeTimes.set(k, []).get(k)!).push(Number(m[1]));
      }
      if (i === runs - 1) sample = plan;
    }
    const ranked = [...nodeTimes.entries()]
      .map(([k, xs]) => ({ what: k, medianMs: median(xs), runs: xs.length }))
      .sort((a, b) => b.medianMs - a.medianMs);
    const line = `${c.name}: execution p50 ${median(exec).toFixed(2)} ms over ${runs} runs (rolled back)`;
    log(`\n${line}`);
    for (const r of ranked.slice(0, 12)) log(`  ${r.medianMs.toFixed(3).padStart(8)} ms  ${r.what}`);
    log(
      `  one plan:\n${sample
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}`,
    );
    // planning against execution: the same statement as a named prepared statement (as the app
    // sends it on Node), timed from the client, each run rolled back, under each plan cache mode
    const modes: Record<string, number> = {};
    for (const mode of ['auto', 'force_custom_plan', 'force_generic_plan']) {
      const plain = new pg.Client({ connectionString: url });
      await plain.connect();
      await plain.query(`set plan_cache_mode = ${mode}`);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const st = await c.make(runs + i);
        await plain.query('begin');
        const t = performance.now();
        try {
          await plain.query({ name: 'explain_case', text: st.text, values: st.values });
          times.push(performance.now() - t);
        } finally {
          await plain.query('rollback');
        }
      }
      await plain.end();
      modes[mode] = median(times.slice(Math.min(10, times.length - 1)));
    }
    log(
      `  as a named prepared statement, from the client, p50: ${Object.entries(modes)
        .map(([m, ms]) => `${m} ${ms.toFixed(2)} ms`)
        .join(', ')}`,
    );
    const transports = await planningCost(url, c.make, runs);
    log(
      `  planned each time (an unnamed statement, as SQL over HTTP sends it) against kept plans, Postgres CPU per run: ${Object.entries(
        transports,
      )
        .map(([m, r]) => `${m} ${r.cpuMs.toFixed(2)} ms (client p50 ${r.p50Ms.toFixed(2)} ms)`)
        .join(', ')}`,
    );
    if (process.env.EXPLAIN_GENERIC) {
      // the generic plan, for reading: PREPARE, then EXPLAIN ANALYZE EXECUTE with the values as literals
      const plain = new pg.Client({ connectionString: url });
      await plain.connect();
      const st = await c.make(2 * runs);
      const lit = (v: unknown) =>
        v === null || v === undefined
          ? 'NULL'
          : typeof v === 'number' || typeof v === 'boolean'
            ? String(v)
            : plain.escapeLiteral(typeof v === 'string' ? v : JSON.stringify(v));
      await plain.query('set plan_cache_mode = force_generic_plan');
      await plain.query(`prepare g as ${st.text}`);
      await plain.query('begin');
      const r = await plain.query(`explain (analyze, buffers) execute g(${st.values.map(lit).join(', ')})`);
      await plain.query('rollback');
      log(r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n'));
      await plain.end();
    }
    out[c.name] = { executionP50Ms: median(exec), parts: ranked, plan: sample, preparedP50Ms: modes, transports };
  }
  await client.end();
  await h.close();
  return out;
}

/** CPU ticks (1/100 s) a backend has used so far (Linux /proc; 0 elsewhere). */
function backendTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/**
 * The same statement three ways, each run rolled back, on one connection each: as an unnamed
 * statement (parsed and planned every time: what each request costs over Neon's HTTP endpoint), as
 * a named prepared statement (Node), and as the body of a PL/pgSQL function called with the values
 * (whose plans the connection keeps: what a pooled connection behind Neon's HTTP endpoint would
 * keep between requests). Postgres CPU per run from the backend's /proc counters.
 */
async function planningCost(url: string, make: (i: number) => Promise<Captured>, runs: number) {
  const out: Record<string, { cpuMs: number; p50Ms: number }> = {};
  const probe = await make(10 * runs);
  for (const mode of ['unnamed', 'prepared', 'function'] as const) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const pid = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    let call = (st: Captured) => c.query({ text: st.text, values: st.values });
    if (mode === 'prepared') call = (st) => c.query({ name: 'probe', text: st.text, values: st.values });
    if (mode === 'function') {
      // the parameters' types as Postgres infers them for the statement, then the statement as a function body
      await c.query(`prepare probe_types as ${probe.text}`);
      const types = (
        await c.query<{ t: string[] }>(
          `select parameter_types::text[] as t from pg_prepared_statements where name = 'probe_types'`,
        )
      ).rows[0]!.t.map((t) => (t === 'unknown' ? 'text' : t));
      await c.query('deallocate probe_types');
      const args = types.map((t, i) => `p${i + 1} ${t}`).join(', ');
      await c.query(`create function pg_temp.ce_probe(${args}) returns setof json language plpgsql as $probe$
        declare ce_probe_row record;
        begin
          for ce_probe_row in ${probe.text} loop return next to_json(ce_probe_row); end loop;
        end $probe$`);
      const call_ = `select * from pg_temp.ce_probe(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})`;
      call = (st) => c.query({ text: call_, values: st.values });
    }
    const times: number[] = [];
    let before = 0;
    for (let i = 0; i < runs + 10; i++) {
      if (i === 10) before = backendTicks(pid); // after the warm-up: the first runs plan, the function's too
      const st = await make(
        11 * runs + (mode === 'unnamed' ? 0 : mode === 'prepared' ? runs + 10 : 2 * (runs + 10)) + i,
      );
      await c.query('begin');
      const t = performance.now();
      try {
        await call(st);
        if (i >= 10) times.push(performance.now() - t);
      } finally {
        await c.query('rollback');
      }
    }
    const cpuMs = ((backendTicks(pid) - before) * 10) / runs;
    await c.end();
    out[mode] = { cpuMs, p50Ms: median(times) };
  }
  return out;
}
