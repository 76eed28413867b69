/**
 * API-key auth for /api/v1. Keys are looked up by their SHA-256 (never stored in clear), in one
 * statement that also refreshes last_used_at at most once a minute per key.
 */
import { sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { queryOne } from '../db/client.js';
import { sha256Hex } from '../lib/crypto.js';
import type { AppEnv, AuthInfo } from './context.js';
import { type ApiError, Errors } from './errors.js';

export const KEY_RE = /^(pk|sk)_[A-Za-z0-9]{32,128}$/;

interface KeyOptions {
  /** the 401 answer; default `Missing or invalid API key` */
  unauthorized?: () => ApiError;
  /** the 403 answer for a public key on a private route; default `This endpoint requires a private API key` */
  forbidden?: () => ApiError;
}

export function requireKey(access: 'public' | 'private', opts: KeyOptions = {}) {
  const unauthorized = opts.unauthorized ?? Errors.missingOrInvalidKey;
  const forbidden = opts.forbidden ?? Errors.privateKeyRequired;
  return createMiddleware<AppEnv>(async (c, next) => {
    // keys in the query string are refused like a missing key, even next to a header
    const url = new URL(c.req.url);
    if (url.searchParams.has('apiKey') || url.searchParams.has('api_key')) throw unauthorized();
    const key = c.req.header('x-api-key')?.trim();
    if (!key || !KEY_RE.test(key)) throw unauthorized();
    const auth = await lookupKey(c.var.db(), key, c.var.deps.clock.now());
    if (!auth) throw unauthorized();
    if (access === 'private' && auth.type !== 'private') throw forbidden();
    c.set('auth', auth);
    await next();
  });
}

export async function lookupKey(db: ReturnType<AppEnv['Variables']['db']>, key: string, now: Date): Promise<AuthInfo | null> {
  const hash = await sha256Hex(key);
  const row = await queryOne<{ id: string; team_id: string; type: 'public' | 'private' }>(
    db,
    sql`with k as (
          select id, team_id, type from api_keys where key_hash = ${hash} and revoked_at is null
        ), touch as (
          update api_keys set last_used_at = ${now.toISOString()}::timestamptz
          where id in (select id from k)
            and (last_used_at is null or last_used_at < ${now.toISOString()}::timestamptz - interval '60 seconds')
          returning 1
        )
        select id, team_id, type from k`,
  );
  return row ? { keyId: row.id, teamId: row.team_id, type: row.type } : null;
}
