import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { DatabaseProvider } from '../../deps.js';
import { type Db, useNamedStatements } from '../client.js';
import { loadDisposableDomains } from '../disposable.js';
import { installDatabaseFunctions } from '../functions.js';
import { migrationsFolder } from '../migrate.js';
import * as schema from '../schema.js';
import { installStatementFunctions } from '../statement-functions.js';

export interface PgHandle {
  pool: pg.Pool;
  db: Db;
  provider: DatabaseProvider;
  close(): Promise<void>;
}

/** A real Postgres over node-postgres, one pool for the process. */
export async function openPg(
  url: string,
  opts: {
    max?: number;
    migrate?: boolean;
    searchPath?: string;
    /** named prepared statements (default true); off for poolers that cannot keep them */
    namedStatements?: boolean;
  } = {},
): Promise<PgHandle> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    options: opts.searchPath ? `-c search_path=${opts.searchPath}` : undefined,
  });
  // an idle client's error (server restart, killed connection) must not crash the process
  pool.on('error', (err) =>
    console.error(JSON.stringify({ level: 'error', msg: 'idle pg client error', error: String(err) })),
  );
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  if (opts.namedStatements !== false) useNamedStatements(db);
  if (opts.migrate !== false) {
    await migrate(drizzle({ client: pool }), { migrationsFolder, migrationsSchema: opts.searchPath });
    await loadDisposableDomains(db);
    await installDatabaseFunctions(db);
    await installStatementFunctions(db);
  }
  return {
    pool,
    db,
    provider: { acquire: () => ({ db, release: async () => {} }) },
    close: () => pool.end(),
  };
}
