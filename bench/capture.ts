/**
 * Statements a request sends, seen at node-postgres (imported for its effect: it patches
 * pg.Client#query once). Inside `statementScope.run(store, ...)` every query is counted in
 * `store.n`; with `store.dry` set it is recorded there and NOT sent (an empty result is answered),
 * which is how the bench captures an endpoint's own statements (bench/server.ts, bench/explain.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { cryptoRandom, type DatabaseProvider, type Deps, systemClock } from '../src/deps.js';

const unlimited = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };

/**
 * The app's dependencies in the bench: no rate limits (the load comes from one address with one
 * key), emails not sent, errors printed.
 */
export function benchDeps(database: DatabaseProvider, publicUrl: string): Deps {
  return {
    database,
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: unlimited,
    publicRateLimiter: unlimited,
    meRateLimiter: unlimited,
    mailer: { send: async () => {} },
    logger: { info: () => {}, error: (msg: string, f?: Record<string, unknown>) => console.error(msg, f) },
    config: { adminToken: undefined, publicUrl, ipHashSalt: 'bench' },
    clientIp: (c) => c.req.header('x-forwarded-for') ?? '127.0.0.1',
    background: (_c, work) => void work.catch(() => {}),
  };
}

export interface Captured {
  name?: string;
  text: string;
  values: unknown[];
}

export const statementScope = new AsyncLocalStorage<{ n: number; dry?: Captured[] }>();

const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function patched(this: pg.Client, ...args: unknown[]) {
  const store = statementScope.getStore();
  if (store) store.n += 1;
  if (store?.dry) {
    const q = (
      typeof args[0] === 'string' ? { text: args[0], values: Array.isArray(args[1]) ? args[1] : [] } : args[0]
    ) as {
      name?: string;
      text: string;
      values?: unknown[];
    };
    // drizzle passes the values beside the config object
    store.dry.push({
      name: q.name,
      text: q.text,
      values: q.values ?? (Array.isArray(args[1]) ? (args[1] as unknown[]) : []),
    });
    const fake = { rows: [], rowCount: 0, fields: [], command: 'SELECT' };
    // pg.Pool#query passes a callback; drizzle awaits the promise
    const cb = args.find((a) => typeof a === 'function') as ((err: null, r: typeof fake) => void) | undefined;
    if (cb) {
      queueMicrotask(() => cb(null, fake));
      return undefined;
    }
    return Promise.resolve(fake);
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof originalQuery;
