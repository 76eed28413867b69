import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * CI's first pass (PGlite alone, as on a machine without Postgres) runs with TEST_FILES=backend:
 * only the files whose outcome can depend on the database backend. Left out: the files that never
 * open the test database (no import of the test harness or an area's fixtures: found below), and
 * those listed here, which open PGlite whatever the backend, or start their own servers, or check
 * HTTP input handling that refuses before any SQL. They run in the main pass (and in a plain
 * `npm test` without Postgres, where every file runs on PGlite).
 */
const BACKEND_INDEPENDENT = [
  'test/browser/**',
  'test/zapier.test.ts',
  'test/typed-client.test.ts',
  'test/openapi.test.ts',
  'src/meta/docs-page.test.ts',
  'test/robustness.test.ts',
  'src/instant-win/widget/widget.test.ts',
  'src/console/console-bundle.test.ts',
  'src/events/urls.test.ts',
];

const noTestDatabase = () =>
  ['src', 'test']
    .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/worker/'))
    .filter((f) => !/\/support\/(harness|fixtures\/[\w-]+)\.js'/.test(readFileSync(f, 'utf8')));

/**
 * The suites that hold 30-40 connections each to the real Postgres (concurrency-*.test.ts): they
 * run after the rest, two at a time (two of them and the server's own stay under its
 * max_connections of 100), so that the rest can run three files at a time.
 */
const MANY_CONNECTIONS = ['test/concurrency-*.test.ts'];

// (include and exclude are each project's own: `extends` would add them to the root's lists)
// Many files wait (servers starting, browsers, background delivery, the real 10 s cut): one file
// more than the cores keeps two cores busy (measured on 2 cores, PGlite alone: 210 -> 128 s; over
// Postgres: the pass took 400 s one file at a time, vitest's default on 2 cores).
const WORKERS = Number(process.env.TEST_WORKERS) || Math.max(3, availableParallelism());

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // a backstop for a test that hangs, never a measure: CI runs this suite beside the workerd
    // suite on two cores, where tests that take 20-30 s idle (a browser page, a 1 MB body per
    // field) took longer than the 30 s this was (a red CI whose log did not say which)
    testTimeout: 120_000,
    // expect.poll waits for what a page or a background job shows; 1 s (the default) is too
    // short on 2 busy cores (a console reveal on workerd took longer in the full run)
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [
            'test/worker/**',
            'node_modules/**',
            ...MANY_CONNECTIONS,
            ...(process.env.TEST_FILES === 'backend' ? [...BACKEND_INDEPENDENT, ...noTestDatabase()] : []),
          ],
          maxWorkers: WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'many-connections',
          include: MANY_CONNECTIONS,
          maxWorkers: Math.min(2, WORKERS),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
