import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleHttp } from 'drizzle-orm/neon-http';
import { drizzle } from 'drizzle-orm/neon-serverless';
import type { DatabaseProvider } from '../../deps.js';
import { type Db, functionCall, missingFunction, useBatchRunner, useStatementFunctions } from '../client.js';
import * as schema from '../schema.js';
import { STATEMENT_FUNCTIONS } from '../statement-functions.generated.js';

export interface NeonProviderOptions {
  /**
   * Test/dev only: `host:port` of a local WebSocket-to-TCP proxy (scripts/ws-proxy.ts) in front
   * of a plain Postgres. Unset in production: the driver talks to Neon's own proxy over wss.
   */
  wsProxy?: string;
}

/**
 * Points the driver at a plain local proxy: `ws://` (no TLS), no pipelined TLS or password
 * (a local Postgres may use trust or SCRAM auth, which the pipelined startup cannot do).
 */
function useLocalProxy(proxy: string) {
  const base = proxy.replace(/^wss?:\/\//, '').replace(/\/+$/, '');
  neonConfig.wsProxy = (host, port) => `${base}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/**
 * Neon's WebSocket Pool, made per request and ended after it (a Worker must never reuse a
 * client across requests). `release` is handed to ctx.waitUntil by the app.
 */
export function neonProvider(connectionString: string, opts: NeonProviderOptions = {}): DatabaseProvider {
  if (opts.wsProxy) useLocalProxy(opts.wsProxy);
  return {
    acquire() {
      const pool = new Pool({ connectionString });
      const db = drizzle({ client: pool, schema }) as unknown as Db;
      return { db, release: () => pool.end() };
    },
  };
}

export interface NeonHttpProviderOptions extends NeonProviderOptions {
  /**
   * Test/dev only: URL of a local SQL-over-HTTP endpoint (scripts/neon-http.ts), e.g.
   * `http://127.0.0.1:4444/sql`. Unset in production: the driver posts to `https://<host>/sql`.
   */
  fetchEndpoint?: string;
}

/**
 * Neon's SQL-over-HTTP path: every statement is one HTTP request (`neon()`), a batch
 * (`db.batch([...])`, the driver's `transaction([...])`) one request and one transaction.
 * Nothing is held between requests, so one client serves them all and there is nothing to
 * release. Interactive transactions (`db.transaction(async tx => …)`) are not supported by
 * this driver: they throw.
 */
export function neonHttpProvider(connectionString: string, opts: NeonHttpProviderOptions = {}): DatabaseProvider {
  if (opts.fetchEndpoint) neonConfig.fetchEndpoint = opts.fetchEndpoint;
  const client = neon(connectionString);
  const db = drizzleHttp({ client, schema }) as unknown as Db;
  // the hot statements through their functions, whose plans Postgres keeps on Neon's pooled
  // connections (src/db/statement-functions.ts)
  useStatementFunctions(db, STATEMENT_FUNCTIONS);
  // batch(): the statements in ONE HTTP request, run by Neon as one transaction
  const dialect = (db as unknown as { dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } } }).dialect;
  // (each statement through its function when it has one, as query() sends it)
  useBatchRunner(db, async (statements) => {
    const built = statements.map((s) => dialect.sqlToQuery(s));
    const calls = built.map((q) => functionCall(db, q));
    const send = (qs: { sql: string; params: unknown[] }[]) =>
      client.transaction(qs.map((q) => client.query(q.sql, q.params))) as unknown as Promise<
        Record<string, unknown>[][]
      >;
    try {
      return await send(calls.map((c, i) => c ?? built[i]!));
    } catch (e) {
      // no function of this version yet: the batch was rolled back whole; the statements themselves
      const fns = calls.flatMap((c) => (c ? [c.fn] : []));
      if (fns.length === 0 || !missingFunction(e, fns)) throw e;
      return send(built);
    }
  });
  const release = () => Promise.resolve();
  // the one route family that needs an interactive transaction (inbound platform webhooks)
  // gets the WebSocket Pool, made per request and ended after it
  const interactive = neonProvider(connectionString, { wsProxy: opts.wsProxy });
  return {
    acquire() {
      return { db, release };
    },
    acquireInteractive: () => interactive.acquire(),
  };
}
