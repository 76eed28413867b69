import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { DatabaseProvider } from '../../deps.js';
import type { Db } from '../client.js';
import { loadDisposableDomains } from '../disposable.js';
import { installDatabaseFunctions } from '../functions.js';
import { migrationsFolder } from '../migrate.js';
import * as schema from '../schema.js';
import { installStatementFunctions } from '../statement-functions.js';

export interface PgliteHandle {
  client: PGlite;
  db: Db;
  provider: DatabaseProvider;
  close(): Promise<void>;
}

/** Embedded Postgres. `dataDir`: a folder, or memory:// ; `loadDataDir`: a snapshot to start from. */
export async function openPglite(
  opts: { dataDir?: string; loadDataDir?: Blob | File; migrate?: boolean } = {},
): Promise<PgliteHandle> {
  const client = await PGlite.create({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    extensions: { pg_trgm },
  });
  const db = drizzle({ client, schema }) as unknown as Db;
  if (opts.migrate !== false) {
    await migrate(drizzle({ client }), { migrationsFolder });
    await loadDisposableDomains(db);
    await installDatabaseFunctions(db);
    await installStatementFunctions(db);
  }
  return {
    client,
    db,
    provider: { acquire: () => ({ db, release: async () => {} }) },
    close: () => client.close(),
  };
}
