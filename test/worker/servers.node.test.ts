/**
 * Black-box HTTP checks run against real servers: `npm start` (Node) and `npm run dev`
 * (wrangler dev: the Worker in workerd, Neon driver over the local SQL-over-HTTP endpoint), each
 * started here on a fresh database, configured by environment variables alone. The same checks
 * must pass on both.
 *
 * Point it at any running server instead:
 *   BLACKBOX_URL=http://localhost:8788 BLACKBOX_ADMIN_TOKEN=... npx vitest run -c vitest.workers.config.ts --project servers
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { utimesSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG } from './support/global-setup.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN = 'blackbox-admin-token-0123456789';

interface Target {
  name: string;
  url: string;
  adminToken: string;
  /** the demo keys printed at first start, when this run started the server */
  seededPublicKey?: string;
  output?: () => string;
  stop?: () => Promise<void>;
  /** the npm process this run started (its process group has the same id) */
  pid?: number;
  exited?: () => boolean;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function pgReachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** Starts `npm <args>` in its own process group; resolves when /health answers 200. */
async function startServer(name: string, npmArgs: string[], env: Record<string, string>): Promise<Target> {
  const port = await freePort();
  const child: ChildProcess = spawn('npm', npmArgs, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, PORT: String(port), ADMIN_TOKEN: ADMIN, JOBS_INTERVAL_MS: '3600000' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`${name} exited early:\n${out}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200 && /public key:/.test(out)) break;
    } catch {
      /* not yet */
    }
    if (Date.now() - started > 90_000) throw new Error(`${name} not healthy in 90 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  console.log(`${name}: healthy in ${Date.now() - started} ms on ${url}`);
  return {
    name,
    url,
    adminToken: ADMIN,
    seededPublicKey: /public key:\s+(pk_\w+)/.exec(out)?.[1],
    output: () => out,
    pid: child.pid,
    exited: () => exited,
    stop: async () => {
      if (exited || child.pid === undefined) return;
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

const external = process.env.BLACKBOX_URL;
const baseUrl = process.env.TEST_DATABASE_URL || process.env.WORKERD_DATABASE_URL || DEFAULT_PG;
const runId = `${process.pid}_${Date.now().toString(36)}`;
const databases = [`ce_bb_${runId}_node`, `ce_bb_${runId}_dev`];
const withDb = (name: string) => {
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

const canStart = external ? true : await pgReachable(baseUrl);
if (!canStart) {
  console.warn(
    `\n*** No Postgres at ${new URL(baseUrl).host}: the npm start / npm run dev black-box suite is SKIPPED. ***\n`,
  );
}

const targets: Target[] = [];

beforeAll(async () => {
  if (!canStart) return;
  if (external) {
    targets.push({
      name: 'external',
      url: external.replace(/\/+$/, ''),
      adminToken: process.env.BLACKBOX_ADMIN_TOKEN ?? '',
    });
    return;
  }
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  for (const d of databases) await admin.query(`create database ${d}`);
  await admin.end();
  const [node, dev] = await Promise.all([
    startServer('npm start', ['start', '--silent'], { DATABASE_URL: withDb(databases[0]!) }),
    startServer('npm run dev', ['run', 'dev', '--silent'], { DATABASE_URL: withDb(databases[1]!) }),
  ]);
  targets.push(node, dev);
}, 120_000);

afterAll(async () => {
  await Promise.all(targets.map((t) => t.stop?.()));
  if (external || !canStart) return;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  for (const d of databases) await admin.query(`drop database if exists ${d} with (force)`);
  await admin.end();
});

async function call(
  t: Target,
  method: string,
  path: string,
  opts: { key?: string; admin?: boolean; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers.authorization = `Bearer ${t.adminToken}`;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${t.url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: json, text };
}

const names = external ? ['external'] : ['npm start', 'npm run dev'];

describe.skipIf(!canStart).each(names)('black box: %s', (name) => {
  const t = () => targets.find((x) => x.name === name)!;

  it('answers /health and the JSON 404, with a request id', async () => {
    const h = await call(t(), 'GET', '/health');
    expect(h.status).toBe(200);
    expect(h.body).toEqual({ status: 'ok' });
    const nf = await call(t(), 'GET', '/definitely/not/here', { headers: { 'x-request-id': 'bb-check-1' } });
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ success: false, error: 'Not found' });
    expect(nf.headers.get('x-request-id')).toBe('bb-check-1');
  });

  it('migrated and seeded the empty database on start: the printed demo key lists the demo contest', async ({
    skip,
  }) => {
    if (!t().seededPublicKey) skip();
    const res = await call(t(), 'GET', '/api/v1/contests', { key: t().seededPublicKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { title: string }) => c.title)).toContain('Demo leaderboard');
  });

  it('admin API → team, keys, contest; v1 API with the keys, views counted', async () => {
    const team = await call(t(), 'POST', '/api/admin/teams', { admin: true, body: { name: 'Black box' } });
    expect(team.status).toBe(201);
    const teamId = team.body.data.id;
    const pub = await call(t(), 'POST', `/api/admin/teams/${teamId}/api-keys`, {
      admin: true,
      body: { type: 'public' },
    });
    expect(pub.status).toBe(201);
    expect(pub.body.data.key).toMatch(/^pk_[A-Za-z0-9]{32,}$/);
    const contest = await call(t(), 'POST', `/api/admin/teams/${teamId}/contests`, {
      admin: true,
      body: { title: 'Black box contest', status: 'active', isEvergreen: true },
    });
    expect(contest.status).toBe(201);
    const id = contest.body.data.id;

    const list = await call(t(), 'GET', '/api/v1/contests', { key: pub.body.data.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(list.body.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });

    const view = await call(t(), 'POST', `/api/v1/contests/${id}/views`, { key: pub.body.data.key });
    expect(view.status).toBe(200);
    expect(view.body).toEqual({ success: true, data: { viewsCount: 1 } });
    const one = await call(t(), 'GET', `/api/v1/contests/${id}`, { key: pub.body.data.key });
    expect(one.body.data).toMatchObject({ id, title: 'Black box contest', viewsCount: 1, status: 'active' });
  });

  it('an entry that queues a confirmation email: it is delivered right after the request (log transport)', async () => {
    const team = await call(t(), 'POST', '/api/admin/teams', { admin: true, body: { name: 'Mail box' } });
    const teamId = team.body.data.id;
    const priv = await call(t(), 'POST', `/api/admin/teams/${teamId}/api-keys`, {
      admin: true,
      body: { type: 'private' },
    });
    const contest = await call(t(), 'POST', `/api/admin/teams/${teamId}/contests`, {
      admin: true,
      body: { title: 'Mail <contest>', status: 'active', isEvergreen: true, requireEmailConfirmation: true },
    });
    const entry = await call(t(), 'POST', `/api/v1/contests/${contest.body.data.id}/entries`, {
      key: priv.body.data.key,
      body: { email: 'Ada@Example.com', name: 'Ada' },
    });
    expect(entry.status).toBe(201);
    expect(entry.body.data).toMatchObject({ email: 'ada@example.com', alreadyExists: false });
    // the cron timer is set to an hour here: only the after-request trigger can send it
    const emailsNow = async () =>
      (await call(t(), 'GET', `/api/admin/teams/${teamId}/emails`, { admin: true })).body.data as any[];
    await expect.poll(async () => (await emailsNow())[0]?.status, { timeout: 30_000 }).toBe('sent');
    const emails = await emailsNow();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      to: 'ada@example.com',
      kind: 'confirmation',
      status: 'sent',
      subject: 'Confirm your entry: Mail <contest>',
    });
    expect(emails[0].text).toMatch(/\/api\/confirm\/\S+/);
  });

  it("a client-sent CF-Connecting-IP does not reset a per-address limit (the visitor's /me: 120 a minute)", async () => {
    const server = t();
    const answers: number[] = [];
    for (let i = 0; i < 121; i++) {
      const r = await fetch(`${server.url}/api/v1/me`, {
        headers: { authorization: `Bearer et_${'x'.repeat(40)}`, 'cf-connecting-ip': `198.51.100.${i % 250}` },
      });
      answers.push(r.status);
    }
    expect(answers.slice(0, 120).every((s) => s === 401)).toBe(true);
    expect(answers[120]).toBe(429);
  });

  it('auth and input errors answer the documented envelope', async () => {
    expect(await call(t(), 'GET', '/api/v1/contests')).toMatchObject({
      status: 401,
      body: { success: false, error: 'Invalid API key' },
    });
    expect(await call(t(), 'POST', '/api/admin/teams', { body: { name: 'x' } })).toMatchObject({
      status: 401,
      body: { success: false, error: 'Unauthorized' },
    });
    expect(await call(t(), 'POST', '/api/admin/teams', { admin: true, raw: '{"name":' })).toMatchObject({
      status: 400,
      body: { success: false, error: 'Invalid request body' },
    });
    const big = await call(t(), 'POST', '/api/admin/teams', {
      admin: true,
      raw: JSON.stringify({ name: 'x'.repeat(70 * 1024) }),
    });
    expect(big).toMatchObject({ status: 413, body: { success: false, error: 'Request body too large' } });
  });

  it("the console's files are never sniffed, and the pages that embed the widget can be framed by the app only", async () => {
    for (const file of ['/console/app.js', '/console/app.css']) {
      const r = await call(t(), 'GET', file);
      expect([file, r.status, r.headers.get('x-content-type-options')]).toEqual([file, 200, 'nosniff']);
    }
    const demo = await call(
      t(),
      'GET',
      '/demo/instant-win/00000000-0000-4000-8000-000000000000?key=pk_0123456789abcdef',
    );
    expect(demo.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    const verify = await call(t(), 'GET', '/draws/00000000-0000-4000-8000-000000000000/verify');
    expect(verify.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
  });

  it('answers CORS preflights on /api/v1 and serves the OpenAPI document', async () => {
    const pre = await fetch(`${t().url}/api/v1/contests`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    const doc = await call(t(), 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/contests');
  });
});

describe.skipIf(!canStart || !!external)('npm run dev as a user runs it', () => {
  const groupAlive = (pid: number) => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('SIGTERM or SIGINT to the npm process the user started stops it with every child: the port stops answering', async () => {
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    const names = [`ce_bb_${runId}_sig1`, `ce_bb_${runId}_sig2`];
    for (const d of names) await admin.query(`create database ${d}`);
    try {
      for (const [i, signal] of (['SIGTERM', 'SIGINT'] as const).entries()) {
        const inner = await freePort();
        const t = await startServer(`npm run dev (${signal})`, ['run', 'dev', '--silent'], {
          DATABASE_URL: withDb(names[i]!),
          WRANGLER_PORT: String(inner),
        });
        expect((await fetch(`http://127.0.0.1:${inner}/health`)).status).toBe(200);
        if (i === 0) {
          // a file under src changing (a generated file written, an editor saving) does not make
          // wrangler run its build command again, nor restart onto its own port
          const file = join(root, 'src/lib/plural.ts');
          const now = new Date();
          utimesSync(file, now, now);
          await new Promise((r) => setTimeout(r, 3000));
          expect(t.output!()).not.toContain('restarting build');
          expect((await fetch(`${t.url}/health`)).status).toBe(200);
        }
        const t0 = Date.now();
        // to npm alone, as a terminal's kill or a process manager would send it (the waits below
        // are backstops for a stuck process, not a bound on how long stopping may take)
        process.kill(t.pid!, signal);
        await expect.poll(() => t.exited!(), { timeout: 60_000, message: `${signal}: npm still running` }).toBe(true);
        // wrangler and workerd went with it: nothing is left in the group, nothing answers
        await expect
          .poll(() => groupAlive(t.pid!), { timeout: 60_000 })
          .toBe(false)
          .catch(() => {});
        const left = groupAlive(t.pid!);
        if (left) process.kill(-t.pid!, 'SIGKILL');
        expect(left, `${signal}: a child of npm run dev is still running`).toBe(false);
        await expect(fetch(`${t.url}/health`)).rejects.toThrow();
        // wrangler's own port (its process group) too
        await expect(fetch(`http://127.0.0.1:${inner}/health`)).rejects.toThrow();
        console.log(`npm run dev stopped on ${signal} in ${Date.now() - t0} ms`);
      }
    } finally {
      for (const d of names) await admin.query(`drop database if exists ${d} with (force)`);
      await admin.end();
    }
  }, 240_000);

  it('a database that does not exist: one sentence saying how to create it, no stack trace, exit 1', async () => {
    const missing = `ce_missing_${runId}`;
    const child = spawn('npm', ['run', 'dev', '--silent'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: withDb(missing), PORT: String(await freePort()) },
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(out).toContain(`database "${missing}" does not exist: create it first with \`createdb -h`);
    expect(out).toContain(` ${missing}\``);
    expect(out).not.toMatch(/^\s+at /m);
  }, 60_000);
});
