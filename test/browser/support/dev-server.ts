/**
 * The app's servers as a user starts them, for the browser suites: `npm start` or `npm run dev`
 * (the Worker in wrangler dev: workerd, the Neon driver through the ws proxy), the latter on a
 * fresh database of the local Postgres. `stop()` ends the process group (and drops the database).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './net.js';

export const DEV_ADMIN_TOKEN = 'dev-browser-admin-token-0123456789';
/** the Postgres the Worker suites use (its `postgres` database when no test database is named) */
export const DEV_BASE_URL =
  process.env.TEST_DATABASE_URL || process.env.WORKERD_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const withDb = (name: string) => {
  const u = new URL(DEV_BASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

async function adminQuery(text: string) {
  const c = new pg.Client({ connectionString: DEV_BASE_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export interface Server {
  origin: string;
  /** what the process printed so far */
  output(): string;
  stop(): Promise<void>;
}

export interface DevServer extends Server {
  /** the database the Worker writes to */
  databaseUrl: string;
}

/**
 * Starts `tsx <script>` (`src/node.ts` is `npm start`, `scripts/dev.ts` is `npm run dev`) in its
 * own process group on a free port, with the admin token and jobs held off, and waits until
 * /health answers and it said it listens. `stop()` ends the group.
 */
export async function startServer(script: string, env: Record<string, string> = {}): Promise<Server> {
  const root = process.cwd();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let exited = false;
  let out = '';
  const child: ChildProcess = spawn(join(root, 'node_modules/.bin/tsx'), [script], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      ADMIN_TOKEN: DEV_ADMIN_TOKEN,
      PUBLIC_URL: origin,
      JOBS_INTERVAL_MS: '3600000',
      WRANGLER_LOG_LEVEL: 'error',
      ...env,
    },
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (child.pid === undefined || exited) return;
    const gone = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
    if (!exited) process.kill(-child.pid, 'SIGKILL');
  };
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`${script} exited early:\n${out}`);
    try {
      if ((await fetch(`${origin}/health`)).status === 200 && /listening on/.test(out)) break;
    } catch {
      /* not yet */
    }
    if (Date.now() - started > 120_000) {
      await stop();
      throw new Error(`${script} not healthy in 120 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { origin, output: () => out, stop };
}

/** `npm run dev` on a database of its own (dropped by `stop()`). */
export async function startDevServer(extraEnv: Record<string, string> = {}): Promise<DevServer> {
  const dbName = `ce_devb_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await adminQuery(`create database ${dbName}`);
  const databaseUrl = withDb(dbName);
  const drop = () => adminQuery(`drop database if exists ${dbName} with (force)`);
  let server: Server;
  try {
    server = await startServer('scripts/dev.ts', { DATABASE_URL: databaseUrl, ...extraEnv });
  } catch (e) {
    await drop();
    throw e;
  }
  return {
    origin: server.origin,
    databaseUrl,
    output: server.output,
    async stop() {
      await server.stop();
      await drop();
    },
  };
}
