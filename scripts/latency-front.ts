/**
 * A TCP front that holds every raw byte chunk `latencyMs` in each direction, preserving order,
 * then forwards it to a local server: the link between the Worker and its database endpoint made
 * as slow as the real one (the Worker near the user, the database in one region).
 *
 * It sits on the socket FACING THE CLIENT (the Worker), so whatever the client exchanges over it
 * is delayed: HTTP requests and answers (scripts/neon-http.ts), the WebSocket upgrade and the
 * Postgres start-up (scripts/ws-proxy.ts). The link behind the endpoint (endpoint → Postgres) is
 * never delayed. The kernel's own TCP handshake (SYN / SYN-ACK) is not emulated: a client that
 * opens a new connection pays only for the bytes it then sends, on both paths alike.
 *
 * Test/dev only.
 */

import type { AddressInfo } from 'node:net';
import net from 'node:net';

export interface LatencyFrontOptions {
  /** the server the front forwards to */
  target: { host: string; port: number };
  /** delay of every chunk, in each direction (ms) */
  latencyMs: number;
  /** where the front listens (default 127.0.0.1, an ephemeral port) */
  host?: string;
  port?: number;
}

export interface LatencyFront {
  host: string;
  port: number;
  /** host:port */
  address: string;
  /** connections accepted since start */
  total(): number;
  close(): Promise<void>;
}

const END = Symbol('end');
type Item = { at: number; chunk: Buffer | typeof END };

/**
 * Writes what `from` emits to `to`, each chunk (and the end of the stream) `ms` after it arrived,
 * in arrival order. One timer per direction, for the head of the queue.
 */
function delayedPipe(from: net.Socket, to: net.Socket, ms: number) {
  const queue: Item[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.at <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) return;
      if (chunk === END) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0]!.at - now);
  };
  const push = (chunk: Buffer | typeof END) => {
    queue.push({ at: Date.now() + ms, chunk });
    if (!timer) timer = setTimeout(flush, ms);
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(END));
  return {
    /** the other side went away: nothing left to deliver */
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      queue.length = 0;
    },
    pending: () => queue.length > 0,
  };
}

export async function startLatencyFront(opts: LatencyFrontOptions): Promise<LatencyFront> {
  const ms = Math.max(0, opts.latencyMs);
  const sockets = new Set<net.Socket>();
  let total = 0;

  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    total += 1;
    client.setNoDelay(true);
    const upstream = net.connect({ host: opts.target.host, port: opts.target.port, allowHalfOpen: true });
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    const inbound = delayedPipe(client, upstream, ms);
    const outbound = delayedPipe(upstream, client, ms);
    // half-closes travel in order, like data (allowHalfOpen); a socket fully closed still lets
    // what is queued for the other side arrive, in time, then ends it; an error ends both at once
    const destroyBoth = () => {
      inbound.cancel();
      outbound.cancel();
      client.destroy();
      upstream.destroy();
    };
    const closeLater = (other: net.Socket, pipe: { pending(): boolean }) => () => {
      sockets.delete(client);
      sockets.delete(upstream);
      const wait = () => (pipe.pending() ? setTimeout(wait, ms) : (other.destroySoon?.() ?? other.end()));
      wait();
    };
    client.on('error', destroyBoth);
    upstream.on('error', destroyBoth);
    client.on('close', closeLater(upstream, inbound));
    upstream.on('close', closeLater(client, outbound));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = opts.host ?? address;

  return {
    host,
    port,
    address: `${host}:${port}`,
    total: () => total,
    async close() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
