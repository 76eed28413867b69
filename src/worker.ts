/**
 * Cloudflare Worker entry: builds the dependencies from the Worker's env (Neon over HTTP, one
 * request per statement or batch; DB_TRANSPORT=ws: the WebSocket Pool per request, ended with
 * ctx.waitUntil) and hands them to createApp(). Nothing else knows it runs on Workers.
 * `scheduled()` (cron, every minute) delivers due emails and expires unclaimed instant-win plays.
 */
import { createApp, type App } from './app.js';
import { neonHttpProvider, neonProvider } from './db/drivers/neon.js';
import { type Deps, type RateLimiter, consoleLogger, cryptoRandom, memoryRateLimiter, publicRateLimit, systemClock } from './deps.js';
import { runScheduledJobs } from './domain/jobs.js';
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
}

function databaseFor(env: Env) {
  const transport = (env.DB_TRANSPORT || 'http').toLowerCase();
  if (transport === 'ws') return neonProvider(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY || undefined });
  if (transport !== 'http') throw new Error(`DB_TRANSPORT must be http or ws, not ${JSON.stringify(env.DB_TRANSPORT)}`);
  return neonHttpProvider(env.DATABASE_URL, { fetchEndpoint: env.NEON_HTTP_ENDPOINT || undefined, wsProxy: env.NEON_WS_PROXY || undefined });
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
  const publicUrl = env.PUBLIC_URL ?? (requestUrl ? new URL(requestUrl).origin : 'http://localhost:8787');
  const deps: Deps = {
    database: databaseFor(env),
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: env.PLAY_LIMITER ? bindingRateLimiter(env.PLAY_LIMITER) : memoryRateLimiter(30, 60),
    publicRateLimiter: env.PUBLIC_LIMITER ? bindingRateLimiter(env.PUBLIC_LIMITER) : memoryRateLimiter(publicRateLimit(env.PUBLIC_RATE_LIMIT), 60),
    mailer: workerMailer(env, logger),
    logger,
    config: {
      adminToken: env.ADMIN_TOKEN || undefined,
      publicUrl: publicUrl.replace(/\/+$/, ''),
      ipHashSalt: env.IP_HASH_SALT ?? 'contest-engine-dev-salt',
      platformCompresses: true,
      allowHttpWebhooks: env.ALLOW_HTTP_WEBHOOKS === '1',
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

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return depsFor(env, request.url).app.fetch(request, env, ctx);
  },
  async scheduled(_controller: ScheduledController, env: Env, _ctx: ExecutionContext) {
    const { deps } = depsFor(env);
    await runScheduledJobs(deps);
  },
} satisfies ExportedHandler<Env>;
