/**
 * Once per workerd run (Node side): a fresh database on the local Postgres, migrated with the
 * node-postgres migrator, the local Neon SQL-over-HTTP endpoint the Worker's driver posts to (its
 * default path), the WebSocket-to-TCP proxy the driver's Pool goes through (DB_TRANSPORT=ws), and
 * a fake Resend API, and the stand-ins of the other tools' APIs. Their addresses reach the Worker as bindings (vitest.workers.config.ts).
 * No Postgres reachable: everything is provided as null and the suites skip, loudly.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startNeonHttp } from '../../../scripts/neon-http.js';
import { startWsProxy } from '../../../scripts/ws-proxy.js';
import { openPg } from '../../../src/db/drivers/pg.js';
import { seededStandIns } from '../../support/stand-ins/providers.js';
import { startFakeResend } from './fake-resend.js';

export interface WorkerdContext {
  databaseUrl: string;
  /** URL of the local SQL-over-HTTP endpoint (NEON_HTTP_ENDPOINT) */
  httpEndpoint: string;
  wsProxy: string;
  resendUrl: string;
  /** the stand-ins of Klaviyo, Mailchimp and HubSpot (test/support/stand-ins/providers.ts) */
  providersUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    workerd: WorkerdContext | null;
  }
}

export const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  const base = process.env.TEST_DATABASE_URL || process.env.WORKERD_DATABASE_URL || DEFAULT_PG;
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (e) {
    console.warn(
      `\n*** No Postgres at ${new URL(base).host} (${(e as Error).message}): the workerd suites are SKIPPED. ` +
        `Set TEST_DATABASE_URL to a reachable server to run them. ***\n`,
    );
    project.provide('workerd', null);
    return;
  }
  const name = `ce_w_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`create database ${name}`);
  // function call counts (pg_stat_user_functions): the Worker's statements reach Postgres as their functions
  await admin.query(`alter database ${name} set track_functions = 'pl'`);
  const databaseUrl = withDatabase(base, name);
  const migrated = await openPg(databaseUrl, { max: 1 });
  await migrated.close();

  const http = await startNeonHttp({ log: (m) => console.warn(`[neon-http] ${m}`) });
  const proxy = await startWsProxy({ log: (m) => console.warn(`[ws-proxy] ${m}`) });
  const resend = await startFakeResend();
  const providers = await seededStandIns();
  project.provide('workerd', {
    databaseUrl,
    httpEndpoint: http.endpoint,
    wsProxy: proxy.address,
    resendUrl: resend.url,
    providersUrl: providers.url,
  });
  console.log(
    `\n*** workerd suites: real Worker + Neon driver → HTTP endpoint ${http.endpoint} (ws proxy ${proxy.address} for DB_TRANSPORT=ws) → ${new URL(base).host}/${name} ***\n`,
  );

  return async () => {
    console.log(
      `*** neon http endpoint: ${http.requests()} requests; ws proxy: ${proxy.total()} connections, ${proxy.open()} still open at teardown ***`,
    );
    await http.close();
    await proxy.close();
    await resend.close();
    await providers.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
}
