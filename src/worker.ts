/**
 * Cloudflare Worker entry: builds the dependencies from the Worker's env (Neon Pool per request,
 * ended with ctx.waitUntil) and hands them to createApp(). Nothing else knows it runs on Workers.
 * `scheduled()` (cron, every minute) delivers due emails and expires unclaimed instant-win plays.
 */
import { createApp, type App } from './app.js';
import { neonProvider } from './db/drivers/neon.js';
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
  /** test/dev only: host:port of the local WebSocket-to-Postgres proxy (scripts/ws-proxy.ts) */
  NEON_WS_PROXY?: string;
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
    database: neonProvider(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY || undefined }),
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
    },
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
