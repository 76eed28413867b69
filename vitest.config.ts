import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * CI's second pass (PGlite alone, as on a machine without Postgres) runs with
 * TEST_FILES=backend: only the files whose outcome can depend on the database backend. The files
 * left out here do not touch the test database, or start their own servers, or check HTTP input
 * handling that refuses before any SQL; they run in the main pass (and in a plain `npm test`
 * without Postgres, where every file runs on PGlite).
 */
const BACKEND_INDEPENDENT = [
  'test/browser/**',
  'test/typed-client.test.ts',
  'test/openapi.test.ts',
  'src/meta/docs-page.test.ts',
  'test/first-run.test.ts',
  'test/robustness.test.ts',
  'src/instant-win/widget/widget.test.ts',
  'src/instant-win/widget/widget-logic.test.ts',
  'test/environment.test.ts',
  'test/docs-generated.test.ts',
  'test/migrate-script.test.ts',
  'test/layering.test.ts',
  'src/console/console-bundle.test.ts',
  'src/events/urls.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: [
      'test/worker/**',
      'node_modules/**',
      ...(process.env.TEST_FILES === 'backend' ? BACKEND_INDEPENDENT : []),
    ],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // On PGlite alone many files wait (servers starting, browsers, background delivery, the real
    // 10 s cut): one file more than the cores keeps them busy (measured on 2 cores: 210 -> 128 s).
    // Over a real Postgres the default stays: the concurrency suites hold 40 connections each, and
    // three files at once went past max_connections (100).
    ...(process.env.TEST_DATABASE_URL ? {} : { maxWorkers: Math.max(3, availableParallelism()) }),
    testTimeout: 30_000,
    // expect.poll waits for what a page or a background job shows; 1 s (the default) is too
    // short on 2 busy cores (a console reveal on workerd took longer in the full run)
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
