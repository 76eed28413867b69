/**
 * Once per run: a migrated PGlite snapshot every test file starts from (a cold PGlite costs
 * 2-3 s, loading a snapshot ~0.4 s) and, when TEST_DATABASE_URL is set, a migrated template
 * database on the real Postgres that each file clones into a database of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPg } from '../../src/db/drivers/pg.js';
import { openPglite } from '../../src/db/drivers/pglite.js';

// names unique per run, so parallel runs (several developers or CI) on one server never collide
const RUN_ID = `${process.pid}_${Date.now().toString(36)}`;
export const TEMPLATE_DB = `ce_tpl_${RUN_ID}`;

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

async function dropTestDatabases(admin: pg.Client) {
  const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
    `ce_t_${RUN_ID}_%`,
  ]);
  for (const r of rows) await admin.query(`drop database if exists "${r.datname}" with (force)`);
}

export default async function setup(project: TestProject) {
  const dir = join(process.cwd(), '.tmp');
  mkdirSync(dir, { recursive: true });
  const snapshotPath = join(dir, `pglite-snapshot-${process.pid}.tar`);
  const h = await openPglite({ dataDir: 'memory://' });
  const dump = await h.client.dumpDataDir('none');
  writeFileSync(snapshotPath, Buffer.from(await dump.arrayBuffer()));
  await h.close();
  project.provide('pgliteSnapshot', snapshotPath);
  project.provide('pgRunId', RUN_ID);

  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.warn(
      '\n*** TEST_DATABASE_URL is not set: tests run on PGlite only; the real-Postgres concurrency suites are SKIPPED. ***\n',
    );
    project.provide('pgTemplateUrl', null);
    return;
  }
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${TEMPLATE_DB}`);
  const templateUrl = withDatabase(url, TEMPLATE_DB);
  const t = await openPg(templateUrl, { max: 1 });
  await t.close();
  project.provide('pgTemplateUrl', templateUrl);
  console.log(`\n*** Real Postgres tests run against ${new URL(url).host} (template ${TEMPLATE_DB}) ***\n`);

  return async () => {
    await dropTestDatabases(admin);
    await admin.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
    await admin.end();
  };
}
