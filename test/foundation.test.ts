import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

describe('smoke', () => {
  it('health', async () => {
    const r = await env.request('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
  it('contests list', async () => {
    await env.contest(t.teamId, { title: 'Hello' });
    const r = await env.request('GET', '/api/v1/contests', { key: t.publicKey });
    expect(r.status).toBe(200);
    expect(r.body.data[0].title).toBe('Hello');
  });
});
