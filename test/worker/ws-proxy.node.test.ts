/**
 * The WebSocket-to-TCP proxy (scripts/ws-proxy.ts) on its own: the Terminate detection over
 * arbitrary chunking, the Neon driver (from Node, with `ws`) through it to the local Postgres,
 * `pool.end()` returning promptly with every proxied connection closed, the latency knob,
 * non-loopback targets refused.
 */
import { neonConfig, Pool } from '@neondatabase/serverless';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FrontendStream, startWsProxy, type WsProxy } from '../../scripts/ws-proxy.js';
import { DEFAULT_PG } from './support/global-setup.js';

function startup(): Buffer {
  const params = Buffer.from('user\0postgres\0database\0x\0\0');
  const b = Buffer.alloc(8 + params.length);
  b.writeInt32BE(8 + params.length, 0);
  b.writeInt32BE(196608, 4);
  params.copy(b, 8);
  return b;
}
function typed(type: string, body: Buffer): Buffer {
  const b = Buffer.alloc(5 + body.length);
  b.write(type, 0, 'latin1');
  b.writeInt32BE(4 + body.length, 1);
  body.copy(b, 5);
  return b;
}
const sslRequest = () => Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const terminate = () => typed('X', Buffer.alloc(0));

describe('FrontendStream: sees the Terminate message, whatever the chunking', () => {
  // a query whose text contains 'X' bytes and a fake terminate inside, to prove bodies are skipped
  const query = typed('Q', Buffer.from("select 'X\0\0\0\x04' as x\0", 'latin1'));
  const stream = Buffer.concat([sslRequest(), startup(), query, typed('S', Buffer.alloc(0)), terminate()]);

  it('in one chunk', () => {
    expect(new FrontendStream().push(stream)).toBe(true);
  });

  it('byte by byte, and not before the last byte', () => {
    const f = new FrontendStream();
    for (let i = 0; i < stream.length; i++) {
      expect(f.push(stream.subarray(i, i + 1))).toBe(i === stream.length - 1);
    }
  });

  it('not for a stream without Terminate', () => {
    expect(new FrontendStream().push(Buffer.concat([startup(), query]))).toBe(false);
  });
});

const base = process.env.TEST_DATABASE_URL || process.env.WORKERD_DATABASE_URL || DEFAULT_PG;
let reachable = false;
try {
  const c = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
  await c.connect();
  await c.end();
  reachable = true;
} catch {
  console.warn(`\n*** No Postgres at ${new URL(base).host}: the ws-proxy end-to-end test is SKIPPED. ***\n`);
}

describe.skipIf(!reachable)('the Neon driver through the proxy (Node, ws)', () => {
  let proxy: WsProxy;
  beforeAll(async () => {
    proxy = await startWsProxy();
    neonConfig.webSocketConstructor = WebSocket as unknown as typeof neonConfig.webSocketConstructor;
    neonConfig.wsProxy = (host, port) => `${proxy.address}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  });
  afterAll(() => proxy.close());

  it('runs queries, and pool.end() closes every proxied connection promptly', async () => {
    const pool = new Pool({ connectionString: base, max: 3 });
    const rows = await Promise.all(
      [1, 2, 3].map((n) => pool.query<{ n: number }>('select $1::int as n, pg_sleep(0.05)', [n])),
    );
    expect(rows.map((r) => r.rows[0]!.n)).toEqual([1, 2, 3]);
    expect(proxy.open()).toBe(3);
    // end() returns once every client closed; the proxy then holds none open (counted, not timed)
    await pool.end();
    await expect.poll(() => proxy.open()).toBe(0);
    expect(proxy.total()).toBe(3);
  });

  it('closes the WebSocket itself when the client sends Terminate (even if the client never closes)', async () => {
    const u = new URL(base);
    const ws = new WebSocket(`ws://${proxy.address}/v2?address=${u.hostname}:${u.port || 5432}`);
    await new Promise((r) => ws.once('open', r));
    let received = Buffer.alloc(0);
    const ready = new Promise<void>((resolve) =>
      ws.on('message', (d: Buffer) => {
        received = Buffer.concat([received, d]);
        // ReadyForQuery: 'Z', length 5, status
        if (received.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) resolve();
      }),
    );
    const params = Buffer.from(
      `user\0${decodeURIComponent(u.username || 'postgres')}\0database\0${u.pathname.slice(1) || 'postgres'}\0\0`,
    );
    const start = Buffer.alloc(8 + params.length);
    start.writeInt32BE(8 + params.length, 0);
    start.writeInt32BE(196608, 4);
    params.copy(start, 8);
    ws.send(start);
    await ready; // trust auth: straight to ReadyForQuery
    const closed = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    ws.send(terminate());
    expect(await closed).toBe(1000);
    await expect.poll(() => proxy.open()).toBe(0);
  });

  it('latencyMs delays the client-facing socket: upgrade, start-up and query are 3 round trips', async () => {
    const slow = await startWsProxy({ latencyMs: 50 });
    const saved = neonConfig.wsProxy;
    neonConfig.wsProxy = (host, port) => `${slow.address}/v2?address=${host}:${port}`;
    const pool = new Pool({ connectionString: base, max: 1 });
    try {
      const t0 = performance.now();
      expect((await pool.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
      const ms = performance.now() - t0;
      expect(ms).toBeGreaterThanOrEqual(290); // 3 × 2 × 50 ms; a busy machine only adds (no upper bound)
      expect(slow.total()).toBe(1);
    } finally {
      await pool.end();
      neonConfig.wsProxy = saved;
      await slow.close();
    }
  });

  it('refuses to forward anywhere but loopback', async () => {
    const ws = new WebSocket(`ws://${proxy.address}/v2?address=10.1.2.3:5432`);
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(code).toBe(1008);
  });
});
