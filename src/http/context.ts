import type { Context } from 'hono';
import type { Db } from '../db/client.js';
import type { Deps } from '../deps.js';

export interface AuthInfo {
  keyId: string;
  teamId: string;
  type: 'public' | 'private';
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    /** the request's database handle, made on first use and released after the response */
    db: () => Db;
    auth: AuthInfo;
    requestId: string;
  };
}

export type AppContext = Context<AppEnv>;
