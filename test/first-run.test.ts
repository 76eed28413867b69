/**
 * First run as a newcomer does it: `npm start` (here: the same entry, src/node.ts, through tsx)
 * on an empty embedded database seeds a demo team, prints its keys once, and serves them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

// every server a test started is stopped (the second start must not leave the first running)
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

function start(env: Record<string, string>): Promise<{ out: string; ms: number; port: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const port = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (port && /private key: /.test(out) && /try: curl/.test(out)) {
        clearTimeout(timer);
        resolve({ out, ms: Date.now() - started, port: Number(port[1]) });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

describe('npm start on an empty database', () => {
  it('starts in a few seconds on PGlite, seeds a demo team, prints its keys, and answers with them', async () => {
    const { out, ms, port } = await start({ PGLITE_DIR: 'memory://', PORT: '0', ADMIN_TOKEN: '' });
    console.log(`first start to listening: ${ms} ms`);
    expect(ms).toBeLessThan(30_000);
    const pub = /public key:\s+(pk_[A-Za-z0-9]+)/.exec(out)![1]!;
    const priv = /private key:\s+(sk_[A-Za-z0-9]+)/.exec(out)![1]!;
    const health = await fetch(`http://localhost:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    for (const key of [pub, priv]) {
      const r = await fetch(`http://localhost:${port}/api/v1/contests`, { headers: { 'x-api-key': key } });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { data: { title: string; status: string; mode: string }[] };
      expect(body.data).toHaveLength(1);
      expect(body.data[0]).toMatchObject({ title: 'Demo leaderboard', status: 'active', mode: 'leaderboard' });
    }
    const none = await fetch(`http://localhost:${port}/api/v1/contests`);
    expect(none.status).toBe(401);
    // the seeded public key is meant for pages: it is masked
    const me = (await (
      await fetch(`http://localhost:${port}/api/v1/key`, { headers: { 'x-api-key': pub } })
    ).json()) as { data: { personalData: string } };
    expect(me.data.personalData).toBe('masked');
    // the address the server prints leads to the console and the reference
    expect(await (await fetch(`http://localhost:${port}/`)).text()).toContain('href="/console"');
  }, 120_000);

  it('a busy port stops the start with a sentence naming PORT, no stack trace', async () => {
    const busy = createNetServer();
    await new Promise<void>((r) => busy.listen(0, () => r()));
    const port = (busy.address() as AddressInfo).port;
    try {
      await expect(start({ PGLITE_DIR: 'memory://', PORT: String(port) })).rejects.toThrow(
        `exited with 1:\nPort ${port} is already in use: stop the program using it, or choose another port with PORT=<number>.`,
      );
    } finally {
      busy.close();
    }
  }, 120_000);
});
