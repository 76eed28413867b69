/**
 * Helpers for tests running INSIDE workerd: requests go to the real Worker (`SELF`, the default
 * export of src/worker.ts), fixtures are made through the admin API, and the database is read
 * with the same Neon driver path the Worker uses (HTTP, through the local endpoint).
 */
import { env, SELF } from 'cloudflare:test';
import type { SQL } from 'drizzle-orm';
import { query } from '../../../src/db/client.js';
import { neonHttpProvider } from '../../../src/db/drivers/neon.js';
import { type ContractValidator, createValidator } from '../../support/contract.js';

export interface WorkerdEnv {
  DATABASE_URL: string;
  DB_TRANSPORT: string;
  NEON_HTTP_ENDPOINT: string;
  NEON_WS_PROXY: string;
  ADMIN_TOKEN: string;
  RESEND_API_URL: string;
  WORKERD_ENABLED: string;
}

export const wenv = env as unknown as WorkerdEnv;
/** false when the global setup found no Postgres: suites skip (the setup says so loudly) */
export const hasPostgres = wenv.WORKERD_ENABLED === '1';

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: {
    key?: string;
    admin?: boolean;
    body?: unknown;
    headers?: Record<string, string>;
    /** `manual`: a redirect is answered as it is (its Location read by the test) */
    redirect?: RequestRedirect;
  } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers.authorization = `Bearer ${wenv.ADMIN_TOKEN}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await SELF.fetch(`http://contests.test${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    ...(opts.redirect ? { redirect: opts.redirect } : {}),
  });
  const text = await res.text();
  // every answer is held to the Worker's own OpenAPI document (test/support/contract.ts)
  (await workerContract()).check({
    method,
    path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text,
  });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

let contract: Promise<ContractValidator> | undefined;
const workerContract = () =>
  (contract ??= SELF.fetch('http://contests.test/api/v1/openapi.json').then(async (r) =>
    createValidator((await r.json()) as Record<string, any>),
  ));

export interface Team {
  teamId: string;
  publicKey: string;
  privateKey: string;
}

export async function makeTeam(name = 'Workerd team'): Promise<Team> {
  const team = await call('POST', '/api/admin/teams', { admin: true, body: { name } });
  if (team.status !== 201) throw new Error(`team: ${team.status} ${team.text}`);
  const teamId = team.body.data.id as string;
  const pub = await call('POST', `/api/admin/teams/${teamId}/api-keys`, { admin: true, body: { type: 'public' } });
  const priv = await call('POST', `/api/admin/teams/${teamId}/api-keys`, { admin: true, body: { type: 'private' } });
  return { teamId, publicKey: pub.body.data.key, privateKey: priv.body.data.key };
}

export async function makeContest(
  teamId: string,
  settings: Record<string, unknown> = {},
): Promise<{ id: string; slug: string }> {
  const res = await call('POST', `/api/admin/teams/${teamId}/contests`, {
    admin: true,
    body: { title: 'Workerd contest', status: 'active', isEvergreen: true, ...settings },
  });
  if (res.status !== 201) throw new Error(`contest: ${res.status} ${res.text}`);
  return { id: res.body.data.id, slug: res.body.data.slug };
}

/** Raw SQL over the Neon HTTP driver (through the local endpoint), like the Worker's own queries. */
export async function sqlRows<T = Record<string, unknown>>(statement: SQL): Promise<T[]> {
  const handle = neonHttpProvider(wenv.DATABASE_URL, { fetchEndpoint: wenv.NEON_HTTP_ENDPOINT }).acquire();
  try {
    return await query<T>(handle.db, statement);
  } finally {
    await handle.release();
  }
}

/** What the fake Resend API (Node side) has received. */
export async function resendLog(): Promise<{ requests: any[]; delivered: any[] }> {
  const res = await fetch(`${wenv.RESEND_API_URL}/__requests`);
  return (await res.json()) as { requests: any[]; delivered: any[] };
}

/** Polls until `check` returns a value (background work such as ctx.waitUntil delivery). */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** the number of requests the local SQL-over-HTTP endpoint has received so far */
export async function sqlRequests(): Promise<number> {
  const res = await fetch(wenv.NEON_HTTP_ENDPOINT.replace(/\/sql$/, '/stats'));
  return ((await res.json()) as { requests: number }).requests;
}

/** waits until background work of earlier requests (email delivery) has stopped sending SQL; the count then */
export async function quietSqlRequests(): Promise<number> {
  let last = await sqlRequests();
  for (;;) {
    await new Promise((r) => setTimeout(r, 150));
    const now = await sqlRequests();
    if (now === last) return now;
    last = now;
  }
}
