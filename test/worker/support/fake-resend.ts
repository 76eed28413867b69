/**
 * A stand-in for Resend's HTTP API (POST /emails) for tests, in Node: records every request
 * (method, path, headers, JSON body) and behaves like Resend's idempotency: a repeated
 * Idempotency-Key with the same payload gets the original response and is not delivered again.
 * Recipients starting with `fail-` get a 500 (transient), `reject-` a 422 (permanent).
 * GET /__requests answers what was recorded (for tests running inside workerd). POST /siteverify
 * is a stand-in for Cloudflare Turnstile's (token `pass` with secret `turnstile-secret` passes).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  status: number;
}

export interface FakeResend {
  url: string;
  requests: RecordedRequest[];
  /** emails actually "delivered" (first request per idempotency key) */
  delivered: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeResend(): Promise<FakeResend> {
  const requests: RecordedRequest[] = [];
  const delivered: RecordedRequest[] = [];
  const byKey = new Map<string, { id: string; payload: string }>();
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/__requests') return send(200, { requests, delivered });
      // also a stand-in for Cloudflare Turnstile's siteverify: token "pass" with the test secret passes
      if (req.method === 'POST' && req.url === '/siteverify') {
        const form = new URLSearchParams(raw);
        const success = form.get('secret') === 'turnstile-secret' && form.get('response') === 'pass';
        return send(200, { success, 'error-codes': success ? [] : ['invalid-input-response'] });
      }
      let body: any = null;
      try {
        body = JSON.parse(raw);
      } catch {
        /* recorded as null */
      }
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        status: 0,
      };
      requests.push(rec);
      const reply = (status: number, out: unknown) => {
        rec.status = status;
        send(status, out);
      };
      if (req.method !== 'POST' || req.url !== '/emails')
        return reply(404, { statusCode: 404, name: 'not_found', message: 'The requested endpoint does not exist.' });
      if (req.headers.authorization !== 'Bearer re_test_key')
        return reply(403, { statusCode: 403, name: 'invalid_api_key', message: 'API key is invalid' });
      const to = String(body?.to?.[0] ?? '');
      if (to.startsWith('fail-'))
        return reply(500, { statusCode: 500, name: 'application_error', message: 'Something went wrong' });
      if (to.startsWith('reject-'))
        return reply(422, { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' });
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string') {
        const seen = byKey.get(key);
        if (seen) {
          if (seen.payload !== raw)
            return reply(409, {
              statusCode: 409,
              name: 'invalid_idempotent_request',
              message: 'Same idempotency key used with a different request payload.',
            });
          return reply(200, { id: seen.id });
        }
      }
      const id = `fake_${++n}`;
      if (typeof key === 'string') byKey.set(key, { id, payload: raw });
      delivered.push(rec);
      reply(200, { id });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    delivered,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
