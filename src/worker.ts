/**
 * Cloudflare Worker entry: builds the dependencies from the Worker's env (Neon Pool per request,
 * ended with ctx.waitUntil) and hands them to createApp(). Nothing else knows it runs on Workers.
 */
import { createApp, type App } from './app.js';
import { neonProvider } from './db/drivers/neon.js';
import { type Deps, type RateLimiter, consoleLogger, cryptoRandom, logMailer, memoryRateLimiter, systemClock } from './deps.js';

export interface Env {
  DATABASE_URL: string;
  ADMIN_TOKEN?: string;
  PUBLIC_URL?: string;
  IP_HASH_SALT?: string;
  /** Workers Rate Limiting binding ([[ratelimits]] in wrangler.toml) */
  PLAY_LIMITER?: { limit(opts: { key: string }): Promise<{ success: boolean }> };
}

function bindingRateLimiter(binding: NonNullable<Env['PLAY_LIMITER']>): RateLimiter {
  return {
    async limit(key) {
      const { success } = await binding.limit({ key });
      return { success, retryAfterSeconds: success ? 0 : 60 };
    },
  };
}

let cached: { env: Env; app: App } | undefined;

function appFor(env: Env, requestUrl: string): App {
  if (cached && cached.env === env) return cached.app;
  const logger = consoleLogger;
  const deps: Deps = {
    database: neonProvider(env.DATABASE_URL),
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: env.PLAY_LIMITER ? bindingRateLimiter(env.PLAY_LIMITER) : memoryRateLimiter(30, 60),
    mailer: logMailer(logger),
    logger,
    config: {
      adminToken: env.ADMIN_TOKEN || undefined,
      publicUrl: (env.PUBLIC_URL ?? new URL(requestUrl).origin).replace(/\/+$/, ''),
      ipHashSalt: env.IP_HASH_SALT ?? 'contest-engine-dev-salt',
    },
    clientIp: (c) => c.req.header('cf-connecting-ip') ?? null,
    background: (c, work) => c.executionCtx.waitUntil(work),
  };
  const app = createApp(deps);
  cached = { env, app };
  return app;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return appFor(env, request.url).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
