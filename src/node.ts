/**
 * Node runner: builds the dependencies (PGlite by default, or DATABASE_URL), migrates, seeds an
 * empty database, and serves createApp(deps). Nothing else knows it runs on Node.
 */

import { lookup } from 'node:dns/promises';
import { mkdirSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { seedIfEmpty } from './admin/seed.js';
import { createApp } from './app.js';
import { configFromSettings } from './config.js';
import type { Db } from './db/client.js';
import { ipHashSalt } from './db/secrets.js';
import {
  consoleLogger,
  cryptoRandom,
  type Deps,
  forwardedClientIp,
  type Logger,
  type Mailer,
  memoryRateLimiter,
  systemClock,
} from './deps.js';
import { readSettings, type Settings, SettingsError } from './environment.js';
import { memoryPublicCache } from './http/public-cache.js';
import { runScheduledJobs } from './jobs.js';
import { describeError } from './lib/describe-error.js';
import { pinnedPost } from './lib/pinned-post.js';
import { stopLoops } from './lib/shared-loop.js';
import { logTransport } from './mail/log.js';
import { resendTransport } from './mail/resend.js';
import { mailConfigProblem, transportKind } from './mail/select.js';
import { docsFiles } from './meta/docs-files.js';

const env = process.env;
let settings: Settings;
try {
  settings = readSettings(env, 'node');
} catch (e) {
  if (!(e instanceof SettingsError)) throw e;
  console.error(e.message);
  process.exit(1);
}
const port = settings.PORT ?? 8787;
const trustedHops = settings.TRUST_PROXY ?? 0;

async function openDatabase(): Promise<{ db: Db; provider: Deps['database']; label: string; close(): Promise<void> }> {
  if (settings.DATABASE_URL) {
    const { openPg } = await import('./db/drivers/pg.js');
    const h = await openPg(settings.DATABASE_URL, {
      max: settings.DATABASE_POOL_MAX ?? 10,
      // a transaction-mode pooler (PgBouncer without prepared-statement support) needs them off
      namedStatements: settings.PG_NAMED_STATEMENTS ?? true,
    });
    return { ...h, label: 'postgres (DATABASE_URL)' };
  }
  const dir = settings.PGLITE_DIR ?? '.data/pglite';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const { openPglite } = await import('./db/drivers/pglite.js');
  const h = await openPglite({ dataDir: dir });
  return { ...h, label: `PGlite (${dir})` };
}

/** log (default), smtp (SMTP_URL, nodemailer loaded only then) or resend (RESEND_API_KEY). */
async function openMailer(logger: Logger): Promise<{ mailer: Mailer; label: string; close(): void }> {
  const kind = transportKind(env);
  const problem = mailConfigProblem(env, kind);
  if (problem) throw new Error(`Mail settings: ${problem}`);
  if (kind === 'smtp') {
    const { smtpTransport } = await import('./mail/smtp.js');
    const mailer = smtpTransport({ url: env.SMTP_URL!, from: env.MAIL_FROM! });
    return { mailer, label: `smtp (${new URL(env.SMTP_URL!).host})`, close: () => mailer.close() };
  }
  if (kind === 'resend') {
    const mailer = resendTransport({ apiKey: env.RESEND_API_KEY!, from: env.MAIL_FROM!, apiUrl: env.RESEND_API_URL });
    return { mailer, label: 'resend', close: () => {} };
  }
  return { mailer: logTransport(logger), label: 'log (emails are printed, not sent)', close: () => {} };
}

/** A stop that takes longer than this is cut (exit 1). */
const SHUTDOWN_LIMIT_MS = 10_000;

async function main() {
  const started = Date.now();
  const logger = consoleLogger;
  const mail = await openMailer(logger);
  const database = await openDatabase();
  const deps: Deps = {
    database: database.provider,
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: memoryRateLimiter(30, 60),
    publicRateLimiter: memoryRateLimiter(settings.PUBLIC_RATE_LIMIT ?? 600, 60),
    // public reads a team allows to be cached (publicCacheSeconds): bounded, in this process
    publicCache: memoryPublicCache(),
    mailer: mail.mailer,
    logger,
    config: {
      ...configFromSettings(settings),
      publicUrl: (settings.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    },
    // outbound events: receivers' names are resolved and checked at create/update and before each attempt
    fetch: globalThis.fetch,
    resolveHost: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
    // ...and the POST goes to the address that was checked, never to a second resolution
    postToAddress: pinnedPost(),
    clientIp: (c) => {
      // behind N trusted proxies (TRUST_PROXY=N) the client is the N-th X-Forwarded-For entry from the right
      if (trustedHops > 0) {
        const fwd = forwardedClientIp(c.req.header('x-forwarded-for'), trustedHops);
        if (fwd) return fwd;
      }
      try {
        return getConnInfo(c).remote.address ?? null;
      } catch {
        return null;
      }
    },
    background: (_c, work) => {
      work.catch((e) => logger.error('background task failed', { ...describeError(e) }));
    },
    staticFiles: docsFiles(),
  };

  const seeded = await seedIfEmpty(database.db, deps.random, deps.clock.now());
  // the deployment's own salt when IP_HASH_SALT is unset: made or read now, so no request waits for it
  await ipHashSalt(deps);
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port }, (info) => {
    console.log(
      `Contest Engine listening on http://localhost:${info.port} over ${database.label} (ready in ${Date.now() - started} ms)`,
    );
    console.log(`Email transport: ${mail.label}`);
    if (seeded) {
      console.log('Seeded a demo team. These keys are shown once; keep them:');
      console.log(`  public key:  ${seeded.publicKey}`);
      console.log(`  private key: ${seeded.privateKey}`);
      console.log(`  demo contest: ${seeded.contestId}`);
      console.log(`  try: curl -H 'x-api-key: ${seeded.publicKey}' http://localhost:${info.port}/api/v1/contests`);
    } else {
      // keys are shown once, at the first start: say how to get new ones
      console.log(
        deps.config.adminToken
          ? `API keys: make new ones with the admin API (POST /api/admin/teams/:teamId/api-keys, Authorization: Bearer $ADMIN_TOKEN) or in the console at http://localhost:${info.port}/console`
          : 'API keys were printed at the first start. To make new ones, restart with ADMIN_TOKEN=<a long random token> and use the admin API (docs/api.md#the-admin-api) or the console at /console.',
      );
    }
  });
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE')
      console.error(
        `Port ${port} is already in use: stop the program using it, or choose another port with PORT=<number>.`,
      );
    else if (e.code === 'EACCES')
      console.error(
        `Port ${port} needs privileges this user does not have: choose another port with PORT=<number> (1024 or above).`,
      );
    else console.error(`The server could not listen on port ${port}: ${e.message}`);
    process.exit(1);
  });

  // the Worker's cron, here: every minute deliver due emails (retries) and run the sweeps
  let jobs: Promise<unknown> | null = null;
  const tick = () => {
    jobs ??= runScheduledJobs(deps).finally(() => {
      jobs = null;
    });
  };
  const timer = setInterval(tick, settings.JOBS_INTERVAL_MS ?? 60_000);
  tick();

  // SIGTERM or SIGINT: no new connections, the requests in flight finish, the delivery loops end
  // after their current batch, the pool closes, exit 0; whatever still hangs after 10 s is cut
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping (finishing the requests in flight and the deliveries under way)`);
    setTimeout(() => {
      console.error('still stopping after 10 s: exiting now');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    clearInterval(timer);
    const closed = new Promise<void>((r) => server.close(() => r()));
    // idle keep-alive connections would hold close() open; busy ones end after their answer
    (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    const idleSweep = setInterval(
      () => (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.(),
      100,
    );
    await closed;
    clearInterval(idleSweep);
    await stopLoops(deps);
    await jobs?.catch(() => {});
    mail.close();
    await database.close().catch(() => {});
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
