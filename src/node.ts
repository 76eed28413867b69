/**
 * Node runner: builds the dependencies (PGlite by default, or DATABASE_URL), migrates, seeds an
 * empty database, and serves createApp(deps). Nothing else knows it runs on Node.
 */
import { mkdirSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createApp } from './app.js';
import type { Db } from './db/client.js';
import {
  type Deps,
  consoleLogger,
  cryptoRandom,
  logMailer,
  memoryRateLimiter,
  systemClock,
} from './deps.js';
import { seedIfEmpty } from './domain/seed.js';

const env = process.env;
const port = Number(env.PORT ?? 8787);

async function openDatabase(): Promise<{ db: Db; provider: Deps['database']; label: string; close(): Promise<void> }> {
  if (env.DATABASE_URL) {
    const { openPg } = await import('./db/drivers/pg.js');
    const h = await openPg(env.DATABASE_URL, { max: Number(env.DATABASE_POOL_MAX ?? 10) });
    return { ...h, label: 'postgres (DATABASE_URL)' };
  }
  const dir = env.PGLITE_DIR ?? '.data/pglite';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const { openPglite } = await import('./db/drivers/pglite.js');
  const h = await openPglite({ dataDir: dir });
  return { ...h, label: `PGlite (${dir})` };
}

async function main() {
  const started = Date.now();
  const database = await openDatabase();
  const logger = consoleLogger;
  const deps: Deps = {
    database: database.provider,
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: memoryRateLimiter(30, 60),
    mailer: logMailer(logger),
    logger,
    config: {
      adminToken: env.ADMIN_TOKEN || undefined,
      publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
      ipHashSalt: env.IP_HASH_SALT ?? 'contest-engine-dev-salt',
    },
    clientIp: (c) => {
      // behind a proxy (TRUST_PROXY=1) the first X-Forwarded-For hop is the client
      if (env.TRUST_PROXY === '1') {
        const fwd = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
        if (fwd) return fwd;
      }
      try {
        return getConnInfo(c).remote.address ?? null;
      } catch {
        return null;
      }
    },
    background: (_c, work) => {
      work.catch((e) => logger.error('background task failed', { error: String(e) }));
    },
  };

  const seeded = await seedIfEmpty(database.db, deps.random, deps.clock.now());
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port }, (info) => {
    console.log(`Contest Engine listening on http://localhost:${info.port} over ${database.label} (ready in ${Date.now() - started} ms)`);
    if (seeded) {
      console.log('Seeded a demo team. These keys are shown once; keep them:');
      console.log(`  public key:  ${seeded.publicKey}`);
      console.log(`  private key: ${seeded.privateKey}`);
      console.log(`  demo contest: ${seeded.contestId}`);
      console.log(`  try: curl -H 'x-api-key: ${seeded.publicKey}' http://localhost:${info.port}/api/v1/contests`);
    }
  });

  const shutdown = async () => {
    server.close();
    await database.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
