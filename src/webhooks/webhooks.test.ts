import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  body,
  entry,
  env,
  hook,
  newId,
  secretFor,
  setup,
  signed,
  state,
  t,
  tracking,
} from '../../test/support/fixtures/webhooks.js';
import { query } from '../../test/support/harness.js';
import { listReceipts } from './receipts.js';

describe('replay protection by webhook-id', () => {
  it('a delivery seen before is answered as before and not processed again', async () => {
    const c = await setup();
    const id = newId();
    const raw = body('RP-1');
    const h = signed(c.secret, id, raw);
    const first = await hook(c.id, raw, h);
    const second = await hook(c.id, raw, h);
    const third = await hook(c.id, raw, h);
    expect(first.status).toBe(201);
    expect([second.status, second.body]).toEqual([201, first.body]);
    expect([third.status, third.body]).toEqual([201, first.body]);
    expect(await state(c.id)).toEqual({
      purchases: 1,
      ledger: 1,
      points: 35,
      outcomes: ['processed:201', 'duplicate:201', 'duplicate:201'],
    });
  });

  it('a new webhook-id for a known orderId: processed, answered 200 alreadyExists', async () => {
    const c = await setup();
    const raw = body('RP-2');
    const first = await hook(c.id, raw, signed(c.secret, newId(), raw));
    const again = await hook(c.id, raw, signed(c.secret, newId(), raw));
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      purchaseId: first.body.data.purchaseId,
      alreadyExists: true,
      pointsAwarded: 0,
    });
    expect(await state(c.id)).toEqual({
      purchases: 1,
      ledger: 1,
      points: 35,
      outcomes: ['processed:201', 'processed:200'],
    });
  });

  it('x-webhook-secret deliveries with a webhook-id header are deduplicated too', async () => {
    const c = await setup();
    const h = { 'x-webhook-secret': c.secret, 'webhook-id': 'evt-42' };
    const first = await hook(c.id, body('RP-3'), h);
    const second = await hook(c.id, body('RP-3'), h);
    expect([first.status, second.status, second.body]).toEqual([201, 201, first.body]);
    expect((await state(c.id)).outcomes).toEqual(['processed:201', 'duplicate:201']);
  });

  it('a refused delivery is not "seen": its retry with the same webhook-id is processed', async () => {
    const c = await env.contest(t.teamId, tracking);
    const secret = await secretFor(c.id);
    const id = newId();
    const raw = JSON.stringify({ email: 'late@example.com', orderId: 'RP-4', amount: 5 });
    const h = signed(secret, id, raw);
    const missing = await hook(c.id, raw, h);
    expect([missing.status, missing.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    await entry(c.id, 'late@example.com');
    const retry = await hook(c.id, raw, h);
    expect(retry.status).toBe(201);
    expect(await state(c.id)).toEqual({
      purchases: 1,
      ledger: 1,
      points: 15,
      outcomes: ['rejected:404', 'processed:201'],
    });
  });
});

describe('purchase webhook: payload and rules (same record and rules as the API)', () => {
  it('JSON that is not an object, broken JSON, bad UTF-8, an empty body: 400 Invalid request body, recorded as rejected', async () => {
    const c = await setup();
    const raws = ['[]', '[{"email":"buyer@example.com"}]', '"text"', '42', 'null', 'true', '{"email":', '', '   '];
    for (const raw of raws) {
      const r = await hook(c.id, raw, signed(c.secret, newId(), raw));
      expect([raw, r.status, r.body]).toEqual([raw, 400, { success: false, error: 'Invalid request body' }]);
    }
    // invalid UTF-8 bytes (authenticated with the shared secret)
    const res = await env.app.request(`/api/webhooks/purchase/${c.id}`, {
      method: 'POST',
      headers: { 'x-webhook-secret': c.secret, 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect([res.status, await res.json()]).toEqual([400, { success: false, error: 'Invalid request body' }]);
    const s = await state(c.id);
    expect(s.purchases).toBe(0);
    expect(s.outcomes).toEqual([...raws.map(() => 'rejected:400'), 'rejected:400']);
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts.every((x) => x.error === 'Invalid request body')).toBe(true);
  });

  it('field errors answer like the API', async () => {
    const c = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'buyer@example.com', orderId: 'F' }, 'Invalid request body'],
      [{ email: 'nope', orderId: 'F', amount: 1 }, 'Invalid request body'],
      [{ email: 'buyer@example.com', orderId: 7, amount: 1 }, 'Invalid request body'],
      [{ email: 'buyer@example.com', orderId: 'F', amount: 0 }, 'Amount must be positive'],
      [{ email: 'buyer@example.com', orderId: 'F', amount: -2 }, 'Amount must be positive'],
      [{ email: 'buyer@example.com', orderId: 'F', amount: 1e15 }, 'Amount is too large'],
      [{ email: 'buyer@example.com', orderId: 'F', amount: 1, currency: 'DOLLARS' }, 'Invalid currency'],
    ];
    for (const [b, error] of cases) {
      const raw = JSON.stringify(b);
      const r = await hook(c.id, raw, signed(c.secret, newId(), raw));
      expect([b, r.status, r.body]).toEqual([b, 400, { success: false, error }]);
    }
    expect((await state(c.id)).purchases).toBe(0);
  });

  it('tracking off 400, contest not active 409, unknown email 404; each recorded with its status and message', async () => {
    const off = await setup({});
    const r1 = await hook(off.id, body('R1'), { 'x-webhook-secret': off.secret });
    expect([r1.status, r1.body]).toEqual([
      400,
      { success: false, error: 'Purchase tracking is not enabled for this contest' },
    ]);
    const paused = await setup({ ...tracking, status: 'paused' });
    const r2 = await hook(paused.id, body('R2'), { 'x-webhook-secret': paused.secret });
    expect([r2.status, r2.body]).toEqual([409, { success: false, error: 'Contest is not active' }]);
    const open = await setup();
    const r3 = await hook(open.id, JSON.stringify({ email: 'nobody@example.com', orderId: 'R3', amount: 1 }), {
      'x-webhook-secret': open.secret,
    });
    expect([r3.status, r3.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    for (const [c, status, error] of [
      [off, 400, 'Purchase tracking is not enabled for this contest'],
      [paused, 409, 'Contest is not active'],
      [open, 404, 'Entry not found'],
    ] as const) {
      const receipts = await listReceipts(env.db, c.id);
      expect(receipts.map((x) => [x.outcome, x.statusCode, x.error])).toEqual([['rejected', status, error]]);
      expect((await state(c.id)).purchases).toBe(0);
    }
  });

  it('orderIds are shared with the API: the webhook answers alreadyExists for an order the API recorded', async () => {
    const c = await setup();
    const api = await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
      key: t.privateKey,
      body: { email: 'buyer@example.com', orderId: 'SHARED', amount: 25 },
    });
    expect(api.status).toBe(201);
    const r = await hook(c.id, body('SHARED'), { 'x-webhook-secret': c.secret });
    expect([r.status, r.body.data.purchaseId, r.body.data.alreadyExists]).toEqual([
      200,
      api.body.data.purchaseId,
      true,
    ]);
    expect(await state(c.id)).toMatchObject({ purchases: 1, ledger: 1, points: 35 });
  });

  it('the content type does not matter, unknown fields are ignored, currency defaults to USD', async () => {
    const c = await setup();
    const raw = body('CT', { note: 'hi', pointsAwarded: 1e6, currency: 'gbp' });
    const r = await hook(c.id, raw, { ...signed(c.secret, newId(), raw), 'content-type': 'text/plain' });
    expect([r.status, r.body.data.pointsAwarded]).toEqual([201, 35]);
    const [p] = await query<{ currency: string }>(
      env.db,
      sql`select currency from purchases where contest_id = ${c.id}`,
    );
    expect(p!.currency).toBe('GBP');
  });

  it('GET on a webhook path is a 404', async () => {
    const c = await setup();
    const r = await env.request('GET', `/api/webhooks/purchase/${c.id}`);
    expect([r.status, r.body]).toEqual([404, { success: false, error: 'Not found' }]);
  });
});

describe("GET /api/v1/contests/:contestId/webhook-receipts (the team's audit)", () => {
  it('lists what arrived, newest first, with filters and pagination; private key, team-scoped', async () => {
    const c = await setup();
    env.clock.advance(1000);
    await hook(c.id, body('AU-1'), { 'x-webhook-secret': c.secret, 'webhook-id': 'au-1' });
    env.clock.advance(1000);
    await hook(c.id, body('AU-1'), { 'x-webhook-secret': c.secret, 'webhook-id': 'au-1' });
    env.clock.advance(1000);
    await hook(c.id, body('AU-2'), { 'x-webhook-secret': 'whsec_wrong', 'webhook-id': 'au-2' });
    const path = `/api/v1/contests/${c.id}/webhook-receipts`;
    const all = await env.request('GET', path, { key: t.privateKey });
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, limit: 50, total: 3, totalPages: 1 });
    expect(all.body.data.map((x: any) => [x.externalId, x.outcome, x.statusCode, x.error])).toEqual([
      ['au-2', 'rejected', 401, 'Invalid webhook signature'],
      ['au-1', 'duplicate', 201, null],
      ['au-1', 'processed', 201, null],
    ]);
    expect(all.body.data[2]).toMatchObject({
      source: 'purchase',
      dedupeKey: 'AU-1',
      response: { success: true, data: { alreadyExists: false } },
    });
    const processed = await env.request('GET', `${path}?outcome=processed&limit=1`, { key: t.privateKey });
    expect([processed.body.data.length, processed.body.pagination.total]).toEqual([1, 1]);
    const bad = await env.request('GET', `${path}?outcome=nope`, { key: t.privateKey });
    expect([bad.status, bad.body.error]).toEqual([
      400,
      'outcome must be one of processed, rejected, ignored, duplicate',
    ]);
    const pub = await env.request('GET', path, { key: t.publicKey });
    expect([pub.status, pub.body.error]).toEqual([403, 'This endpoint requires a private API key']);
    const other = await env.team('Audit other');
    const theirs = await env.request('GET', path, { key: other.privateKey });
    expect([theirs.status, theirs.body.error]).toEqual([404, 'Contest not found']);
    const malformed = await env.request('GET', '/api/v1/contests/nope/webhook-receipts', { key: t.privateKey });
    expect(malformed.status).toBe(404);
  });
});
