import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';

/**
 * What a public key shows of entries ('full' or 'masked'), or null when it is not a live public
 * key (the demo page warns about a key that shows personal data). One statement.
 */
export async function publicKeyPersonalData(db: Db, keyHash: string): Promise<'full' | 'masked' | null> {
  const row = await queryOne<{ personal_data: 'full' | 'masked' }>(
    db,
    sql`select personal_data from api_keys where key_hash = ${keyHash} and type = 'public' and revoked_at is null`,
  );
  return row?.personal_data ?? null;
}
