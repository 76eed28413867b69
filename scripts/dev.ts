/**
 * `npm run dev`: the Worker (src/worker.ts) in wrangler dev (workerd, locally) against a plain
 * local Postgres, configured by environment variables alone:
 *
 *   PORT=8788 DATABASE_URL=postgres://postgres@127.0.0.1:5432/contests ADMIN_TOKEN=... npm run dev
 *   EDGE_LATENCY_MS=40 npm run dev     # feel the distance between the edge and the database
 *   DB_TRANSPORT=ws npm run dev        # the WebSocket Pool instead of SQL over HTTP
 *
 * 1. applies the migrations to DATABASE_URL and seeds an empty database (as `npm start` does);
 * 2. starts the local Neon SQL-over-HTTP endpoint (scripts/neon-http.ts) the Worker's driver posts
 *    to (DB_TRANSPORT=http, the default) and the WebSocket-to-TCP proxy (scripts/ws-proxy.ts) the
 *    driver's Pool goes through (DB_TRANSPORT=ws); with EDGE_LATENCY_MS=N both hold every byte
 *    chunk N ms in each direction on the socket facing the Worker (never towards Postgres);
 * 3. runs `wrangler dev` with the settings as local bindings (an env file under .wrangler/tmp,
 *    never on the command line), and wrangler kept offline;
 * 4. fires the cron (`scheduled()`) every minute, as Cloudflare would (wrangler dev does not).
 *
 * Settings: src/environment.ts (every setting whose runtimes include the Worker is handed to it).
 * Env: PORT (8787), DATABASE_URL (required), ADMIN_TOKEN, PUBLIC_URL, IP_HASH_SALT, MAIL_TRANSPORT,
 * MAIL_FROM, RESEND_API_KEY, RESEND_API_URL, HOST (127.0.0.1), JOBS_INTERVAL_MS (60000),
 * DB_TRANSPORT (http | ws), EDGE_LATENCY_MS (0), NEON_HTTP_PORT / WS_PROXY_PORT (ephemeral).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedIfEmpty } from '../src/admin/seed.js';
import { openPg } from '../src/db/drivers/pg.js';
import { cryptoRandom } from '../src/deps.js';
import { readSettings, type Settings, SettingsError, WORKER_SETTINGS } from '../src/environment.js';
import { freePort, startClientIpFront } from './client-ip-front.js';
import { explainDbError } from './db-errors.js';
import { startNeonHttp } from './neon-http.js';
import { startWsProxy } from './ws-proxy.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;

// every setting `npm run dev` and the Worker read, checked before anything starts
let settings: Settings;
try {
  settings = { ...readSettings(env, 'worker'), ...readSettings(env, 'dev') };
} catch (e) {
  if (!(e instanceof SettingsError)) throw e;
  console.error(e.message);
  process.exit(1);
}
const port = settings.PORT ?? 8787;
const host = settings.HOST ?? '127.0.0.1';
const databaseUrl = settings.DATABASE_URL;
const transport = settings.DB_TRANSPORT ?? 'http';
const latencyMs = settings.EDGE_LATENCY_MS ?? 0;

if (!databaseUrl) {
  console.error(
    'npm run dev needs DATABASE_URL (a Postgres the Worker reaches through a local WebSocket proxy), e.g.\n' +
      '  PORT=8788 DATABASE_URL=postgres://postgres@127.0.0.1:5432/contests ADMIN_TOKEN=$(openssl rand -hex 24) npm run dev\n' +
      'Without a Postgres, use `npm start` (embedded PGlite).',
  );
  process.exit(1);
}

const started = Date.now();

// 1. migrations + first-run seed, over node-postgres; a database that cannot be reached is said in
//    one sentence, with what to do (no stack trace)
let seeded: Awaited<ReturnType<typeof seedIfEmpty>>;
try {
  const db = await openPg(databaseUrl, { max: 1 });
  seeded = await seedIfEmpty(db.db, cryptoRandom, new Date());
  await db.close();
} catch (e) {
  console.error(
    `npm run dev: ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}: ${explainDbError(databaseUrl, e)}`,
  );
  process.exit(1);
}

// 2. the local Neon HTTP endpoint (http://127.0.0.1:<port>/sql) and the WebSocket proxy
//    (ws://127.0.0.1:<port>/v2?address=host:5432), both behind the edge latency if asked
const log = (m: string) => console.warn(`[dev] ${m}`);
const httpEndpoint = await startNeonHttp({ port: settings.NEON_HTTP_PORT ?? 0, latencyMs, log });
const proxy = await startWsProxy({ port: settings.WS_PROXY_PORT ?? 0, latencyMs, log });

// 3. wrangler dev, with the settings in an env file readable by this user only
const wranglerDir = join(root, '.wrangler');
mkdirSync(join(wranglerDir, 'tmp'), { recursive: true });
const envFile = join(wranglerDir, 'tmp', `dev-${process.pid}.env`);
// every setting the Worker reads (src/environment.ts), as it is in this environment, and the ones
// this script decides: nothing is dropped on the way
const bindings: Record<string, string | undefined> = {
  ...Object.fromEntries(WORKER_SETTINGS.map((name) => [name, env[name]])),
  DATABASE_URL: databaseUrl,
  DB_TRANSPORT: transport,
  NEON_HTTP_ENDPOINT: httpEndpoint.endpoint,
  NEON_WS_PROXY: proxy.address,
  PUBLIC_URL: env.PUBLIC_URL ?? `http://localhost:${port}`,
};
const quote = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
writeFileSync(
  envFile,
  Object.entries(bindings)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${quote(v!)}\n`)
    .join(''),
  { mode: 0o600 },
);
chmodSync(envFile, 0o600);

// 3a. the docs assets copied here, once, and wrangler run with a copy of wrangler.toml without its
//     [build] section: wrangler dev otherwise runs the build command again as soon as its file
//     watcher is ready ("The file … changed, restarting build…") and reloads the Worker, once at
//     start and at every change under the watched folder
await import('./docs-assets.js');
const devConfig = join(root, `.wrangler-dev-${process.pid}.toml`);
writeFileSync(
  devConfig,
  withPublicLimit(withoutBuildSection(readFileSync(join(root, 'wrangler.toml'), 'utf8')), settings.PUBLIC_RATE_LIMIT),
);

// 3b. wrangler listens on a port of its own, behind a front on the user's port that sets
//     CF-Connecting-IP from the socket (what Cloudflare does in production): a client cannot send
//     one of its own to escape the per-address limits
const innerPort = settings.WRANGLER_PORT ?? (await freePort());
const front = await startClientIpFront({ host, port, target: { host: '127.0.0.1', port: innerPort } });
const wrangler = spawn(
  join(root, 'node_modules', '.bin', 'wrangler'),
  [
    'dev',
    '--config',
    devConfig,
    '--port',
    String(innerPort),
    '--ip',
    '127.0.0.1',
    '--env-file',
    envFile,
    '--test-scheduled',
    '--show-interactive-dev-session=false',
    '--log-level',
    env.WRANGLER_LOG_LEVEL ?? 'log',
  ],
  {
    cwd: root,
    // a process group of its own (wrangler and workerd), stopped as one by stop()
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...env,
      // offline, files inside the project
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      WRANGLER_HIDE_BANNER: 'true',
      WRANGLER_LOG_PATH: env.WRANGLER_LOG_PATH ?? join(wranglerDir, 'logs'),
      XDG_CONFIG_HOME: env.XDG_CONFIG_HOME ?? join(wranglerDir, 'config'),
      // the bindings come from the env file only (never .dev.vars or the process env)
      CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'true',
      CLOUDFLARE_INCLUDE_PROCESS_ENV: 'false',
      DATABASE_URL: undefined,
      PORT: undefined,
      DB_TRANSPORT: undefined,
      EDGE_LATENCY_MS: undefined,
    },
  },
);

let stopping = false;
let timer: NodeJS.Timeout | undefined;
let wranglerExited = false;
const wranglerGone = new Promise<void>((r) => wrangler.once('exit', () => r()));
/** SIGTERM to wrangler's whole group (workerd too), SIGKILL after 5 s; nothing is left serving */
async function stopWrangler() {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-wrangler.pid!, sig);
    } catch {
      /* the group is gone */
    }
  };
  signal('SIGTERM');
  const late = setTimeout(() => signal('SIGKILL'), 5_000);
  if (!wranglerExited) await wranglerGone;
  // wrangler may exit before its workerd: make sure the group is gone
  signal('SIGKILL');
  clearTimeout(late);
}
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  if (timer) clearInterval(timer);
  await stopWrangler();
  await front.close().catch(() => {});
  await proxy.close().catch(() => {});
  await httpEndpoint.close().catch(() => {});
  rmSync(envFile, { force: true });
  rmSync(devConfig, { force: true });
  process.exit(code);
}
wrangler.on('exit', (code) => {
  wranglerExited = true;
  void stop(code ?? 1);
});
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

// wait until the Worker answers /health through the whole chain, then say so
const base = `http://${host}:${port}`;
for (let i = 0; ; i++) {
  try {
    const res = await fetch(`${base}/health`);
    if (res.ok) break;
  } catch {
    /* not up yet */
  }
  if (i > 600 || stopping) {
    console.error('wrangler dev did not become healthy in time');
    await stop(1);
  }
  await new Promise((r) => setTimeout(r, 100));
}

const via =
  transport === 'http'
    ? `Neon SQL over HTTP ${httpEndpoint.endpoint}`
    : `Neon WebSocket Pool via ws proxy ${proxy.address}`;
console.log(
  `Contest Engine (Worker, wrangler dev) listening on http://localhost:${port} over ${new URL(databaseUrl).host}` +
    ` via ${via}${latencyMs > 0 ? `, edge latency ${latencyMs} ms each way` : ''} (ready in ${Date.now() - started} ms)`,
);
if (seeded) {
  console.log('Seeded a demo team. These keys are shown once; keep them:');
  console.log(`  public key:  ${seeded.publicKey}`);
  console.log(`  private key: ${seeded.privateKey}`);
  console.log(`  demo contest: ${seeded.contestId}`);
  console.log(`  try: curl -H 'x-api-key: ${seeded.publicKey}' http://localhost:${port}/api/v1/contests`);
}

// 4. the every-minute cron, as on Cloudflare
const fireCron = () => {
  fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`).catch(() => {});
};
timer = setInterval(fireCron, settings.JOBS_INTERVAL_MS ?? 60_000);
fireCron();

/**
 * wrangler.toml's text with the PUBLIC_LIMITER binding's limit set to PUBLIC_RATE_LIMIT when it is
 * given: under wrangler dev the binding (simulated) is what the Worker uses, as when deployed, so
 * the setting reaches it through the binding, as it would through wrangler.toml.
 */
function withPublicLimit(toml: string, limit: number | undefined): string {
  if (limit === undefined) return toml;
  const changed = toml.replace(
    /(name = "PUBLIC_LIMITER"\n(?:(?!\[)[^\n]*\n)*?simple = \{ limit = )\d+/,
    (_m, head: string) => `${head}${limit}`,
  );
  if (changed === toml) throw new Error('wrangler.toml: no PUBLIC_LIMITER limit to set PUBLIC_RATE_LIMIT in');
  return changed;
}

/** wrangler.toml's text without its `[build]` table (up to the next table header) */
function withoutBuildSection(toml: string): string {
  return toml.replace(/^\[build\]\n(?:(?!\[)[^\n]*\n?)*/m, '');
}
