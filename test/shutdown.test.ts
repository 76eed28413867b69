/**
 * Stopping `npm start` the way a user or a process manager does: SIGTERM (or SIGINT) to the
 * process that was started, which is npm. The server stops taking connections, finishes the
 * requests in flight, stops its delivery loops, closes the database and exits 0, within 10 s.
 * (The signal used to stop at npm's shell: the server kept listening.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function startNpm(): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['start'], {
      env: { ...process.env, PGLITE_DIR: 'memory://', PORT: '0', ADMIN_TOKEN: '', JOBS_INTERVAL_MS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 40 s:\n${out}`)), 40_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
}

const exited = (child: ChildProcess, ms: number) =>
  new Promise<number | null>((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const t = setTimeout(() => reject(new Error(`still running ${ms} ms after the signal`)), ms);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });

/**
 * A request whose body arrives in two halves: `rest()` sends the second; `answer` is the raw
 * HTTP answer. Between the halves the request is in flight (its headers are in, its handler waits).
 */
function slowPost(port: number, path: string, key: string, body: string) {
  const socket = connect(port, '127.0.0.1');
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  let raw = '';
  socket.on('data', (d) => {
    raw += d.toString();
  });
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(raw));
    socket.on('error', () => resolve(raw));
  });
  return { rest: () => socket.write(body.slice(half)), answer };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });

describe('npm start stops on a signal', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm: the requests in flight are answered, then the server stops listening and exits 0 within 10 s`, async () => {
      const { child, port, output } = await startNpm();
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/health`)).status).toBe(200);
      // the demo team the first start seeded: its private key and contest
      const key = /private key:\s+(sk_[A-Za-z0-9]+)/.exec(output())![1]!;
      const contest = /demo contest:\s+([0-9a-f-]{36})/.exec(output())![1]!;
      const writes = Array.from({ length: 3 }, (_, i) =>
        slowPost(port, `/api/v1/contests/${contest}/entries`, key, JSON.stringify({ email: `late${i}@example.com` })),
      );
      await sleep(300);
      const signalled = Date.now();
      child.kill(signal);
      await sleep(300);
      // a new connection is no longer taken
      expect(await refused(port)).toBe(true);
      for (const w of writes) w.rest();
      const answers = await Promise.all(writes.map((w) => w.answer));
      expect(answers.map((a) => a.split('\r\n')[0])).toEqual(Array(3).fill('HTTP/1.1 201 Created'));
      expect(await exited(child, 10_000)).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);
      // the server itself (npm's grandchild) is gone: nothing listens on its port any more
      await expect.poll(() => refused(port), { timeout: 5_000 }).toBe(true);
      expect(output()).toContain(`${signal}: stopping`);
      expect(output()).toMatch(/\nstopped\n/);
      // the first start migrates and seeds an in-memory PGlite (up to startNpm's 40 s on a busy machine)
    }, 60_000);
  }
});
