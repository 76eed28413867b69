/**
 * npm run bench -- --call-cost [--samples N]
 *
 * What calling a statement function costs Postgres by itself, apart from any statement's own
 * work: one connection sends a trivial statement (ten parameters in, twenty text columns out) in
 * three ways, N times each in blocks taken in turn, and reads its backend's CPU
 * (/proc/<pid>/schedstat):
 * - as a named prepared statement (Node's way: bound and run, planned once);
 * - as `select * from f($1, …)`, unnamed, the same statement in a PL/pgSQL function (the Worker's
 *   way over Neon's HTTP endpoint: the call itself is parsed and planned every time);
 * - the same call as a named prepared statement (what the function costs without the call's own
 *   parsing and planning, which no HTTP request can avoid);
 * and, apart, the session reset Neon's proxy sends on a connection after every HTTP request.
 * Twice: back to back, and with 3 ms between statements (caches grow cold between them, as they do
 * between a runtime's requests). The median of the blocks, in microseconds. Linux only.
 */
import pg from 'pg';
import { SESSION_RESET } from '../scripts/neon-http.js';
import { schedOf } from './cpu.js';

export async function callCostBench(opts: { baseUrl: string; samples: number; log: (...a: unknown[]) => void }) {
  const client = new pg.Client({ connectionString: opts.baseUrl });
  await client.connect();
  try {
    const columns = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const types = ['text', 'text', 'text', 'timestamptz', 'timestamptz', 'uuid', 'uuid', 'int', 'uuid', 'int'];
    const select = `select ${columns.map((c) => `$1::text as ${c}`).join(', ')}, ${types
      .slice(1)
      .map((t, i) => `$${i + 2}::${t} as p${i + 2}`)
      .join(', ')}`;
    const body = select.replace(/\$(\d+)/g, 'a$1');
    const returns = [...columns.map((c) => `${c} text`), ...types.slice(1).map((t, i) => `p${i + 2} ${t}`)];
    await client.query(
      `create function pg_temp.ce_call_cost(${types.map((t, i) => `a${i + 1} ${t}`).join(', ')})
       returns table (${returns.join(', ')}) language plpgsql volatile as $f$
       #variable_conflict use_column
       begin return query ${body}; end $f$`,
    );
    const call = `select * from pg_temp.ce_call_cost(${types.map((_, i) => `$${i + 1}`).join(', ')})`;
    const id = '902b8224-b971-463b-a01b-00efd365859c';
    const at = new Date().toISOString();
    const values = ['a key hash', 'private', 'public', at, at, id, id, '25', id, '25'];
    // the reset on a connection of its own: it deallocates the other one's prepared statements
    const resetClient = new pg.Client({ connectionString: opts.baseUrl });
    await resetClient.connect();
    const ways: Record<string, { on: pg.Client; q: { name?: string; text: string; values?: string[] } }> = {
      'named statement (Node)': { on: client, q: { name: 'ce_call_cost_named', text: select, values } },
      'unnamed function call (Worker)': { on: client, q: { text: call, values } },
      'named function call': { on: client, q: { name: 'ce_call_cost_call', text: call, values } },
      // what Neon's proxy sends on a connection after every HTTP request (scripts/neon-http.ts)
      "Neon's session reset": { on: resetClient, q: { text: SESSION_RESET } },
    };
    const pids = new Map<pg.Client, number>();
    for (const c of [client, resetClient])
      pids.set(c, (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
    const cpuMs = (c: pg.Client) => schedOf(pids.get(c)!)![0] / 1e6;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const BLOCK = 50;
    const out: Record<string, Record<string, number>> = {};
    for (const { on, q } of Object.values(ways)) for (let i = 0; i < 20; i++) await on.query(q);
    for (const gap of [0, 3]) {
      const blocks: Record<string, number[]> = {};
      for (let b = 0; b < Math.max(1, Math.round(opts.samples / BLOCK)); b++) {
        for (const [way, { on, q }] of Object.entries(ways)) {
          const before = cpuMs(on);
          for (let i = 0; i < BLOCK; i++) {
            await on.query(q);
            if (gap) await sleep(gap);
          }
          blocks[way] = [...(blocks[way] ?? []), ((cpuMs(on) - before) / BLOCK) * 1000];
        }
      }
      for (const [way, xs] of Object.entries(blocks)) out[way] = { ...out[way], [`gap ${gap} ms`]: median(xs) };
    }
    const pad = (s: unknown, n: number) => String(s).padEnd(n);
    opts.log(
      [
        `\nPostgres CPU of a trivial statement (10 parameters, 29 columns), µs per statement, median of blocks of ${BLOCK}`,
        `${pad('way', 34)}${pad('back to back', 14)}3 ms between`,
        ...Object.entries(out).map(
          ([way, r]) => `${pad(way, 34)}${pad(r['gap 0 ms']!.toFixed(0), 14)}${r['gap 3 ms']!.toFixed(0)}`,
        ),
      ].join('\n'),
    );
    await resetClient.end();
    return out;
  } finally {
    await client.end();
  }
}
