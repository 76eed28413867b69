import { Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import type { DatabaseProvider } from '../../deps.js';
import type { Db } from '../client.js';
import * as schema from '../schema.js';

/**
 * Neon's WebSocket Pool, made per request and ended after it (a Worker must never reuse a
 * client across requests). `release` is handed to ctx.waitUntil by the app.
 */
export function neonProvider(connectionString: string): DatabaseProvider {
  return {
    acquire() {
      const pool = new Pool({ connectionString });
      const db = drizzle({ client: pool, schema }) as unknown as Db;
      return { db, release: () => pool.end() };
    },
  };
}
