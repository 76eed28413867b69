/**
 * The salt of IP address and user agent hashes. IP_HASH_SALT when set; else a random one the
 * deployment made at its first start and keeps in `deployment_secrets`, the same for every process
 * and isolate (never a constant in the code: with a salt known to all, an IPv4 address is found
 * again from its hash by trying the 2^32 addresses).
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { toHex } from '../lib/crypto.js';
import { type Db, queryOne } from './client.js';

const SALT_NAME = 'ip_hash_salt';

/** Reads the deployment's salt, or makes it (32 random bytes) if no process did before. */
export async function loadOrMakeSalt(db: Db, random: Deps['random']): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await queryOne<{ value: string }>(
      db,
      sql`with made as (
            insert into deployment_secrets (name, value) values (${SALT_NAME}, ${toHex(random.bytes(32))})
            on conflict (name) do nothing
            returning value
          )
          select value from made union all select value from deployment_secrets where name = ${SALT_NAME} limit 1`,
    );
    // a process that made it at the same instant committed after this statement's snapshot: read again
    if (row) return row.value;
  }
  throw new Error('deployment_secrets: the IP hash salt could neither be made nor read');
}

const salts = new WeakMap<Deps, Promise<string>>();

/**
 * The salt for this deployment: the setting, or the stored one (read once per process or isolate,
 * on the first request that hashes an address; a failed read is tried again next time).
 */
export function ipHashSalt(deps: Deps): Promise<string> {
  if (deps.config.ipHashSalt) return Promise.resolve(deps.config.ipHashSalt);
  let salt = salts.get(deps);
  if (!salt) {
    const handle = deps.database.acquire();
    salt = loadOrMakeSalt(handle.db, deps.random).finally(() => handle.release());
    salts.set(deps, salt);
    salt.catch(() => salts.delete(deps));
  }
  return salt;
}
