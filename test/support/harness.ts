/**
 * Test harness: each test file gets its own migrated database (PGlite from the run's snapshot,
 * or a clone of the migrated template on the real Postgres when TEST_DATABASE_URL is set) and
 * an app built by createApp() with test dependencies (movable clock, in-memory rate limiter,
 * recorded log and mail).
 */

import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { createApiKey, createTeam } from '../../src/admin/admin.js';
import { type App, createApp } from '../../src/app.js';
import { type ContestSettings, createContest } from '../../src/contests/contest-settings.js';
import type { Db } from '../../src/db/client.js';
import { openPg } from '../../src/db/drivers/pg.js';
import { openPglite } from '../../src/db/drivers/pglite.js';
import {
  type Clock,
  cryptoRandom,
  type Deps,
  type Logger,
  memoryRateLimiter,
  type OutgoingEmail,
  type RandomSource,
  type RateLimiter,
} from '../../src/deps.js';
import { memoryPublicCache } from '../../src/http/public-cache.js';
import { contractValidator } from './contract.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** True when the run has a real Postgres (TEST_DATABASE_URL); concurrency suites need it. */
export const hasRealPostgres = inject('pgTemplateUrl') !== null;

export interface TestClock extends Clock {
  advance(ms: number): void;
  set(d: Date): void;
  /** stops the clock at its current time (advance() still moves it); for tests that compare exact seconds */
  freeze(): void;
  /** lets a frozen clock run again from where it stands */
  thaw(): void;
}

export function testClock(): TestClock {
  let offset = 0;
  let frozenAt: number | null = null;
  return {
    now: () => new Date((frozenAt ?? Date.now()) + offset),
    freeze: () => {
      frozenAt ??= Date.now();
    },
    thaw: () => {
      if (frozenAt !== null) offset += frozenAt - Date.now();
      frozenAt = null;
    },
    advance: (ms) => {
      offset += ms;
    },
    set: (d) => {
      offset = d.getTime() - (frozenAt ?? Date.now());
    },
  };
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TeamFixture {
  teamId: string;
  publicKey: string;
  privateKey: string;
}

export interface TestEnv {
  backend: 'pglite' | 'postgres';
  app: App;
  db: Db;
  deps: Deps;
  clock: TestClock;
  logs: { level: string; msg: string; fields?: Record<string, unknown> }[];
  sent: OutgoingEmail[];
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  team(name?: string): Promise<TeamFixture>;
  contest(teamId: string, settings?: Partial<ContestSettings>): Promise<{ id: string; slug: string }>;
  /** waits for the background work requests left behind (email delivery) */
  settle(): Promise<void>;
  /** a raw pg pool on the same database (postgres backend only), for many-connection tests */
  pool?: pg.Pool;
  close(): Promise<void>;
}

export interface TestEnvOptions {
  backend?: 'auto' | 'postgres' | 'pglite';
  clock?: TestClock;
  random?: RandomSource;
  rateLimiter?: RateLimiter;
  /** public-key limit per (key, client IP); default 600 a minute on the test clock */
  publicRateLimiter?: RateLimiter;
  adminToken?: string | null;
  publicUrl?: string;
  poolMax?: number;
}

async function openDatabase(opts: TestEnvOptions) {
  const template = inject('pgTemplateUrl');
  const usePg = opts.backend === 'postgres' || (opts.backend !== 'pglite' && template !== null);
  if (usePg) {
    if (!template) throw new Error('this suite needs TEST_DATABASE_URL (real Postgres)');
    const name = `ce_t_${inject('pgRunId')}_${randomBytes(4).toString('hex')}`;
    const adminUrl = new URL(template);
    adminUrl.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    const templateName = new URL(template).pathname.slice(1);
    // cloning a template fails while another session is still connected to it; retry briefly
    for (let i = 0; ; i++) {
      try {
        await admin.query(`create database ${name} template ${templateName}`);
        break;
      } catch (e) {
        if (i >= 20) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    const url = new URL(template);
    url.pathname = `/${name}`;
    const h = await openPg(url.toString(), { max: opts.poolMax ?? 10, migrate: false });
    // a client still closing when the database is dropped gets 57P01; pg-pool re-emits it here
    h.pool.on('error', () => {});
    return {
      backend: 'postgres' as const,
      db: h.db,
      provider: h.provider,
      pool: h.pool,
      close: async () => {
        await h.close();
        // pool.end() resolves before the server has seen every socket close: wait for them
        // rather than force (which makes the server kill them, and the clients log errors)
        for (let i = 0; ; i++) {
          try {
            await admin.query(`drop database if exists ${name}${i >= 30 ? ' with (force)' : ''}`);
            break;
          } catch (e) {
            if (i >= 30) throw e;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        await admin.end();
      },
    };
  }
  const snapshot = readFileSync(inject('pgliteSnapshot'));
  const h = await openPglite({ loadDataDir: new Blob([snapshot]), migrate: false });
  return { backend: 'pglite' as const, db: h.db, provider: h.provider, pool: undefined, close: h.close };
}

export async function createTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  const database = await openDatabase(opts);
  const clock = opts.clock ?? testClock();
  const logs: TestEnv['logs'] = [];
  const sent: OutgoingEmail[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const settle = async () => {
    while (inFlight.size) await Promise.all([...inFlight]);
  };
  const logger: Logger = {
    info: (msg, fields) => {
      logs.push({ level: 'info', msg, fields });
    },
    error: (msg, fields) => {
      logs.push({ level: 'error', msg, fields });
      if (process.env.TEST_LOG_ERRORS !== '0') console.error('[app error]', msg, fields);
    },
  };
  const deps: Deps = {
    database: database.provider,
    clock,
    random: opts.random ?? cryptoRandom,
    rateLimiter: opts.rateLimiter ?? memoryRateLimiter(30, 60, clock),
    publicRateLimiter: opts.publicRateLimiter ?? memoryRateLimiter(600, 60, clock),
    publicCache: memoryPublicCache(),
    mailer: {
      async send(email) {
        sent.push(email);
      },
    },
    logger,
    config: {
      adminToken: opts.adminToken === null ? undefined : (opts.adminToken ?? ADMIN_TOKEN),
      publicUrl: opts.publicUrl ?? 'http://contests.test',
      ipHashSalt: 'test-salt',
    },
    // tests choose the caller's address with the x-forwarded-for header (default 203.0.113.1)
    clientIp: (c) => c.req.header('x-forwarded-for')?.split(',')[0]?.trim() || '203.0.113.1',
    background: (_c, work) => {
      const tracked = work.catch((e) => logger.error('background task failed', { error: String(e) }));
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
    },
  };
  const app = createApp(deps);

  let contractChecks = 0;
  const request = async (method: string, path: string, ro: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...ro.headers };
    if (ro.key !== undefined) headers['x-api-key'] = ro.key;
    let body: string | undefined;
    if (ro.rawBody !== undefined) body = ro.rawBody;
    else if (ro.body !== undefined) body = JSON.stringify(ro.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    // every answer is held to the OpenAPI document: undocumented operation, status or body shape throws
    const contract = await contractValidator();
    contract.check({
      method: method.toUpperCase(),
      path,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: text,
    });
    contractChecks++;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };

  return {
    backend: database.backend,
    app,
    db: database.db,
    deps,
    clock,
    logs,
    sent,
    request,
    pool: database.pool,
    async team(name = 'Team') {
      const team = await createTeam(database.db, name);
      const pub = await createApiKey(database.db, deps.random, team.id, 'public', 'pub');
      const priv = await createApiKey(database.db, deps.random, team.id, 'private', 'priv');
      return { teamId: team.id, publicKey: pub.key, privateKey: priv.key };
    },
    async contest(teamId, settings = {}) {
      const c = await createContest(
        database.db,
        deps.random,
        teamId,
        { title: 'Test contest', status: 'active', isEvergreen: true, ...settings },
        clock.now(),
      );
      return { id: c.id, slug: c.slug };
    },
    settle,
    async close() {
      // background work (email delivery) finishes before the database goes away
      await settle();
      await database.close();
      // CONTRACT_COUNT_FILE=path: each test environment appends how many answers it checked
      if (process.env.CONTRACT_COUNT_FILE) appendFileSync(process.env.CONTRACT_COUNT_FILE, `${contractChecks}\n`);
    },
  };
}

/** Drizzle's raw SQL result rows on any backend. */
export { query, queryOne } from '../../src/db/client.js';

/**
 * The body of a spin-to-win game (POST /api/v1/instant-win-games): a prize (code `code`) and a
 * miss, at `prizeOdds` and the rest; `more` adds or overrides fields (status, title).
 */
export const wheelGameBody = (prizeOdds = 50, code = 'WIN', more: Record<string, unknown> = {}) => ({
  slug: 'spin-to-win',
  title: 'Wheel',
  mechanic: 'wheel',
  layout: 'default',
  entryLimit: 'none',
  publishAs: 'landing',
  tiers: [
    { name: 'Prize', oddsPercent: prizeOdds, redeemCode: code },
    { name: 'Miss', oddsPercent: 100 - prizeOdds, isMiss: true },
  ],
  ...more,
});
