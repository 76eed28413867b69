import { Pool, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import type { DatabaseProvider } from '../../deps.js';
import type { Db } from '../client.js';
import * as schema from '../schema.js';

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
