/**
 * A small WebSocket-to-TCP proxy speaking Neon's protocol, so the real `@neondatabase/serverless`
 * driver (in workerd: tests and `npm run dev`) can reach a plain local Postgres.
 *
 * The driver opens `ws://<proxy>/v2?address=<host>:<port>` (see NEON_WS_PROXY in
 * src/db/drivers/neon.ts) and then exchanges raw Postgres protocol bytes in binary messages,
 * both ways. Both sides are closed when the client sends the Postgres Terminate message ('X'),
 * or when either side closes; otherwise the driver's `pool.end()` waits forever.
 *
 * `latencyMs` (EDGE_LATENCY_MS in `npm run dev`): a TCP front (scripts/latency-front.ts) holds
 * every byte chunk that long in each direction between the client (the Worker) and the proxy, the
 * WebSocket upgrade and the Postgres start-up included; the link to Postgres is never delayed.
 *
 * Test/dev only: it listens on 127.0.0.1 and only forwards to loopback addresses by default.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { type LatencyFront, startLatencyFront } from './latency-front.js';

export interface WsProxy {
  /** host:port of the proxy, the value for NEON_WS_PROXY */
  address: string;
  port: number;
  /** connections currently open */
  open(): number;
  /** connections accepted since start */
  total(): number;
  close(): Promise<void>;
}

export interface WsProxyOptions {
  port?: number;
  host?: string;
  /** which Postgres addresses may be reached (default: loopback only) */
  allow?: (host: string, port: number) => boolean;
  log?: (msg: string) => void;
  /** hold every byte chunk this long in each direction on the client-facing socket (ms) */
  latencyMs?: number;
}

const PROTOCOL_3_0 = 196608;
const TERMINATE = 0x58; // 'X'

/**
 * Follows the frontend (client → server) message stream just enough to see a Terminate:
 * untyped startup-phase messages (SSLRequest, GSSENCRequest, StartupMessage: int32 length first),
 * then typed messages (1 byte type + int32 length). Message bodies are skipped, never buffered.
 */
export class FrontendStream {
  private header = Buffer.alloc(0);
  private skip = 0;
  private startup = true;

  /** Feeds bytes; true once a Terminate message has been seen. */
  push(chunk: Buffer): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      const need = this.startup ? 8 : 5;
      const take = Math.min(need - this.header.length, chunk.length - i);
      this.header = Buffer.concat([this.header, chunk.subarray(i, i + take)]);
      i += take;
      if (this.header.length < need) break;
      if (this.startup) {
        const len = this.header.readInt32BE(0);
        const code = this.header.readInt32BE(4);
        if (code === PROTOCOL_3_0) this.startup = false;
        this.skip = Math.max(0, len - 8);
      } else {
        const type = this.header[0];
        const len = this.header.readInt32BE(1);
        if (type === TERMINATE) return true;
        this.skip = Math.max(0, len - 4);
      }
      this.header = Buffer.alloc(0);
    }
    return false;
  }
}

const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data as ArrayBuffer);
}

function parseTarget(req: IncomingMessage): { host: string; port: number } | null {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const address = url.searchParams.get('address');
  if (!address) return null;
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address);
  if (!m) return null;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

export async function startWsProxy(opts: WsProxyOptions = {}): Promise<WsProxy> {
  const host = opts.host ?? '127.0.0.1';
  const allow = opts.allow ?? ((h: string) => isLoopback(h));
  const log = opts.log ?? (() => {});
  const sockets = new Set<{ ws: WebSocket; tcp: net.Socket }>();
  let total = 0;

  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only\n');
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });

  wss.on('connection', (ws, req) => {
    const target = parseTarget(req);
    if (!target || !allow(target.host, target.port)) {
      log(`refused ${req.url}`);
      ws.close(1008, 'address not allowed');
      return;
    }
    total += 1;
    const tcp = net.connect({ host: target.host, port: target.port });
    tcp.setNoDelay(true);
    const pair = { ws, tcp };
    sockets.add(pair);
    const frontend = new FrontendStream();
    let closed = false;
    const closeBoth = () => {
      if (closed) return;
      closed = true;
      sockets.delete(pair);
      tcp.end();
      tcp.destroySoon?.();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    };

    ws.on('message', (data) => {
      const buf = toBuffer(data);
      tcp.write(buf);
      if (frontend.push(buf)) closeBoth();
    });
    ws.on('close', closeBoth);
    ws.on('error', closeBoth);
    tcp.on('data', (buf) => {
      if (ws.readyState === ws.OPEN) ws.send(buf, { binary: true });
    });
    tcp.on('close', closeBoth);
    tcp.on('error', (e) => {
      log(`tcp error ${target.host}:${target.port}: ${e.message}`);
      closeBoth();
    });
  });

  // behind a delaying front: the proxy on an ephemeral port, the front on the asked one
  const latencyMs = Math.max(0, opts.latencyMs ?? 0);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(latencyMs > 0 ? 0 : (opts.port ?? 0), latencyMs > 0 ? '127.0.0.1' : host, () => resolve());
  });
  let port = (server.address() as AddressInfo).port;
  let front: LatencyFront | undefined;
  if (latencyMs > 0) {
    front = await startLatencyFront({ target: { host: '127.0.0.1', port }, latencyMs, host, port: opts.port ?? 0 });
    port = front.port;
  }

  return {
    address: `${host}:${port}`,
    port,
    open: () => sockets.size,
    total: () => total,
    async close() {
      await front?.close();
      for (const { ws, tcp } of sockets) {
        tcp.destroy();
        ws.terminate();
      }
      sockets.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
