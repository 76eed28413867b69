/**
 * Everything the app needs from its runtime. The runtime entries (node.ts, worker.ts) build
 * one of these and hand it to createApp(); nothing else knows which runtime it is on.
 */
import type { Context } from 'hono';
import type { Db } from './db/client.js';
import type { PostToAddress } from './lib/pinned-post.js';

export interface DatabaseProvider {
  /** A database handle for one request. `release` is awaited (or deferred) when the request is done. */
  acquire(): { db: Db; release: () => Promise<void> };
  /**
   * A handle that supports interactive transactions (`db.transaction(async tx => ...)`), for the
   * one path that needs them (inbound platform webhooks, see src/webhooks/receipts.ts).
   * Omitted: acquire() already gives one (node-postgres, PGlite). On Workers, where the request
   * path talks to Neon over HTTP, this is the WebSocket Pool.
   */
  acquireInteractive?(): { db: Db; release: () => Promise<void> };
}

export interface Clock {
  now(): Date;
}

export interface RandomSource {
  /** n cryptographically random bytes (crypto.getRandomValues in production) */
  bytes(n: number): Uint8Array;
}

export interface RateLimiter {
  /** Counts one hit for `key`; `success: false` once the key is over its limit. */
  limit(key: string): Promise<{ success: boolean; retryAfterSeconds: number }>;
}

/** One answer kept by a PublicCache: the body as sent and when it stops being usable (ms, the app's clock). */
export interface PublicCacheAnswer {
  body: string;
  contentType: string;
  /** a download's file name (the draw snapshot's CSV) */
  contentDisposition?: string;
  /** a page's Content-Security-Policy (the hosted page's hashes of its inline style and script) */
  contentSecurityPolicy?: string;
  storedAt: number;
  expiresAt: number;
  /** the contest (or game) the answer is about: forget(scope) drops it */
  scope?: string;
  /** it carries personal data (names, emails): sent to clients as `private` */
  personal?: boolean;
}

/** Where public reads are kept when a contest or game allows it (src/http/public-cache.ts). */
export interface PublicCache {
  get(key: string): Promise<PublicCacheAnswer | null>;
  /** keeps the answer where get() in this process sees it before returning; slower tiers may finish later */
  put(key: string, answer: PublicCacheAnswer): Promise<void>;
  /**
   * Drops every answer about this contest or game that this process (Node) or isolate and its
   * data centre's cache (Workers) holds: after an erasure or a disqualification.
   */
  forget(scope: string): Promise<void>;
}

export interface OutgoingEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  idempotencyKey: string;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Files served as they are (the /docs UI bundle), too big to go into the Worker script. */
export interface StaticFiles {
  /** The file at `path` (relative, e.g. "docs/assets/swagger-ui.css"), or null when there is none. */
  read(path: string): Promise<{ body: Uint8Array; etag: string } | null>;
}

export interface AppConfig {
  /** enables /api/admin/*; unset = every admin route answers 404 */
  adminToken?: string;
  /** base of links put into emails, without a trailing slash */
  publicUrl: string;
  /**
   * salt for hashing IP addresses and user agents (IP_HASH_SALT); unset: the deployment's own
   * random salt, made at first start and kept in the database (src/db/secrets.ts)
   */
  ipHashSalt?: string;
  /** the runtime compresses responses itself (Workers): the app must not compress them again */
  platformCompresses?: boolean;
  /** ALLOW_HTTP_WEBHOOKS=1: event receivers may be http://localhost and private addresses (development) */
  allowHttpWebhooks?: boolean;
  /** days a share link's visit is kept as a row (VISIT_RETENTION_DAYS, default 30) */
  visitRetentionDays?: number;
  /** Cloudflare Turnstile, for contests whose sign-ups ask for it (TURNSTILE_*) */
  turnstile?: { secretKey?: string; siteKey?: string; verifyUrl?: string; timeoutMs?: number };
  /**
   * the other tools (docs/integrations.md): the key their credentials are sealed with
   * (INTEGRATIONS_KEY; unset: the integration routes answer 503), the one before it while a key
   * is rotated, and where each provider's API is (*_API_URL; unset: the provider's own)
   */
  integrations?: {
    key?: string;
    previousKey?: string;
    urls?: { klaviyo?: string; mailchimp?: string; hubspot?: string };
    /** how long a provider's answer may take (default 10 s) */
    timeoutMs?: number;
  };
}

export interface Deps {
  database: DatabaseProvider;
  clock: Clock;
  random: RandomSource;
  rateLimiter: RateLimiter;
  /**
   * Requests made with a public key, per (key, client IP): PUBLIC_RATE_LIMIT a minute (default
   * 600; play and claim are not counted here, they keep rateLimiter). Omitted: 600 in memory.
   */
  publicRateLimiter?: RateLimiter;
  /**
   * Public reads of contests and games whose `publicCacheSeconds` is above 0 (Node: bounded in
   * process; Workers: the isolate's copy and the Cache API). Omitted: every read goes to the database.
   */
  publicCache?: PublicCache;
  /** GET /api/v1/me, per client address (default 120 a minute in memory) */
  meRateLimiter?: RateLimiter;
  mailer: Mailer;
  logger: Logger;
  config: AppConfig;
  /** The caller's IP address as this runtime knows it (Worker: cf-connecting-ip; Node: the socket). */
  clientIp(c: Context): string | null;
  /** Runs work after the response (Worker: ctx.waitUntil; Node: fire and forget with logging). */
  background(c: Context, work: Promise<unknown>): void;
  /** Node: read from installed packages. Workers: unset, the platform serves them (static assets). */
  staticFiles?: StaticFiles;
  /** fetch for outbound events (tests inject a receiver); default globalThis.fetch */
  fetch?: typeof fetch;
  /** resolves a host name to its addresses (Node: dns.lookup); absent where the runtime cannot (Workers) */
  resolveHost?: (host: string) => Promise<string[]>;
  /**
   * Node: sends an outbound event's POST to the address `resolveHost` gave and the delivery
   * checked, never resolving the name again (src/lib/pinned-post.ts). Absent: `fetch`.
   */
  postToAddress?: PostToAddress;
  /**
   * Event delivery after a request: 'shared' (default; one delivery loop per process that
   * requests join, Node) or 'per-request' (each request runs its own pass: Workers, where a
   * request may not wait on another request's I/O).
   */
  eventKick?: 'shared' | 'per-request';
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The platform's CSPRNG, drawn 4 KiB at a time: a request takes 12 to 60 bytes in several small
 * draws, and each crypto.getRandomValues() call costs far more than the bytes (on Node, 2.7% of
 * an instant-win play's CPU went to them). Every byte is handed out once; Node's own
 * crypto.randomUUID() keeps such a pool too.
 */
export const cryptoRandom: RandomSource = (() => {
  const POOL_BYTES = 4096;
  let pool = new Uint8Array(0);
  let offset = 0;
  return {
    bytes(n) {
      if (n > POOL_BYTES / 8) {
        const out = new Uint8Array(n);
        for (let i = 0; i < n; i += 65_536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65_536)));
        return out;
      }
      if (offset + n > pool.length) {
        pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
        offset = 0;
      }
      const out = pool.slice(offset, offset + n);
      pool.fill(0, offset, offset + n);
      offset += n;
      return out;
    },
  };
})();

export const consoleLogger: Logger = {
  info: (msg, fields) => console.log(JSON.stringify({ level: 'info', msg, ...fields })),
  error: (msg, fields) => console.error(JSON.stringify({ level: 'error', msg, ...fields })),
};

/** Fixed-window limiter kept in memory: right for one Node process (and for tests). */
export function memoryRateLimiter(limit: number, windowSeconds: number, clock: Clock = systemClock): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async limit(key) {
      const now = clock.now().getTime();
      const windowMs = windowSeconds * 1000;
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        if (windows.size > 100_000) windows.clear();
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      if (w.count > limit) {
        return { success: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) };
      }
      return { success: true, retryAfterSeconds: 0 };
    },
  };
}

/**
 * The client's address behind `hops` trusted proxies (TRUST_PROXY=N): each proxy appends the
 * address it saw to X-Forwarded-For, so the client is the N-th entry from the right. Entries
 * further left were written by the client and are never used. Fewer entries than hops: null.
 */
export function forwardedClientIp(header: string | undefined, hops: number): string | null {
  if (!header || hops < 1) return null;
  const list = header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list.length >= hops ? list[list.length - hops]! : null;
}

/** Prints emails instead of sending them (the default locally). */
export function logMailer(logger: Logger = consoleLogger): Mailer {
  return {
    async send(email) {
      logger.info('email', { to: email.to, subject: email.subject, text: email.text });
    },
  };
}
