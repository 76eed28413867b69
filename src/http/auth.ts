/**
 * API-key auth for /api/v1, in the request's own statement (one database round trip).
 *
 * The middleware checks only what needs no database (a key in the query string is refused; the
 * header must look like a key) and hands the route `c.var.auth.team`: the team as SQL whose CTEs
 * check the key inside the statement the route sends anyway (src/db/team.ts). A bad key makes
 * that statement raise CEK01, a public key on a private route CEK03; both are answered here with
 * the route's own wording, and nothing changed. An answer that sent no statement with the key
 * check in it (a 400 for a bad body, a 404 for a malformed id, a 429) checks the key once before
 * it leaves, so every bad key still answers 401/403 first, exactly as when the check came first.
 */
import { createMiddleware } from 'hono/factory';
import { keyCheckScope, pgError, query } from '../db/client.js';
import {
  KEY_FORBIDDEN_SQLSTATE,
  KEY_INVALID_SQLSTATE,
  teamOfEntryToken,
  teamOfKey,
  teamOfPublicContest,
} from '../db/team.js';
import { type Deps, memoryRateLimiter, type RateLimiter } from '../deps.js';
import { type ApiError, Errors } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { entryTokenOf } from '../lib/entry-tokens.js';
import { type FailureLimiter, memoryFailureLimiter } from '../lib/failure-limiter.js';
import { clientAddressKey } from './client-address.js';
import type { AppContext, AppEnv, AuthInfo } from './context.js';

export const KEY_RE = /^(pk|sk)_[A-Za-z0-9]{32,128}$/;

/** play and claim keep their own limit (per IP and game) and are not counted by the public-key limit */
const OWN_LIMIT_PATH = /^\/api\/v1\/instant-win-games\/[^/]+\/(play|plays\/[^/]+\/claim)\/?$/;

const defaultLimiters = new WeakMap<Deps, RateLimiter>();
const defaultPublicLimiter = (deps: Deps) => {
  let l = defaultLimiters.get(deps);
  if (!l) {
    l = memoryRateLimiter(600, 60, deps.clock);
    defaultLimiters.set(deps, l);
  }
  return l;
};

/**
 * Unknown keys (well-formed, refused by the database), per client address: past 100 a minute the address is refused (429)
 * before any database work, whatever key it sends. A made-up `pk_` key has a rate-limit bucket of
 * its own, so without this an address could send any number of them to the database.
 */
export const BAD_KEYS_PER_MINUTE = 100;
const badKeyLimiters = new WeakMap<Deps, FailureLimiter>();
const badKeyLimiter = (deps: Deps) => {
  let l = badKeyLimiters.get(deps);
  if (!l) {
    l = memoryFailureLimiter(BAD_KEYS_PER_MINUTE, 60, () => deps.clock.now().getTime());
    badKeyLimiters.set(deps, l);
  }
  return l;
};
const badKeyClient = (c: AppContext) => `badkey:${clientAddressKey(c)}`;

interface KeyOptions {
  /**
   * `contest`: without an X-API-Key header the route answers a contest's visitor when the contest
   * (the path's :contestId) takes public sign-ups, limited per client address, personal data
   * masked (teamOfPublicContest); any other contest answers as a missing key does.
   * `entryToken`: without an X-API-Key header, a visitor's `Authorization: Bearer et_…` gives
   * the team of its entry (teamOfEntryToken; 401 Missing or invalid entry token for an unknown
   * one); the route must still check that the token is the entry's own.
   * A key, when sent, is checked as always.
   */
  keyless?: 'contest' | 'entryToken';
  /** the 401 answer; default `Missing or invalid API key` */
  unauthorized?: () => ApiError;
  /** the 403 answer for a public key on a private route; default `This endpoint requires a private API key` */
  forbidden?: () => ApiError;
}

export function requireKey(access: 'public' | 'private', opts: KeyOptions = {}) {
  const unauthorized = opts.unauthorized ?? Errors.missingOrInvalidKey;
  const forbidden = opts.forbidden ?? Errors.privateKeyRequired;
  const keyErrors = { unauthorized, forbidden };
  return createMiddleware<AppEnv>(async (c, next) => {
    // keys in the query string are refused like a missing key, even next to a header
    const url = new URL(c.req.url);
    const refusedFor = badKeyLimiter(c.var.deps).refusedFor(badKeyClient(c));
    if (refusedFor > 0) throw Errors.tooManyRequests(refusedFor);
    if (url.searchParams.has('apiKey') || url.searchParams.has('api_key')) throw unauthorized();
    const key = c.req.header('x-api-key')?.trim();
    const contestId = c.req.param('contestId');
    const token = !key && opts.keyless === 'entryToken' ? entryTokenOf(c.req.header('authorization')) : null;
    let auth: AuthInfo;
    let errors = keyErrors;
    if (!key && opts.keyless === 'contest' && access === 'public' && contestId) {
      // a contest's visitor without a key: limited per client address
      await limitPublic(c, 'keyless');
      const team = teamOfPublicContest(contestId.trim());
      auth = { team, type: 'public', keyHash: team.keyHash, keyless: true };
    } else if (token) {
      await limitPublic(c, 'keyless');
      const team = teamOfEntryToken(await sha256Hex(token));
      auth = { team, type: 'public', keyHash: team.keyHash, keyless: true };
      errors = { ...keyErrors, unauthorized: Errors.invalidEntryToken };
    } else {
      if (!key || !KEY_RE.test(key)) throw unauthorized();
      const type = key.startsWith('sk_') ? 'private' : 'public';
      const keyHash = await sha256Hex(key);
      // a public key is in page source: its requests are limited per (key, client IP), before any database work
      if (type === 'public' && !OWN_LIMIT_PATH.test(c.req.path)) await limitPublic(c, `pk:${keyHash}`);
      const team = teamOfKey(keyHash, type, access, c.var.deps.clock.now());
      auth = { team, type, keyHash: team.keyHash };
    }
    c.set('auth', auth);
    c.set('keyErrors', errors);
    // a statement that raised the key check's SQLSTATE is answered by app.onError (keyError below)
    const keyCheck = { cte: auth.team.cte, ran: false };
    await keyCheckScope.run(keyCheck, next);
    if (!keyCheck.ran && !c.get('publicCacheHit')) {
      // no statement carried the key check (a 400 for a bad body, a 404 for a malformed id, a
      // 429...): check the key now, so a bad key answers 401/403 first, as it always did (an
      // answer from the public cache was stored for this very key after a statement accepted it)
      await query(c.var.db(), auth.team.check);
    }
  });
}

/** The public limit (per `bucket` and client address, before any database work): 429 past it. */
export async function limitPublic(c: AppContext, bucket: string) {
  const deps = c.var.deps;
  const limiter = deps.publicRateLimiter ?? defaultPublicLimiter(deps);
  const { success, retryAfterSeconds } = await limiter.limit(`${bucket}:${clientAddressKey(c)}`);
  if (!success) throw Errors.tooManyRequests(retryAfterSeconds);
}

/** The answer for an error raised by the key check inside a statement, in the route's wording. */
export function keyError(c: AppContext, e: unknown): ApiError | undefined {
  const code = pgError(e)?.code;
  if (code !== KEY_INVALID_SQLSTATE && code !== KEY_FORBIDDEN_SQLSTATE) return undefined;
  if (code === KEY_INVALID_SQLSTATE) badKeyLimiter(c.var.deps).fail(badKeyClient(c));
  const errors = c.var.keyErrors ?? { unauthorized: Errors.missingOrInvalidKey, forbidden: Errors.privateKeyRequired };
  return code === KEY_INVALID_SQLSTATE ? errors.unauthorized() : errors.forbidden();
}
