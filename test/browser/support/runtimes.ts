/**
 * The two runtimes a browser suite drives the same scenario on: the app on Node (the test harness
 * on a loopback port) and the Worker as `npm run dev` starts it (workerd, the Neon driver, the
 * local Postgres). Both are reached over HTTP with the admin token and the team's keys; the emails
 * they send (the confirmation links: the outbox keeps them without the secret) are read from the
 * harness's mailer on Node and from a stand-in for Resend's API on the Worker.
 */
import { request as httpRequest, type Server } from 'node:http';
import { docsFiles } from '../../../src/meta/docs-files.js';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv } from '../../support/harness.js';
import { startFakeResend } from '../../worker/support/fake-resend.js';
import { DEV_ADMIN_TOKEN, DEV_BASE_URL, type DevServer, startDevServer } from './dev-server.js';
import { pgReachable } from './net.js';
import { closeAll, serveApp } from './shop.js';

export interface CallOptions {
  key?: string;
  /** with the admin token instead of a key */
  admin?: boolean;
  body?: unknown;
  /** from another client address than the browser's (a friend on their own connection) */
  elsewhere?: boolean;
}
export interface CallResult {
  status: number;
  body: any;
  text: string;
}

export interface Runtime {
  name: 'Node' | 'Worker';
  origin: string;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /** the text of the last email sent to `to` (waits for its delivery, which follows the answer) */
  lastEmail(to: string): Promise<string>;
  close(): Promise<void>;
}

/** The app on Node: the harness's app (PGlite, or the test Postgres) on a loopback port. */
async function nodeRuntime(): Promise<Runtime> {
  const env: TestEnv = await createTestEnv();
  // the console's files, as npm start serves them
  env.deps.staticFiles = docsFiles();
  const { server, origin } = await serveApp(env);
  return {
    name: 'Node',
    origin,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = {};
      if (o.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
      if (o.elsewhere) headers['x-forwarded-for'] = '198.51.100.77';
      const r = await env.request(method, path, { key: o.key, body: o.body, headers });
      return { status: r.status, body: r.body, text: r.text };
    },
    async lastEmail(to) {
      await env.settle();
      return env.sent.filter((m) => m.to === to).at(-1)?.text ?? '';
    },
    async close() {
      await closeAll(server as Server);
      await env.close();
    },
  };
}

/** The Worker: `npm run dev` on a database of its own. */
async function workerRuntime(): Promise<Runtime> {
  const resend = await startFakeResend();
  const dev: DevServer = await startDevServer({
    RESEND_API_KEY: 're_test_key',
    RESEND_API_URL: resend.url,
    MAIL_FROM: 'Contests <contests@example.com>',
  });
  const target = new URL(dev.origin);
  return {
    name: 'Worker',
    origin: dev.origin,
    call(method, path, o = {}) {
      const headers: Record<string, string> = {};
      if (o.key) headers['x-api-key'] = o.key;
      if (o.admin) headers.authorization = `Bearer ${DEV_ADMIN_TOKEN}`;
      const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      // npm run dev sets CF-Connecting-IP from the connection: "elsewhere" connects from another
      // loopback address (Linux routes all of 127.0.0.0/8 to lo)
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method,
            path,
            headers,
            localAddress: o.elsewhere ? '127.0.0.77' : undefined,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => {
              let body: unknown = text;
              try {
                body = JSON.parse(text);
              } catch {
                /* not JSON */
              }
              resolve({ status: res.statusCode ?? 0, body, text });
            });
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    async lastEmail(to) {
      // delivered by the Worker after its answer (waitUntil), to the stand-in for Resend
      const until = Date.now() + 20_000;
      for (;;) {
        const last = resend.delivered.filter((r) => [r.body?.to].flat().includes(to)).at(-1);
        if (last) return String(last.body.text ?? '');
        if (Date.now() > until) return '';
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      await dev.stop();
      await resend.close();
    },
  };
}

/**
 * The runtimes this machine can run: Node always; the Worker when the local Postgres answers
 * (said loudly when it does not).
 */
export async function availableRuntimes(what: string): Promise<{ name: Runtime['name']; start(): Promise<Runtime> }[]> {
  const list: { name: Runtime['name']; start(): Promise<Runtime> }[] = [{ name: 'Node', start: nodeRuntime }];
  if (await pgReachable(DEV_BASE_URL)) list.push({ name: 'Worker', start: workerRuntime });
  else
    console.warn(
      `\n*** No Postgres at ${new URL(DEV_BASE_URL).host}: ${what} on the Worker (npm run dev) are SKIPPED (set TEST_DATABASE_URL). ***\n`,
    );
  return list;
}

/** A team with a public and a private key, through the admin API. */
export async function makeTeam(rt: Runtime, name: string): Promise<TeamFixture> {
  const team = await rt.call('POST', '/api/admin/teams', { admin: true, body: { name } });
  if (team.status !== 201) throw new Error(`team: ${team.status} ${team.text}`);
  const teamId = team.body.data.id as string;
  const key = async (type: 'public' | 'private') =>
    (await rt.call('POST', `/api/admin/teams/${teamId}/api-keys`, { admin: true, body: { type } })).body.data
      .key as string;
  return { teamId, publicKey: await key('public'), privateKey: await key('private') };
}

/** An active evergreen contest of the team, with `settings` (the create body's fields). */
export async function makeContest(
  rt: Runtime,
  team: TeamFixture,
  settings: Record<string, unknown>,
): Promise<{ id: string }> {
  const c = await rt.call('POST', '/api/v1/contests', {
    key: team.privateKey,
    body: { title: 'Test contest', status: 'active', isEvergreen: true, ...settings },
  });
  if (c.status !== 201) throw new Error(`contest: ${c.status} ${c.text}`);
  return { id: c.body.data.id };
}

/** The confirmation code of the last email queued to `to`. */
export async function confirmationCode(rt: Runtime, to: string): Promise<string> {
  const text = await rt.lastEmail(to);
  const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(text)?.[1];
  if (!code) throw new Error(`no confirmation link in the last email to ${to}: ${text}`);
  return code;
}
