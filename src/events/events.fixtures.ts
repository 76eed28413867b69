import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export let env: TestEnv;
export let t: TeamFixture;
export const received: Received[] = [];
let answer: (r: Received) => number = () => 200;
/** How the fake receiver answers from now on. */
export const setAnswer = (f: (r: Received) => number) => {
  answer = f;
};

/** the receiver: every request to https://hooks.example.test/... lands here */
export const receiverFetch: typeof fetch = async (input, init) => {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  const body = String(init?.body ?? '');
  const r = { url: String(input), headers, body, json: JSON.parse(body) };
  received.push(r);
  const status = answer(r);
  return new Response(status === 204 ? null : 'ok', { status });
};

beforeAll(async () => {
  env = await createTestEnv();
  env.deps.fetch = receiverFetch;
  t = await env.team();
});
afterAll(() => env.close());

export async function endpoint(body: Record<string, unknown> = {}, team = t) {
  const r = await env.request('POST', '/api/v1/webhook-endpoints', {
    key: team.privateKey,
    body: { url: 'https://hooks.example.test/in', ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; secret: string; events: string[] };
}
export const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id']!,
    'webhook-timestamp': r.headers['webhook-timestamp']!,
    'webhook-signature': r.headers['webhook-signature']!,
  });
export const fresh = async () => {
  const team = await env.team();
  received.length = 0;
  answer = () => 200;
  return team;
};
