/**
 * DNS rebinding at delivery (Node): the name of an endpoint is resolved and checked at every
 * attempt, and the POST goes to that very address (src/lib/pinned-post.ts), the name kept for the
 * Host header and TLS. A resolver that flips between a public address and 127.0.0.1 on every call
 * never gets a request to 127.0.0.1. The connection is a hook the test controls: nothing leaves
 * this machine (the hook hands every connection to a local server, whatever address it was for).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedPost } from '../lib/pinned-post.js';
import { attemptDelivery, type ClaimedDelivery, type DeliveryContext } from './deliver.js';

const PUBLIC = '93.184.216.34';
let server: Server;
let port: number;
const seen: { host: string | undefined; url: string | undefined; signature: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    seen.push({ host: req.headers.host, url: req.url, signature: req.headers['webhook-signature'] as string });
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const row = (url: string): ClaimedDelivery => ({
  id: '00000000-0000-4000-8000-000000000001',
  attempts: 0,
  event_id: 'evt_rebinding',
  type: 'entry.created',
  contest_id: null,
  data: { ok: true },
  event_created_at: new Date('2026-01-01T00:00:00Z'),
  url,
  secret: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
  previous_secret: null,
  previous_secret_until: null,
  enabled: true,
});

describe('pinnedPost', () => {
  it('connects to the address it is given, never resolving the name, which stays the Host header', async () => {
    seen.length = 0;
    // `.invalid` never resolves (RFC 2606): a request that looked the name up could not be sent
    const status = await pinnedPost()(new URL(`http://receiver.invalid:${port}/hook?x=1`), '127.0.0.1', {
      headers: { 'content-type': 'application/json', 'webhook-signature': 'v1,abc' },
      body: '{"a":1}',
      timeoutMs: 5_000,
    });
    expect(status).toBe(204);
    expect(seen).toEqual([{ host: `receiver.invalid:${port}`, url: '/hook?x=1', signature: 'v1,abc' }]);
  });

  it('a receiver that does not answer in time is a TimeoutError', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const p = (silent.address() as AddressInfo).port;
    await expect(
      pinnedPost()(new URL(`http://slow.invalid:${p}/`), '127.0.0.1', { headers: {}, body: '', timeoutMs: 200 }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  });
});

describe('delivery under a rebinding resolver', () => {
  it('300 attempts against a name flipping between a public address and 127.0.0.1: no connection to 127.0.0.1', async () => {
    let calls = 0;
    const connections: string[] = [];
    const ctx: DeliveryContext = {
      // the attempt must not fall back to fetch, which would resolve the name again
      fetch: (() => {
        throw new Error('fetch used: the name would be resolved a second time');
      }) as unknown as typeof fetch,
      resolveHost: async () => [calls++ % 2 === 0 ? PUBLIC : '127.0.0.1'],
      postToAddress: pinnedPost({
        connect: (to) => {
          connections.push(`${to.address}:${to.port} ${to.servername} tls=${to.tls}`);
          // whatever the address, the bytes go to the local server: nothing leaves this machine
          return connect(port, '127.0.0.1');
        },
      }),
      allowHttp: false,
    };
    const outcomes = [];
    for (let i = 0; i < 300; i++) {
      outcomes.push(await attemptDelivery(row('https://rebind.example.com/hook'), ctx, new Date()));
    }
    const delivered = outcomes.filter((o) => o.ok).length;
    const refused = outcomes.filter((o) => o.err?.startsWith('Refused: rebind.example.com resolves to')).length;
    expect(calls).toBe(300); // resolved once per attempt, never again for the connection
    expect([delivered, refused]).toEqual([150, 150]);
    expect(connections.length).toBe(150);
    expect(new Set(connections)).toEqual(new Set([`${PUBLIC}:443 rebind.example.com tls=true`]));
  });
});
