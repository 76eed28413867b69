/**
 * Cloudflare Worker entry: builds the dependencies from the Worker's env (Neon over HTTP, one
 * request per statement or batch; DB_TRANSPORT=ws: the WebSocket Pool per request, ended with
 * ctx.waitUntil) and hands them to createApp(). Nothing else knows it runs on Workers.
 * `scheduled()` (cron, every minute) delivers due emails and expires unclaimed instant-win plays.
 */

import { type App, createApp } from './app.js';
import { configFromSettings } from './config.js';
import { neonHttpProvider, neonProvider } from './db/drivers/neon.js';
import { consoleLogger, cryptoRandom, type Deps, memoryRateLimiter, type RateLimiter, systemClock } from './deps.js';
import { readSettings, type Settings, SettingsError } from './environment.js';
import { type CacheStorageLike, workersPublicCache } from './http/public-cache.js';
import { runScheduledJobs } from './jobs.js';
import { workerMailer } from './mail/select.js';

export interface Env {
  DATABASE_URL: string;
  ADMIN_TOKEN?: string;
  PUBLIC_URL?: string;
  IP_HASH_SALT?: string;
  /** Workers Rate Limiting binding ([[ratelimits]] in wrangler.toml) */
  PLAY_LIMITER?: { limit(opts: { key: string }): Promise<{ success: boolean }> };
  /** public-key requests per (key, client IP): PUBLIC_RATE_LIMIT a minute, set in wrangler.toml */
  PUBLIC_LIMITER?: { limit(opts: { key: string }): Promise<{ success: boolean }> };
  /** used only without the PUBLIC_LIMITER binding (in-memory, per isolate) */
  PUBLIC_RATE_LIMIT?: string;
  /** days a share link's visit is kept as a row (default 30) */
  VISIT_RETENTION_DAYS?: string;
  /** email: RESEND_API_KEY + MAIL_FROM send through Resend; nothing set = log transport */
  MAIL_TRANSPORT?: string;
  MAIL_FROM?: string;
  RESEND_API_KEY?: string;
  RESEND_API_URL?: string;
  /** `http` (default): Neon's SQL-over-HTTP path; `ws`: the WebSocket Pool (kept for comparison) */
  DB_TRANSPORT?: string;
  /** test/dev only: URL of the local SQL-over-HTTP endpoint (scripts/neon-http.ts), e.g. http://127.0.0.1:4444/sql */
  NEON_HTTP_ENDPOINT?: string;
  /** test/dev only: host:port of the local WebSocket-to-Postgres proxy (scripts/ws-proxy.ts) */
  NEON_WS_PROXY?: string;
  /** "1": outbound events may go to http://localhost and private addresses (development only) */
  ALLOW_HTTP_WEBHOOKS?: string;
  TURNSTILE_SECRET_KEY?: string;
  TURNSTILE_SITE_KEY?: string;
  TURNSTILE_VERIFY_URL?: string;
  INTEGRATIONS_KEY?: string;
  INTEGRATIONS_KEY_PREVIOUS?: string;
  KLAVIYO_API_URL?: string;
  MAILCHIMP_API_URL?: string;
  HUBSPOT_API_URL?: string;
}

function databaseFor(settings: Settings) {
  if (!settings.DATABASE_URL)
    throw new SettingsError(['DATABASE_URL is not set: the Worker needs it (wrangler secret put DATABASE_URL).']);
  if (settings.DB_TRANSPORT === 'ws') return neonProvider(settings.DATABASE_URL, { wsProxy: settings.NEON_WS_PROXY });
  return neonHttpProvider(settings.DATABASE_URL, {
    fetchEndpoint: settings.NEON_HTTP_ENDPOINT,
    wsProxy: settings.NEON_WS_PROXY,
  });
}

function bindingRateLimiter(binding: NonNullable<Env['PLAY_LIMITER']>): RateLimiter {
  return {
    async limit(key) {
      const { success } = await binding.limit({ key });
      return { success, retryAfterSeconds: success ? 0 : 60 };
    },
  };
}

let cached: { env: Env; deps: Deps; app: App } | undefined;

function depsFor(env: Env, requestUrl?: string): { deps: Deps; app: App } {
  if (cached && cached.env === env) return cached;
  const logger = consoleLogger;
  const settings = readSettings(env as unknown as Record<string, unknown>, 'worker');
  const publicUrl = settings.PUBLIC_URL ?? (requestUrl ? new URL(requestUrl).origin : 'http://localhost:8787');
  const deps: Deps = {
    database: databaseFor(settings),
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: env.PLAY_LIMITER ? bindingRateLimiter(env.PLAY_LIMITER) : memoryRateLimiter(30, 60),
    publicRateLimiter: env.PUBLIC_LIMITER
      ? bindingRateLimiter(env.PUBLIC_LIMITER)
      : memoryRateLimiter(settings.PUBLIC_RATE_LIMIT ?? 600, 60),
    // public reads a team allows to be cached: this isolate's copy, then the data centre's Cache API
    publicCache: workersPublicCache((caches as unknown as { default: CacheStorageLike }).default),
    mailer: workerMailer(env, logger),
    logger,
    config: {
      ...configFromSettings(settings),
      publicUrl: publicUrl.replace(/\/+$/, ''),
      platformCompresses: true,
    },
    // outbound events: a delivery pass per request, kept alive by waitUntil (the cron is the safety net)
    eventKick: 'per-request',
    clientIp: (c) => c.req.header('cf-connecting-ip') ?? null,
    background: (c, work) => c.executionCtx.waitUntil(work),
  };
  const app = createApp(deps);
  // a scheduled event has no request URL: keep building on the first fetch until one came
  if (requestUrl || env.PUBLIC_URL) cached = { env, deps, app };
  return { deps, app };
}

/**
 * A setting the Worker cannot use (DATABASE_URL missing, PUBLIC_RATE_LIMIT=abc…): every request
 * answers the 500 envelope and the log says, in one sentence per setting, what is wrong.
 */
function misconfigured(e: SettingsError): Response {
  consoleLogger.error('invalid settings', { problems: e.problems });
  return new Response(JSON.stringify({ success: false, error: 'Internal server error' }), {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    let app: App;
    try {
      app = depsFor(env, request.url).app;
    } catch (e) {
      if (e instanceof SettingsError) return misconfigured(e);
      throw e;
    }
    return app.fetch(request, env, ctx);
  },
  async scheduled(_controller: ScheduledController, env: Env, _ctx: ExecutionContext) {
    const { deps } = depsFor(env);
    await runScheduledJobs(deps);
  },
} satisfies ExportedHandler<Env>;
