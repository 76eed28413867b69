/**
 * Every setting, declared once: its name, who reads it, its default, what it means and the
 * valibot schema its value must pass. src/node.ts, src/worker.ts and scripts/dev.ts read their
 * settings through readSettings(); the settings tables of README.md and docs/operations.md are
 * generated from this list (scripts/gen-docs.ts, checked by test/docs-generated.test.ts), and
 * `npm run dev` hands the Worker every setting whose runtimes include 'worker'.
 *
 * A bad value stops the start with one sentence naming the variable and what it accepts.
 */
import * as v from 'valibot';
import {
  base64Key,
  flag,
  httpUrl,
  int,
  oneOf,
  postgresUrl,
  type Runtime,
  type Setting,
  text,
} from './environment-values.js';

export type { Runtime, Setting };

export const SETTINGS = [
  {
    name: 'PORT',
    runtimes: ['node', 'dev'],
    default: '8787',
    meaning: 'port to listen on (`0`: any free port, printed at start)',
    accepts: 'a port number from 0 to 65535',
    schema: int(0, 65535),
  },
  {
    name: 'HOST',
    runtimes: ['dev'],
    default: '127.0.0.1',
    meaning: 'address `npm run dev` listens on',
    accepts: 'an address',
    schema: text,
  },
  {
    name: 'DATABASE_URL',
    runtimes: ['node', 'worker', 'dev', 'migrate'],
    secret: true,
    default: '',
    meaning:
      'a real Postgres. Unset on Node: embedded PGlite. Required on the Worker (Neon) and by `npm run dev` and `npm run db:migrate`',
    accepts: 'a postgres:// or postgresql:// connection string',
    schema: postgresUrl,
  },
  {
    name: 'PGLITE_DIR',
    runtimes: ['node'],
    default: '.data/pglite',
    meaning: 'PGlite data folder; `memory://` keeps nothing',
    accepts: 'a folder or memory://',
    schema: text,
  },
  {
    name: 'DATABASE_POOL_MAX',
    runtimes: ['node'],
    default: '10',
    meaning: 'connections in the Postgres pool',
    accepts: 'a whole number from 1 to 1000',
    schema: int(1, 1000),
  },
  {
    name: 'PG_NAMED_STATEMENTS',
    runtimes: ['node'],
    default: '1',
    meaning: '`0` turns named prepared statements off (for a transaction-mode pooler that cannot keep them)',
    accepts: '0 or 1',
    schema: flag,
  },
  {
    name: 'ADMIN_TOKEN',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default: '',
    meaning:
      'switches the admin API on (`Authorization: Bearer <token>`); unset, every `/api/admin/*` route answers 404. Failed attempts are limited per client address (10 a minute, then 429)',
    accepts: 'a token of at least 16 characters (for example what `openssl rand -hex 24` prints)',
    schema: v.pipe(v.string(), v.minLength(16)),
  },
  {
    name: 'PUBLIC_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "Node: `http://localhost:<PORT>`; Worker: the request's origin",
    meaning:
      'base of the links put in emails (your custom domain or the `*.workers.dev` URL wrangler prints at deploy)',
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'IP_HASH_SALT',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default:
      'a random salt the deployment makes at its first start and keeps in the database (table deployment_secrets)',
    meaning:
      'key for hashing client IP addresses and user agents (instant-win limits, risk signals); set it to share hashes across deployments, or to spare the Worker one statement per isolate',
    accepts: 'a non-empty string',
    schema: text,
  },
  {
    name: 'TURNSTILE_SECRET_KEY',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default: '',
    meaning:
      'Cloudflare Turnstile\'s secret key, for contests with `botCheck: "turnstile"` (unset: such a contest\'s sign-ups answer 503)',
    accepts: 'a non-empty key',
    schema: text,
  },
  {
    name: 'INTEGRATIONS_KEY',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default: '',
    meaning:
      "the key the other tools' credentials (Klaviyo, Mailchimp, HubSpot) are encrypted with at rest (AES-256-GCM); unset: the integration routes answer 503 saying how to set it (docs/integrations.md)",
    accepts: '32 random bytes in base64 (for example what `openssl rand -base64 32` prints)',
    schema: base64Key,
  },
  {
    name: 'INTEGRATIONS_KEY_PREVIOUS',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default: '',
    meaning:
      "while a key is rotated: the key before it; credentials sealed with it are still read, and sealed again with INTEGRATIONS_KEY when a connection's credentials are saved",
    accepts: '32 random bytes in base64 (for example what `openssl rand -base64 32` prints)',
    schema: base64Key,
  },
  {
    name: 'KLAVIYO_API_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "Klaviyo's (`https://a.klaviyo.com`)",
    meaning: "where Klaviyo's API is (the tests point it at a local stand-in)",
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'MAILCHIMP_API_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "Mailchimp's, of the key's data centre (`https://us21.api.mailchimp.com` for a key ending `-us21`)",
    meaning: "where Mailchimp's Marketing API is (the tests point it at a local stand-in)",
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'HUBSPOT_API_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "HubSpot's (`https://api.hubapi.com`)",
    meaning: "where HubSpot's API is (the tests point it at a local stand-in)",
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'TURNSTILE_SITE_KEY',
    runtimes: ['node', 'worker', 'dev'],
    default: '',
    meaning: "Cloudflare Turnstile's site key, which the sign-up widget shows the challenge with",
    accepts: 'a non-empty key',
    schema: text,
  },
  {
    name: 'TURNSTILE_VERIFY_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "Cloudflare's siteverify (`https://challenges.cloudflare.com/turnstile/v0/siteverify`)",
    meaning: 'where Turnstile tokens are checked (the tests point it at a local stand-in)',
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'TRUST_PROXY',
    runtimes: ['node'],
    default: '0',
    meaning:
      '`N`: the server is behind N trusted proxies; the client is the N-th `X-Forwarded-For` entry from the right (entries further left are written by the client and never used). `true` means 1. The Worker uses `CF-Connecting-IP`',
    accepts: 'a whole number from 0 to 10, or true',
    schema: v.union([
      v.pipe(
        v.literal('true'),
        v.transform(() => 1),
      ),
      int(0, 10),
    ]),
  },
  {
    name: 'ALLOW_HTTP_WEBHOOKS',
    runtimes: ['node', 'worker', 'dev'],
    default: '0',
    meaning: '`1`: outbound events may go to `http://localhost` and private addresses (local development only)',
    accepts: '0 or 1',
    schema: flag,
  },
  {
    name: 'PUBLIC_RATE_LIMIT',
    runtimes: ['node', 'worker', 'dev'],
    default: '600',
    meaning:
      'requests a minute per public key and client address (play and claim have their own limit). On a deployed Worker the `PUBLIC_LIMITER` binding in `wrangler.toml` sets it; `npm run dev` writes this setting into that binding of its own copy',
    accepts: 'a whole number from 1 to 1000000',
    schema: int(1, 1_000_000),
  },
  {
    name: 'VISIT_RETENTION_DAYS',
    runtimes: ['node', 'worker', 'dev'],
    default: '30',
    meaning:
      "days a share link's visit is kept as a row of its own; older ones are deleted once counted, and live on as per-hour counts (each referrer's, and the contest's time series)",
    accepts: 'a whole number from 1 to 3650',
    schema: int(1, 3650),
  },
  {
    name: 'MAIL_TRANSPORT',
    runtimes: ['node', 'worker', 'dev'],
    default: '`smtp` if `SMTP_URL` is set, else `resend` if `RESEND_API_KEY` is set, else `log`',
    meaning: 'how emails leave: `log` (printed, not sent), `smtp` (Node only) or `resend`',
    accepts: 'log, smtp or resend',
    schema: oneOf('log', 'smtp', 'resend'),
  },
  {
    name: 'MAIL_FROM',
    runtimes: ['node', 'worker', 'dev'],
    default: '',
    meaning: 'sender of every email, e.g. `Contests <contests@example.com>` (required with smtp and resend)',
    accepts: 'a sender address',
    schema: text,
  },
  {
    name: 'SMTP_URL',
    runtimes: ['node'],
    secret: true,
    default: '',
    meaning: 'e.g. `smtps://user:pass@smtp.example.com:465`',
    accepts: 'an smtp:// or smtps:// URL',
    schema: v.pipe(
      v.string(),
      v.check((s) => /^smtps?:\/\/\S+$/i.test(s)),
    ),
  },
  {
    name: 'RESEND_API_KEY',
    runtimes: ['node', 'worker', 'dev'],
    secret: true,
    default: '',
    meaning: "send through Resend's HTTP API",
    accepts: 'a non-empty key',
    schema: text,
  },
  {
    name: 'RESEND_API_URL',
    runtimes: ['node', 'worker', 'dev'],
    default: "Resend's",
    meaning: "another base URL for Resend's API (the tests point it at a local fake)",
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'JOBS_INTERVAL_MS',
    runtimes: ['node', 'dev'],
    default: '60000',
    meaning: 'period of the every-minute jobs (email delivery, instant-win expiry); the deployed Worker uses its cron',
    accepts: 'a whole number of milliseconds from 100 to 86400000',
    schema: int(100, 86_400_000),
  },
  {
    name: 'DB_TRANSPORT',
    runtimes: ['worker', 'dev'],
    default: 'http',
    meaning:
      'how the Worker reaches Neon: `http` (one HTTPS request per statement or batch) or `ws` (the WebSocket Pool, kept for comparison)',
    accepts: 'http or ws',
    schema: oneOf('http', 'ws'),
  },
  {
    name: 'NEON_HTTP_ENDPOINT',
    runtimes: ['worker'],
    default: '',
    meaning:
      'local only: the SQL-over-HTTP endpoint `npm run dev` and the tests start (scripts/neon-http.ts). Never set in production',
    accepts: 'an http:// URL',
    schema: httpUrl,
  },
  {
    name: 'NEON_WS_PROXY',
    runtimes: ['worker'],
    default: '',
    meaning:
      'local only: host:port of the WebSocket-to-Postgres proxy `npm run dev` and the tests start. Never set in production',
    accepts: 'host:port',
    schema: v.pipe(v.string(), v.regex(/^[^\s:]+:\d+$/)),
  },
  {
    name: 'EDGE_LATENCY_MS',
    runtimes: ['dev'],
    default: '0',
    meaning:
      'hold every byte between the Worker and the database this long, each way (to feel an edge far from its database)',
    accepts: 'a whole number of milliseconds from 0 to 10000',
    schema: int(0, 10_000),
  },
  {
    name: 'NEON_HTTP_PORT',
    runtimes: ['dev'],
    default: 'any free port',
    meaning: 'port of the local SQL-over-HTTP endpoint',
    accepts: 'a port number from 1 to 65535',
    schema: int(1, 65535),
  },
  {
    name: 'WRANGLER_PORT',
    runtimes: ['dev'],
    default: 'any free port',
    meaning:
      'port of wrangler dev itself, behind the front on PORT that sets CF-Connecting-IP from the connection (as Cloudflare does)',
    accepts: 'a port number from 1 to 65535',
    schema: int(1, 65535),
  },
  {
    name: 'WS_PROXY_PORT',
    runtimes: ['dev'],
    default: 'any free port',
    meaning: 'port of the local WebSocket-to-Postgres proxy',
    accepts: 'a port number from 1 to 65535',
    schema: int(1, 65535),
  },
  {
    name: 'WRANGLER_LOG_LEVEL',
    runtimes: ['dev'],
    default: 'log',
    meaning: "wrangler's log level",
    accepts: 'none, error, warn, info, log or debug',
    schema: oneOf('none', 'error', 'warn', 'info', 'log', 'debug'),
  },
  {
    name: 'WRANGLER_LOG_PATH',
    runtimes: ['dev'],
    default: '`.wrangler/logs`',
    meaning: 'where wrangler writes its logs',
    accepts: 'a folder',
    schema: text,
  },
  {
    name: 'XDG_CONFIG_HOME',
    runtimes: ['dev'],
    default: '`.wrangler/config`',
    meaning: 'where wrangler keeps its configuration',
    accepts: 'a folder',
    schema: text,
  },
  {
    name: 'TEST_DATABASE_URL',
    runtimes: ['tests'],
    default: '',
    meaning: 'run the database tests on this Postgres, concurrency suites included',
    accepts: 'a postgres:// connection string',
    schema: postgresUrl,
  },
  {
    name: 'WORKERD_DATABASE_URL',
    runtimes: ['tests'],
    default: '`postgres://postgres@127.0.0.1:5432/postgres`',
    meaning:
      'the Postgres the workerd and servers suites create their databases on when `TEST_DATABASE_URL` is not set',
    accepts: 'a postgres:// connection string',
    schema: postgresUrl,
  },
  {
    name: 'BLACKBOX_URL',
    runtimes: ['tests'],
    default: '',
    meaning: 'run the black-box checks of the servers suite against an already running server',
    accepts: 'an http:// or https:// URL',
    schema: httpUrl,
  },
  {
    name: 'BLACKBOX_ADMIN_TOKEN',
    runtimes: ['tests'],
    default: '',
    meaning: "that server's admin token",
    accepts: 'a non-empty token',
    schema: text,
  },
  {
    name: 'CHROMIUM_PATH',
    runtimes: ['tests'],
    default: '`/usr/lib/chromium/chromium` or `/usr/bin/chromium`',
    meaning: 'the Chromium binary of the browser suites',
    accepts: 'a file path',
    schema: text,
  },
  {
    name: 'TEST_LOG_ERRORS',
    runtimes: ['tests'],
    default: '1',
    meaning: "`0` silences the app's error log in the test output",
    accepts: '0 or 1',
    schema: flag,
  },
  {
    name: 'BENCH_DATABASE_URL',
    runtimes: ['bench'],
    default: '`postgres://postgres@127.0.0.1:5432/postgres`',
    meaning: 'server the benchmark creates its database on',
    accepts: 'a postgres:// connection string',
    schema: postgresUrl,
  },
  {
    name: 'BENCH_PORT',
    runtimes: ['bench'],
    default: 'any free port',
    meaning: 'port of the benchmarked server',
    accepts: 'a port number from 1 to 65535',
    schema: int(1, 65535),
  },
  {
    name: 'BENCH_PROF',
    runtimes: ['bench'],
    default: '',
    meaning: 'set: the benchmarked server writes a CPU profile to /tmp/prof',
    accepts: 'any non-empty value',
    schema: text,
  },
  {
    name: 'BENCH_SERVER_FIFO',
    runtimes: ['bench'],
    default: '',
    meaning:
      "set: the benchmarked server's event loop runs under SCHED_FIFO, so it never waits for a core behind Postgres (a diagnostic; needs root)",
    accepts: 'any non-empty value',
    schema: text,
  },
] as const satisfies readonly Setting[];

export type SettingName = (typeof SETTINGS)[number]['name'];
type Parsed<N extends SettingName> = v.InferOutput<Extract<(typeof SETTINGS)[number], { name: N }>['schema']>;
/** The settings a runtime reads: parsed values, undefined when unset (or empty). */
export type Settings = { [N in SettingName]?: Parsed<N> };

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

/** The sentence for a refused value. */
export const refusal = (s: Setting, raw: string) =>
  s.secret
    ? `${s.name} (a secret: its value is not shown) is not valid: ${s.name} takes ${s.accepts}.`
    : `${s.name}=${JSON.stringify(raw)} is not valid: ${s.name} takes ${s.accepts}.`;

/**
 * The settings `runtime` reads, from `env` (process.env, or the Worker's env): each set value
 * parsed by its schema. Throws SettingsError with one sentence per bad value.
 */
export function readSettings(env: Record<string, unknown>, runtime: Runtime): Settings {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const s of SETTINGS as readonly Setting[]) {
    if (!s.runtimes.includes(runtime)) continue;
    const raw = env[s.name];
    if (raw === undefined || raw === null || raw === '') continue;
    const r = v.safeParse(s.schema, String(raw));
    if (r.success) out[s.name] = r.output;
    else problems.push(refusal(s, String(raw)));
  }
  if (problems.length) throw new SettingsError(problems);
  return out as Settings;
}

/** The names of the settings the Worker reads (what `npm run dev` hands it, by construction). */
export const WORKER_SETTINGS: readonly string[] = (SETTINGS as readonly Setting[])
  .filter((s) => s.runtimes.includes('worker'))
  .map((s) => s.name);

const RUNTIME_WORDS: Record<Runtime, string> = {
  node: 'Node',
  worker: 'Worker',
  dev: '`npm run dev`',
  migrate: '`npm run db:migrate`',
  tests: 'tests',
  bench: '`npm run bench`',
};

/** The settings table of the docs (Markdown), generated from SETTINGS. */
export function settingsTable(): string {
  const rows = (SETTINGS as readonly Setting[]).map((s) => {
    const who = s.runtimes.map((r) => (r === 'worker' && s.secret ? 'Worker (secret)' : RUNTIME_WORDS[r])).join(', ');
    const def = s.default
      ? ` Default: ${/[`']/.test(s.default) || /\s/.test(s.default) ? s.default : `\`${s.default}\``}.`
      : '';
    return `| \`${s.name}\` | ${who} | ${s.meaning}.${def} Takes ${s.accepts}. |`;
  });
  return ['| variable | read by | meaning |', '|---|---|---|', ...rows].join('\n');
}
