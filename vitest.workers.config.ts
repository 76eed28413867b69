/**
 * The Worker suites (`npm run test:worker`), separate from the main suite:
 * - `workerd`: the real src/worker.ts inside workerd (@cloudflare/vitest-pool-workers), with the
 *   real @neondatabase/serverless HTTP driver reaching the local Postgres through the local
 *   SQL-over-HTTP endpoint (scripts/neon-http.ts); test/worker/ws-transport.workerd.test.ts runs
 *   the Worker with DB_TRANSPORT=ws, the Pool through scripts/ws-proxy.ts;
 * - `servers`: black-box HTTP checks run against `npm start` and `npm run dev` (wrangler dev).
 */
import { fileURLToPath } from 'node:url';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { createLogger } from 'vite';
import { defineConfig } from 'vitest/config';
import type { WorkerdContext } from './test/worker/support/global-setup.js';

// wrangler stays offline and keeps its files inside the project
const wranglerDir = fileURLToPath(new URL('./.wrangler', import.meta.url));
process.env.WRANGLER_SEND_METRICS ??= 'false';
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= 'false';
process.env.WRANGLER_HIDE_BANNER ??= 'true';
process.env.WRANGLER_LOG_PATH ??= `${wranglerDir}/logs`;
process.env.XDG_CONFIG_HOME ??= `${wranglerDir}/config`;

export const WORKERD_ADMIN_TOKEN = 'workerd-admin-token-0123456789';

const noZod = fileURLToPath(new URL('./src/lib/no-zod.ts', import.meta.url));

// a published package ships source maps that name sources it does not ship: not our failure,
// and a clean run should print nothing but results
const logger = createLogger();
const warn = logger.warn.bind(logger);
logger.warn = (msg, opts) => {
  if (/^Sourcemap for .* points to missing source files/.test(msg)) return;
  warn(msg, opts);
};

export default defineConfig({
  customLogger: logger,
  test: {
    // the Worker's per-request access log is noise here; errors still show
    onConsoleLog: (log) => !log.includes('"msg":"request"'),
    projects: [
      {
        plugins: [
          cloudflareTest(({ inject }) => {
            const ctx = inject('workerd') as WorkerdContext | null;
            return {
              main: './src/worker.ts',
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  DATABASE_URL: ctx?.databaseUrl ?? 'postgres://postgres@127.0.0.1:1/none',
                  DB_TRANSPORT: 'http',
                  NEON_HTTP_ENDPOINT: ctx?.httpEndpoint ?? 'http://127.0.0.1:1/sql',
                  NEON_WS_PROXY: ctx?.wsProxy ?? '127.0.0.1:1',
                  ADMIN_TOKEN: WORKERD_ADMIN_TOKEN,
                  // as a production Worker should have it (wrangler secret put IP_HASH_SALT): without
                  // it an isolate reads the deployment's stored salt once, one statement more
                  IP_HASH_SALT: 'workerd-test-salt-0123456789',
                  PUBLIC_URL: 'http://contests.test',
                  MAIL_FROM: 'Contests <contests@example.com>',
                  RESEND_API_KEY: 're_test_key',
                  RESEND_API_URL: ctx?.resendUrl ?? 'http://127.0.0.1:1',
                  // Turnstile's siteverify: the local stand-in beside the fake Resend API
                  TURNSTILE_SECRET_KEY: 'turnstile-secret',
                  TURNSTILE_SITE_KEY: 'site-key-1',
                  TURNSTILE_VERIFY_URL: `${ctx?.resendUrl ?? 'http://127.0.0.1:1'}/siteverify`,
                  // the other tools' credentials are sealed with it; their APIs are the local stand-ins
                  INTEGRATIONS_KEY: 'd29ya2VyZC10ZXN0LWludGVncmF0aW9ucy1rZXktMzI=',
                  KLAVIYO_API_URL: ctx?.providersUrl ?? 'http://127.0.0.1:1',
                  MAILCHIMP_API_URL: ctx?.providersUrl ?? 'http://127.0.0.1:1',
                  HUBSPOT_API_URL: ctx?.providersUrl ?? 'http://127.0.0.1:1',
                  WORKERD_ENABLED: ctx ? '1' : '',
                  // outbound events go to the local fake server (http://127.0.0.1:...) in these tests
                  ALLOW_HTTP_WEBHOOKS: '1',
                },
              },
            };
          }),
        ],
        // the Worker build aliases these (wrangler.toml [alias]); so must Vite
        resolve: {
          alias: {
            'zod/v4/core': noZod,
            'zod-to-json-schema': noZod,
            'zod-openapi': noZod,
            zod: noZod,
          },
        },
        test: {
          name: 'workerd',
          include: ['test/worker/**/*.workerd.test.ts'],
          globalSetup: ['test/worker/support/global-setup.ts'],
          // backstops for a hang, never measures (see vitest.config.ts)
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'servers',
          include: ['test/worker/**/*.node.test.ts'],
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
