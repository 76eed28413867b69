/**
 * Public reads from a cache, when a team asks for it (a contest's or game's `publicCacheSeconds`).
 *
 * What a public key reads about a contest or game (the contest, its leaderboard, its bonus
 * actions, the game), and a revealed draw's snapshot when it fits in one page, is stored for that many seconds after the database answered it, under a key
 * made of the API key's hash and the URL: another key (a masked one, an unknown one) never gets
 * that answer, and a key the database has never accepted has no entry at all. Private keys are
 * never cached. The first answer says how long it may be kept (the setting is read by the same
 * statement), so a contest with `publicCacheSeconds: 0` is never stored and every answer stays exact.
 *
 * Concurrency: when an entry is missing or expired, one request per process (Node) or isolate
 * (Workers) goes to the database; the others that ask for the same URL meanwhile wait for its
 * answer (polling this process's copy; a request on Workers may not await another request's
 * promise) instead of sending the same statement again. No answer is ever older than its seconds.
 *
 * Where the copies live: `memoryPublicCache` (bounded, in process) on Node; on Workers the same
 * in the isolate in front of the Workers Cache API (one copy per data centre, shared by its
 * isolates). docs/operations.md says what can be stale and for how long.
 */
import { createMiddleware } from 'hono/factory';
import type { PublicCache, PublicCacheAnswer } from '../deps.js';
import type { AppEnv } from './context.js';
import { PUBLIC_CACHE_MAX_SECONDS } from './fields.js';

/** How long a request waits for another request's database read of the same URL before sending its own. */
const WAIT_MS = 2000;
const POLL_MS = 5;

const inflightByCache = new WeakMap<PublicCache, Map<string, number>>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A response as the cache keeps it: its body, its type and download name, its times and scope. */
async function answerOf(
  res: Response,
  storedAt: number,
  expiresAt: number,
  about: { scope?: string; personal?: boolean } = {},
): Promise<PublicCacheAnswer> {
  const disposition = res.headers.get('content-disposition');
  const csp = res.headers.get('content-security-policy');
  return {
    body: await res.text(),
    contentType: res.headers.get('content-type') ?? 'application/json',
    ...(disposition !== null ? { contentDisposition: disposition } : {}),
    ...(csp !== null ? { contentSecurityPolicy: csp } : {}),
    storedAt,
    expiresAt,
    ...(about.scope ? { scope: about.scope } : {}),
    ...(about.personal ? { personal: true } : {}),
  };
}

const SCOPE_IN_PATH = /^\/api\/v1\/(?:contests|instant-win-games)\/([0-9a-fA-F-]{36})(?:\/|$)/;

/** `Cache-Control` for a client: `private` when the answer carries personal data (a browser may keep it, a shared cache may not). */
const cacheControl = (personal: boolean | undefined, seconds: number) =>
  `${personal ? 'private' : 'public'}, max-age=${seconds}`;

/**
 * Caches the route's 200 answer for a public key for the seconds the handler set with
 * `c.set('publicCacheSeconds', n)` (0 or unset: not stored). Goes after requireKey('public').
 * `page`: a page every visitor gets alike (the hosted page): no key, and one entry whatever the
 * query string (a share link's `?ref=` is read in the browser), so no query busts the cache.
 */
export function publicCached(opts: { page?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const deps = c.var.deps;
    const cache = deps.publicCache;
    if (!cache || c.req.method !== 'GET' || (!opts.page && c.var.auth.type !== 'public')) return next();
    let inflight = inflightByCache.get(cache);
    if (!inflight) {
      inflight = new Map();
      inflightByCache.set(cache, inflight);
    }
    const url = new URL(c.req.url);
    const key = opts.page
      ? `${url.origin}${url.pathname}?ce-page`
      : `${url.origin}${url.pathname}${url.search}${url.search ? '&' : '?'}ce-key=${c.var.auth.keyHash}`;

    const fresh = async () => {
      const a = await cache.get(key);
      return a && a.expiresAt > deps.clock.now().getTime() ? a : null;
    };
    let hit = await fresh();
    if (!hit && inflight.has(key)) {
      // another request is reading this URL from the database: wait for its answer
      const until = Date.now() + WAIT_MS;
      while (!hit && inflight.has(key) && Date.now() < until) {
        await sleep(POLL_MS);
        if (!inflight.has(key)) hit = await fresh();
      }
    }
    if (hit) {
      c.set('publicCacheHit', true);
      const now = deps.clock.now().getTime();
      return c.body(hit.body, 200, {
        'Content-Type': hit.contentType,
        ...(hit.contentDisposition ? { 'Content-Disposition': hit.contentDisposition } : {}),
        ...(hit.contentSecurityPolicy ? { 'Content-Security-Policy': hit.contentSecurityPolicy } : {}),
        'Cache-Control': cacheControl(hit.personal, Math.max(0, Math.ceil((hit.expiresAt - now) / 1000))),
        Age: String(Math.max(0, Math.floor((now - hit.storedAt) / 1000))),
        Vary: 'X-API-Key',
      });
    }

    const claimed = !inflight.has(key);
    if (claimed) inflight.set(key, Date.now());
    try {
      await next();
      const seconds = Math.min(c.get('publicCacheSeconds') ?? 0, PUBLIC_CACHE_MAX_SECONDS);
      if (c.res.status !== 200 || seconds <= 0 || c.error) return;
      const personal = c.get('publicCachePersonal') === true;
      c.res.headers.set('Cache-Control', cacheControl(personal, seconds));
      c.res.headers.append('Vary', 'X-API-Key');
      const storedAt = deps.clock.now().getTime();
      const scope = (c.get('publicCacheScope') ?? SCOPE_IN_PATH.exec(url.pathname)?.[1])?.toLowerCase();
      const answer = await answerOf(c.res.clone(), storedAt, storedAt + seconds * 1000, { scope, personal });
      // put() keeps this process's copy before it returns (waiters see it at once); a slower
      // shared tier (the Cache API) finishes after the answer
      deps.background(c, cache.put(key, answer));
    } finally {
      if (claimed) inflight.delete(key);
    }
  });
}

/**
 * A bounded in-process cache: at most `maxEntries` answers and `maxBytes` of bodies, the least
 * recently used dropped first. It keeps no clock: an expired answer stays until it is replaced
 * or dropped, and the reader (publicCached) treats it as missing.
 */
export function memoryPublicCache(opts: { maxEntries?: number; maxBytes?: number } = {}): PublicCache {
  const maxEntries = opts.maxEntries ?? 1000;
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  const map = new Map<string, PublicCacheAnswer>();
  let bytes = 0;
  const drop = (key: string) => {
    const a = map.get(key);
    if (!a) return;
    bytes -= a.body.length;
    map.delete(key);
  };
  return {
    async get(key) {
      const a = map.get(key);
      if (!a) return null;
      // least recently used first: a read moves the entry to the end
      map.delete(key);
      map.set(key, a);
      return a;
    },
    put(key, answer) {
      if (answer.body.length > maxBytes) return Promise.resolve();
      drop(key);
      map.set(key, answer);
      bytes += answer.body.length;
      for (const k of map.keys()) {
        if (map.size <= maxEntries && bytes <= maxBytes) break;
        drop(k);
      }
      return Promise.resolve();
    },
    forget(scope) {
      for (const [k, a] of map) if (a.scope === scope) drop(k);
      return Promise.resolve();
    },
  };
}

/** The part of the Workers Cache API used here (caches.default). */
export interface CacheStorageLike {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
}

/**
 * Workers: the isolate's own bounded copy, then the data centre's Cache API (shared by the
 * isolates there; a copy per data centre; on *.workers.dev it stores nothing and the isolate's
 * copy does the work). The entry's times travel in headers, so an isolate that finds it in the
 * Cache API keeps it for exactly the time left.
 */
export function workersPublicCache(cacheApi: CacheStorageLike, memory = memoryPublicCache()): PublicCache {
  // the Cache API cannot list its keys: the isolate remembers the ones it stored, per scope, so
  // that forget() can delete them there (what other isolates stored expires on its own)
  const keysByScope = new Map<string, Set<string>>();
  return {
    async get(key) {
      const own = await memory.get(key);
      if (own) return own;
      const res = await cacheApi.match(new Request(key)).catch(() => undefined);
      if (!res) return null;
      const answer = await answerOf(
        res,
        Number(res.headers.get('x-ce-stored-at')),
        Number(res.headers.get('x-ce-expires-at')),
      );
      if (!Number.isFinite(answer.storedAt) || !Number.isFinite(answer.expiresAt)) return null;
      const scope = res.headers.get('x-ce-scope');
      const stored = {
        ...answer,
        ...(scope ? { scope } : {}),
        ...(res.headers.has('x-ce-personal') ? { personal: true } : {}),
      };
      await memory.put(key, stored);
      return stored;
    },
    put(key, answer) {
      // the isolate's copy now (synchronously), the data centre's in the background
      void memory.put(key, answer);
      if (answer.scope) {
        const keys = keysByScope.get(answer.scope) ?? new Set();
        if (keys.size < 1000) keys.add(key);
        keysByScope.set(answer.scope, keys);
      }
      const seconds = Math.max(1, Math.ceil((answer.expiresAt - answer.storedAt) / 1000));
      return cacheApi
        .put(
          new Request(key),
          new Response(answer.body, {
            headers: {
              'content-type': answer.contentType,
              ...(answer.contentDisposition ? { 'content-disposition': answer.contentDisposition } : {}),
              ...(answer.contentSecurityPolicy ? { 'content-security-policy': answer.contentSecurityPolicy } : {}),
              'cache-control': `public, max-age=${seconds}`,
              'x-ce-stored-at': String(answer.storedAt),
              'x-ce-expires-at': String(answer.expiresAt),
              ...(answer.scope ? { 'x-ce-scope': answer.scope } : {}),
              ...(answer.personal ? { 'x-ce-personal': '1' } : {}),
            },
          }),
        )
        .catch(() => undefined);
    },
    async forget(scope) {
      await memory.forget(scope);
      const keys = keysByScope.get(scope);
      keysByScope.delete(scope);
      if (keys) await Promise.all([...keys].map((k) => cacheApi.delete(new Request(k)).catch(() => false)));
    },
  };
}
