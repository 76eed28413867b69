/**
 * npm run bench -- --bodies [--samples N]: what a hostile body costs the server, on Node (`npm
 * start`) and on the Worker (`npm run dev`), over a fresh database on the machine's Postgres.
 *
 * Each sample sends one body and, at the same moment, `GET /health`; it records both answers'
 * times. The bodies: 64 KiB of nested arrays from a stranger (a keyless visit of a made-up
 * contest: 401 after the body is refused), the same on a route with a made-up private key, and a
 * 1 MiB body of nested arrays on a reward's codes (the route that takes 1 MiB). Each answers 400
 * or 401 after the size check, the depth count and nothing else. Samples stay under the
 * per-address bad-key limit (100 a minute).
 */
import { openPg } from '../src/db/drivers/pg.js';
import { startDev, stop } from './edge.js';
import { freshDatabase } from './support.js';

const nestedBody = (bytes: number, prefix = '') => {
  const depth = Math.floor((bytes - prefix.length - 8) / 2);
  return `{${prefix}"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export async function bodiesBench(opts: { baseUrl: string; samples: number; log: (...a: unknown[]) => void }) {
  const { log } = opts;
  const samples = Math.min(opts.samples, 30);
  const fresh = await freshDatabase(opts.baseUrl, `ce_bodies_${process.pid}`);
  const h = await openPg(fresh.url, { max: 1 });
  await h.close();
  const madeUp = '6f1c1d1e-1111-4111-8111-111111111111';
  const fakeKey = `sk_${'x'.repeat(40)}`;
  const cases = [
    { name: '64 KiB nested, keyless visit', path: `/api/v1/contests/${madeUp}/visits`, key: null, bytes: 64 * 1024 },
    {
      name: '64 KiB nested, contest update',
      path: `/api/v1/contests/${madeUp}`,
      method: 'PATCH',
      key: fakeKey,
      bytes: 64 * 1024,
    },
    {
      name: '1 MiB nested, reward codes',
      path: `/api/v1/contests/${madeUp}/rewards/${madeUp}/codes`,
      key: fakeKey,
      bytes: 1024 * 1024,
    },
  ];
  const results: Record<string, Record<string, number | string>> = {};
  try {
    for (const runtime of ['node', 'workerd'] as const) {
      const { base, child } = await startDev(fresh.url, 'http', 0, {}, runtime === 'node');
      try {
        for (const c of cases) {
          const body = nestedBody(c.bytes);
          const bodyMs: number[] = [];
          const healthMs: number[] = [];
          let status = '';
          for (let i = 0; i < samples; i++) {
            const t0 = performance.now();
            const [r, health] = await Promise.all([
              fetch(`${base}${c.path}`, {
                method: c.method ?? 'POST',
                headers: { 'content-type': 'application/json', ...(c.key ? { 'x-api-key': c.key } : {}) },
                body,
              }).then(async (res) => {
                await res.text();
                bodyMs.push(performance.now() - t0);
                return res.status;
              }),
              fetch(`${base}/health`).then(async (res) => {
                await res.text();
                healthMs.push(performance.now() - t0);
                return res.status;
              }),
            ]);
            status = `${r}, health ${health}`;
          }
          const row = {
            status,
            'body p50 ms': Number(pct(bodyMs, 50).toFixed(1)),
            'body max ms': Number(Math.max(...bodyMs).toFixed(1)),
            'health p50 ms': Number(pct(healthMs, 50).toFixed(1)),
            'health max ms': Number(Math.max(...healthMs).toFixed(1)),
          };
          results[`${runtime}: ${c.name}`] = row;
          log(`  ${runtime}: ${c.name}: ${JSON.stringify(row)}`);
        }
      } finally {
        await stop(child);
      }
    }
    console.table(results);
    return results;
  } finally {
    await fresh.drop();
  }
}
