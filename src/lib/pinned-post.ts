/**
 * Node only (src/node.ts gives it to the app as `deps.postToAddress`): an outbound event's POST
 * sent to the IP address that was resolved and checked for this very attempt, never to a new
 * resolution of the name. The name stays in the URL: it is the `Host` header and, over https,
 * the TLS server name (SNI) the certificate is verified against. A name that resolves to a
 * public address at the check and to 127.0.0.1 a millisecond later (DNS rebinding) therefore
 * gets its request at the public address, or nowhere.
 */

import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

export interface PostInit {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Sends the POST to `address` (the checked one) and answers the status code. Throws on a network error or timeout. */
export type PostToAddress = (url: URL, address: string, init: PostInit) => Promise<number>;

/** What a test puts in place of the socket: it sees the address and port the request goes to. */
export type ConnectHook = (to: { address: string; port: number; servername: string; tls: boolean }) => Duplex;

export function pinnedPost(opts: { connect?: ConnectHook } = {}): PostToAddress {
  return (url, address, init) =>
    new Promise<number>((resolve, reject) => {
      const tls = url.protocol === 'https:';
      const to = { address, port: Number(url.port) || (tls ? 443 : 80), servername: url.hostname, tls };
      // the socket is made here, to the checked address (TLS verified against the name), or by
      // the test's hook; the request itself never looks a name up or picks a socket of its own
      const socket = opts.connect ? opts.connect(to) : openSocket(to);
      const req = httpRequest(
        {
          createConnection: () => socket as never,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...init.headers, host: url.host, 'content-length': String(Buffer.byteLength(init.body)) },
        },
        (res) => {
          res.resume();
          res.on('end', () => socket.destroy());
          resolve(res.statusCode ?? 0);
        },
      );
      req.setTimeout(init.timeoutMs, () => {
        const e = new Error(`Timed out after ${init.timeoutMs / 1000} s`);
        e.name = 'TimeoutError';
        req.destroy(e);
        socket.destroy();
      });
      req.on('error', (e) => {
        socket.destroy();
        reject(e);
      });
      req.end(init.body);
    });
}

function openSocket(to: { address: string; port: number; servername: string; tls: boolean }): Duplex {
  if (!to.tls) return netConnect({ host: to.address, port: to.port });
  // SNI and the certificate check use the name; the connection goes to the address
  return tlsConnect({ host: to.address, port: to.port, servername: to.servername, ALPNProtocols: ['http/1.1'] });
}
