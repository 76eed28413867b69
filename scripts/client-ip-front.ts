/**
 * `npm run dev`'s front door: an HTTP proxy on the user's port that forwards every request to
 * wrangler dev with `CF-Connecting-IP` set from the connection's address, as Cloudflare sets it
 * in production. Whatever a client sends in that header is replaced, so that it cannot reset the
 * per-address limits by naming another address. Test/dev only.
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';

/** A port nothing listens on now (for wrangler, which must be told one). */
export async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The connection's address as Cloudflare writes it (an IPv4 address without `::ffff:`). */
export const clientAddress = (req: IncomingMessage) => (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');

export async function startClientIpFront(o: {
  host: string;
  port: number;
  target: { host: string; port: number };
}): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const headers = { ...req.headers, 'cf-connecting-ip': clientAddress(req) };
    const upstream = request(
      // a connection of its own per request: a kept-alive socket that wrangler had just closed
      // would fail the request (502) under load
      { host: o.target.host, port: o.target.port, method: req.method, path: req.url, headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('wrangler dev is not answering (yet)');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
