/**
 * Once per run: a migrated PGlite snapshot every test file starts from (a cold PGlite costs
 * 2-3 s, loading a snapshot ~0.4 s) and, when TEST_DATABASE_URL is set, a migrated template
 * database on the real Postgres that each file clones into a database of its own.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPg } from '../../src/db/drivers/pg.js';
import { openPglite } from '../../src/db/drivers/pglite.js';

// names unique per run, so parallel runs (several developers or CI) on one server never collide
// (the shared setup below fixes it once: each project loads this module afresh)
const RUN_ID = `${process.pid}_${Date.now().toString(36)}`;

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    pgTemplateUrl: string | null;
    pgRunId: string;
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function dropTestDatabases(admin: pg.Client, runId: string) {
  const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
    `ce_t_${runId}_%`,
  ]);
  for (const r of rows) await admin.query(`drop database if exists "${r.datname}" with (force)`);
}

interface Prepared {
  runId: string;
  snapshotPath: string;
  templateUrl: string | null;
  teardown(): Promise<void>;
}

async function prepare(runId: string): Promise<Prepared> {
  const templateDb = `ce_tpl_${runId}`;
  const dir = join(process.cwd(), '.tmp');
  mkdirSync(dir, { recursive: true });
  const snapshotPath = join(dir, `pglite-snapshot-${process.pid}.tar`);
  const h = await openPglite({ dataDir: 'memory://' });
  const dump = await h.client.dumpDataDir('none');
  writeFileSync(snapshotPath, Buffer.from(await dump.arrayBuffer()));
  await h.close();

  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.warn(
      '\n*** TEST_DATABASE_URL is not set: tests run on PGlite only; the real-Postgres concurrency suites are SKIPPED. ***\n',
    );
    return { runId, snapshotPath, templateUrl: null, teardown: async () => rmSync(snapshotPath, { force: true }) };
  }
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${templateDb}`);
  const templateUrl = withDatabase(url, templateDb);
  const t = await openPg(templateUrl, { max: 1 });
  await t.close();
  console.log(`\n*** Real Postgres tests run against ${new URL(url).host} (template ${templateDb}) ***\n`);
  return {
    runId,
    snapshotPath,
    templateUrl,
    teardown: async () => {
      await dropTestDatabases(admin, runId);
      await admin.query(`drop database if exists ${templateDb} with (force)`);
      await admin.end();
      rmSync(snapshotPath, { force: true });
    },
  };
}

/**
 * Vitest runs a global setup once per project (vitest.config.ts has two, and the root): the
 * snapshot and the template are made once per run and shared through the main process's
 * globalThis (each project loads this module afresh); the last project's teardown drops them.
 */
const SHARED = Symbol.for('contest-engine.test-databases');
type Shared = { users: number; ready: Promise<Prepared> };

export default async function setup(project: TestProject) {
  const g = globalThis as unknown as Record<symbol, Shared | undefined>;
  const shared = g[SHARED] ?? { users: 0, ready: prepare(RUN_ID) };
  g[SHARED] = shared;
  shared.users++;
  const prepared = await shared.ready;
  project.provide('pgliteSnapshot', prepared.snapshotPath);
  project.provide('pgRunId', prepared.runId);
  project.provide('pgTemplateUrl', prepared.templateUrl);
  return async () => {
    if (--shared.users === 0) {
      g[SHARED] = undefined;
      await prepared.teardown();
    }
  };
}
