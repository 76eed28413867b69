import type { Context } from 'hono';
import type { Db } from '../db/client.js';
import type { KeyTeam } from '../db/team.js';
import type { Deps } from '../deps.js';
import type { ApiError } from '../errors.js';

export interface AuthInfo {
  /** the key's team, checked inside the request's statement (src/db/team.ts) */
  team: KeyTeam;
  /** what the key's prefix says it is (the statement refuses a key whose stored type differs) */
  type: 'public' | 'private';
  /** hex SHA-256 of the key (keyless: `contest:<id>`) */
  keyHash: string;
  /** a contest's visitor without a key (requireKey's `keyless`): personal data always masked */
  keyless?: boolean;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    /** the request's database handle, made on first use and released after the response */
    db: () => Db;
    /** a handle with interactive transactions (inbound webhooks only); made on first use */
    txDb: () => Db;
    auth: AuthInfo;
    /** the route's 401/403 answers for a key refused inside a statement */
    keyErrors?: { unauthorized: () => ApiError; forbidden: () => ApiError };
    requestId: string;
    /** set by a handler: seconds its 200 answer to a public key may be kept (src/http/public-cache.ts) */
    publicCacheSeconds?: number;
    /** set by a handler: the contest or game its answer is about (default: the one in the path) */
    publicCacheScope?: string;
    /** set by a handler: its answer carries personal data (names, emails), sent as `private` */
    publicCachePersonal?: boolean;
    /** the answer came from the public cache: no statement, no key check */
    publicCacheHit?: boolean;
  };
}

export type AppContext = Context<AppEnv>;
