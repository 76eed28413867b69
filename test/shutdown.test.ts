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
 * A request whose body arrives in two halves: `inFlight` resolves once the server has taken the
 * request (it asked for `Expect: 100-continue`, and Node answers 100 Continue when it hands the
 * request to the app); `rest()` sends the second half; `answer` is the final status line.
 */
function slowPost(port: number, path: string, key: string, body: string) {
  const socket = connect(port, '127.0.0.1');
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nexpect: 100-continue\r\n\r\n`,
  );
  let raw = '';
  let taken: () => void;
  const inFlight = new Promise<void>((r) => {
    taken = r;
  });
  socket.on('data', (d) => {
    raw += d.toString();
    if (raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
      taken();
      socket.write(body.slice(0, half));
    }
  });
  const answer = new Promise<string>((resolve) => {
    const final = () => resolve(raw.replace('HTTP/1.1 100 Continue\r\n\r\n', '').split('\r\n')[0]!);
    socket.on('close', final);
    socket.on('error', final);
  });
  return { inFlight, rest: () => socket.write(body.slice(half)), answer };
}

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
      await Promise.all(writes.map((w) => w.inFlight));
      child.kill(signal);
      // a new connection is no longer taken (the server logs the signal, then closes its listener)
      await expect.poll(output).toContain(`${signal}: stopping`);
      await expect.poll(() => refused(port)).toBe(true);
      for (const w of writes) w.rest();
      expect(await Promise.all(writes.map((w) => w.answer))).toEqual(Array(3).fill('HTTP/1.1 201 Created'));
      // exit 0: the server's own 10 s cut (which exits 1) did not come; the wait here is only a backstop
      expect(await exited(child, 30_000)).toBe(0);
      // the server itself (npm's grandchild) is gone: nothing listens on its port any more
      await expect.poll(() => refused(port), { timeout: 5_000 }).toBe(true);
      expect(output()).toContain(`${signal}: stopping`);
      expect(output()).toMatch(/\nstopped\n/);
      // the first start migrates and seeds an in-memory PGlite (up to startNpm's 40 s on a busy machine)
    }, 60_000);
  }
});
