/**
 * node-postgres driver: statements run as named prepared statements (planned once per
 * connection) unless turned off, and give the same rows either way.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { hasRealPostgres } from './support/harness.js';

describe.skipIf(!hasRealPostgres)('node-postgres driver (real Postgres)', () => {
  for (const named of [true, false]) {
    it(`named statements ${named ? 'on' : 'off'}: same rows, and ${named ? 'a' : 'no'} server-side prepared statement`, async () => {
      // the run's own server database (not the template, which other files are cloning)
      const h = await openPg(process.env.TEST_DATABASE_URL!, { max: 1, migrate: false, namedStatements: named });
      try {
        for (let i = 0; i < 3; i++) {
          const rows = await query<{ n: number; s: string }>(
            h.db,
            sql`select ${i}::int + 1 as n, ${'x'}::text || 'y' as s`,
          );
          expect(rows).toEqual([{ n: i + 1, s: 'xy' }]);
        }
        const prepared = await query<{ name: string }>(
          h.db,
          sql`select name from pg_prepared_statements where statement like '%as n, %' and statement not like '%pg_prepared_statements%'`,
        );
        expect(prepared.length).toBe(named ? 1 : 0);
        if (named) expect(prepared[0]!.name).toMatch(/^ce_[0-9a-f]+$/);
      } finally {
        await h.close();
      }
    });
  }
});
