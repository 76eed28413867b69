/**
 * Webhook authentication (contract §5) and the purchase webhook: Standard Webhooks signatures
 * checked against the official `standardwebhooks` package both ways, `x-webhook-secret`,
 * replay protection by webhook-id, receipts, and every refusal.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listReceipts } from './receipts.js';
import { signStandardWebhook, verifyStandardWebhook } from '../lib/signatures.js';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

let env: TestEnv;
let t: TeamFixture;
let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());
afterEach(() => {
  env.clock.thaw();
  env.clock.set(new Date());
});

const UNAUTH = { success: false, error: 'Invalid webhook signature' };
const tracking = { purchaseTracking: { enabled: true, pointsPerPurchase: 10, pointsPerCurrencyUnit: 1 } };

async function secretFor(contestId: string): Promise<string> {
  const r = await env.request('POST', `/api/admin/contests/${contestId}/webhook-secret`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(r.status).toBe(200);
  return r.body.data.secret;
}

async function entry(contestId: string, email: string): Promise<string> {
  const rows = await query<{ id: string }>(
    env.db,
    sql`insert into entries (contest_id, email, referral_code, email_confirmed)
        values (${contestId}, ${email}, ${`wh${++seq}x${Math.random().toString(36).slice(2, 10)}`}, true) returning id`,
  );
  return rows[0]!.id;
}

/** A contest with purchase tracking, a webhook secret and one entry. */
async function setup(settings: Record<string, unknown> = tracking) {
  const c = await env.contest(t.teamId, settings);
  const secret = await secretFor(c.id);
  const entryId = await entry(c.id, 'buyer@example.com');
  return { id: c.id, secret, entryId };
}

/** Headers made by the official Standard Webhooks library. */
function signed(secret: string, id: string, body: string, at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

const hook = (contestId: string, rawBody: string, headers: Record<string, string>) =>
  env.request('POST', `/api/webhooks/purchase/${contestId}`, { rawBody, headers });

const body = (orderId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ email: 'buyer@example.com', orderId, amount: 25, ...extra });

async function state(contestId: string) {
  const [row] = await query<{ purchases: number; ledger: number; points: number }>(
    env.db,
    sql`select (select count(*)::int from purchases where contest_id = ${contestId}) as purchases,
               (select count(*)::int from points_ledger where contest_id = ${contestId}) as ledger,
               (select coalesce(sum(points), 0)::int from entries where contest_id = ${contestId}) as points`,
  );
  const receipts = await listReceipts(env.db, contestId);
  return { ...row!, outcomes: receipts.map((r) => `${r.outcome}:${r.statusCode}`) };
}

const newId = () => `msg_${++seq}_${Math.random().toString(36).slice(2)}`;

describe('Standard Webhooks: compatible with the official standardwebhooks package both ways', () => {
  it('a delivery signed by the package is accepted and recorded', async () => {
    const c = await setup();
    const id = newId();
    const raw = body('SW-1');
    const r = await hook(c.id, raw, signed(c.secret, id, raw));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      data: {
        purchaseId: expect.any(String),
        entryId: c.entryId,
        pointsAwarded: 35,
        alreadyExists: false,
        message: 'Purchase recorded; 35 points awarded',
      },
    });
    const [p] = await query<Record<string, unknown>>(
      env.db,
      sql`select source, order_id from purchases where contest_id = ${c.id}`,
    );
    expect(p).toEqual({ source: 'webhook', order_id: 'SW-1' });
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      source: 'purchase',
      externalId: id,
      dedupeKey: 'SW-1',
      outcome: 'processed',
      statusCode: 201,
      response: r.body,
      error: null,
    });
    expect(Math.abs(receipts[0]!.createdAt.getTime() - env.clock.now().getTime())).toBeLessThan(5000);
  });

  it('what we sign, the package verifies (and the signatures are identical)', async () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const at = new Date();
    const ts = Math.floor(at.getTime() / 1000);
    const payload = JSON.stringify({ email: 'é@example.com', orderId: 'ü-1', amount: 1.5 });
    const ours = await signStandardWebhook(secret, 'msg_abc', ts, payload);
    const wh = new Webhook(secret);
    expect(ours).toBe(wh.sign('msg_abc', at, payload));
    expect(
      wh.verify(payload, { 'webhook-id': 'msg_abc', 'webhook-timestamp': String(ts), 'webhook-signature': ours }),
    ).toEqual(JSON.parse(payload));
    // and our verifier accepts the package's signature over the same bytes
    const bytes = new TextEncoder().encode(payload);
    expect(
      await verifyStandardWebhook(
        secret,
        { id: 'msg_abc', timestamp: String(ts), signature: wh.sign('msg_abc', at, payload) },
        bytes,
        at,
      ),
    ).toBe(true);
    expect(
      await verifyStandardWebhook(secret, { id: 'msg_abd', timestamp: String(ts), signature: ours }, bytes, at),
    ).toBe(false);
  });

  it('several space-separated signatures: one valid v1 is enough; other versions are ignored', async () => {
    const c = await setup();
    const id = newId();
    const raw = body('SW-multi');
    const h = signed(c.secret, id, raw);
    const good = h['webhook-signature'];
    const forged = `v1,${Buffer.from('x'.repeat(32)).toString('base64')}`;
    const r = await hook(c.id, raw, { ...h, 'webhook-signature': `${forged} ${good}` });
    expect(r.status).toBe(201);
    const v2 = await hook(c.id, body('SW-v2'), {
      ...signed(c.secret, newId(), body('SW-v2')),
      'webhook-signature': `v2,${good.slice(3)}`,
    });
    expect([v2.status, v2.body]).toEqual([401, UNAUTH]);
  });

  it('timestamps are checked against the injected clock, 5 minutes either way', async () => {
    const c = await setup();
    // a stopped clock: with a running one, the second that passes between signing and checking
    // turned ±301 s into 300 s now and then (the cause of this test's old intermittent failure)
    env.clock.freeze();
    const now = env.clock.now().getTime();
    for (const [offset, expected] of [
      [-299, 201],
      [299, 201],
      [-301, 401],
      [301, 401],
    ] as const) {
      const raw = body(`T${offset}`);
      const r = await hook(c.id, raw, signed(c.secret, newId(), raw, new Date(now + offset * 1000)));
      expect([offset, r.status]).toEqual([offset, expected]);
    }
    // signed now, arriving after the clock moved 6 minutes
    const raw = body('T-late');
    const h = signed(c.secret, newId(), raw, new Date(now));
    env.clock.advance(6 * 60 * 1000);
    expect((await hook(c.id, raw, h)).status).toBe(401);
  });
});

describe('x-webhook-secret (tools that cannot sign)', () => {
  it('the exact secret is accepted; anything else is 401', async () => {
    const c = await setup();
    const ok = await hook(c.id, body('XS-1'), { 'x-webhook-secret': c.secret });
    expect(ok.status).toBe(201);
    for (const wrong of [c.secret.slice(6), c.secret.toLowerCase(), `${c.secret}x`, c.secret.slice(0, -1), 'whsec_']) {
      const r = await hook(c.id, body('XS-2'), { 'x-webhook-secret': wrong });
      expect([wrong, r.status, r.body]).toEqual([wrong, 401, UNAUTH]);
    }
    const s = await state(c.id);
    expect(s.purchases).toBe(1);
    expect(s.outcomes.filter((o) => o === 'rejected:401')).toHaveLength(5);
  });

  it('a valid x-webhook-secret is enough even next to a bad signature', async () => {
    const c = await setup();
    const raw = body('XS-3');
    const r = await hook(c.id, raw, { ...signed(c.secret, newId(), body('other')), 'x-webhook-secret': c.secret });
    expect(r.status).toBe(201);
  });
});

describe('refused deliveries: 401 Invalid webhook signature, nothing processed', () => {
  it('forged, truncated, re-ordered, changed body, changed id, missing headers', async () => {
    const c = await setup();
    const raw = body('BAD');
    const id = newId();
    const h = signed(c.secret, id, raw);
    const sig = h['webhook-signature'];
    const ts = h['webhook-timestamp'];
    const key = Buffer.from(c.secret.slice(6), 'base64');
    const reordered = createHmac('sha256', key).update(`${ts}.${id}.${raw}`).digest('base64');
    const cases: [string, string, Record<string, string>][] = [
      [
        'forged',
        raw,
        {
          ...h,
          'webhook-signature': `v1,${createHmac('sha256', 'guess').update(`${id}.${ts}.${raw}`).digest('base64')}`,
        },
      ],
      ['truncated', raw, { ...h, 'webhook-signature': sig.slice(0, -4) }],
      ['empty v1', raw, { ...h, 'webhook-signature': 'v1,' }],
      ['parts re-ordered', raw, { ...h, 'webhook-signature': `${sig.slice(3)},v1` }],
      ['id and timestamp re-ordered in the signed content', raw, { ...h, 'webhook-signature': `v1,${reordered}` }],
      ['id and timestamp headers swapped', raw, { ...h, 'webhook-id': ts, 'webhook-timestamp': id }],
      ['body changed after signing', body('BAD', { amount: 2500 }), h],
      ['body with a trailing space', `${raw} `, h],
      ['id changed after signing', raw, { ...h, 'webhook-id': `${id}x` }],
      ['timestamp changed after signing', raw, { ...h, 'webhook-timestamp': String(Number(ts) - 1) }],
      ['non-numeric timestamp', raw, { ...h, 'webhook-timestamp': `${ts}.0` }],
      ['no signature header', raw, { 'webhook-id': id, 'webhook-timestamp': ts }],
      ['no id header', raw, { 'webhook-timestamp': ts, 'webhook-signature': sig }],
      ['no headers at all', raw, {}],
    ];
    for (const [name, b, headers] of cases) {
      const r = await hook(c.id, b, headers);
      expect([name, r.status, r.body]).toEqual([name, 401, UNAUTH]);
    }
    const s = await state(c.id);
    expect({ purchases: s.purchases, ledger: s.ledger, points: s.points }).toEqual({
      purchases: 0,
      ledger: 0,
      points: 0,
    });
    expect(s.outcomes).toEqual(cases.map(() => 'rejected:401'));
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts.every((x) => x.error === 'Invalid webhook signature' && x.response === null)).toBe(true);
    // the untouched delivery still goes through afterwards
    expect((await hook(c.id, raw, h)).status).toBe(201);
  });

  it('a contest with no webhook secret refuses everything', async () => {
    const c = await env.contest(t.teamId, tracking);
    await entry(c.id, 'buyer@example.com');
    const guess = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;
    const raw = body('NS');
    const attempts: Record<string, string>[] = [
      signed(guess, newId(), raw),
      { 'x-webhook-secret': '' },
      { 'x-webhook-secret': 'null' },
      {},
    ];
    for (const headers of attempts) {
      const r = await hook(c.id, raw, headers);
      expect([r.status, r.body]).toEqual([401, UNAUTH]);
    }
    expect((await state(c.id)).purchases).toBe(0);
  });

  it('a wrong contest id: signed for contest A, sent to contest B', async () => {
    const a = await setup();
    const b = await setup();
    const raw = body('WRONG');
    const r = await hook(b.id, raw, signed(a.secret, newId(), raw));
    expect([r.status, r.body]).toEqual([401, UNAUTH]);
    const x = await hook(b.id, raw, { 'x-webhook-secret': a.secret });
    expect([x.status, x.body]).toEqual([401, UNAUTH]);
    expect(await state(a.id)).toMatchObject({ purchases: 0, outcomes: [] });
    expect(await state(b.id)).toMatchObject({ purchases: 0, outcomes: ['rejected:401', 'rejected:401'] });
  });

  it('an unknown or malformed contest id answers the same 401 and records nothing', async () => {
    const a = await setup();
    const [before] = await query<{ n: number }>(env.db, sql`select count(*)::int as n from webhook_receipts`);
    const raw = body('UNKNOWN');
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', `${a.id}0`]) {
      for (const path of ['purchase', 'signup', 'referral/shopify', 'referral/stripe']) {
        const r = await env.request('POST', `/api/webhooks/${path}/${id}`, {
          rawBody: raw,
          headers: { 'x-webhook-secret': a.secret },
        });
        expect([path, id, r.status, r.body]).toEqual([path, id, 401, UNAUTH]);
      }
    }
    const [after] = await query<{ n: number }>(env.db, sql`select count(*)::int as n from webhook_receipts`);
    expect(after!.n).toBe(before!.n);
  });

  it('forged requests are all refused; at most 30 a minute per contest are recorded (no table flooding)', async () => {
    const c = await setup();
    const results = [];
    for (let i = 0; i < 35; i++)
      results.push((await hook(c.id, body('FLOOD'), { 'x-webhook-secret': `whsec_guess${i}` })).status);
    expect(results).toEqual(Array(35).fill(401));
    expect((await state(c.id)).outcomes).toEqual(Array(30).fill('rejected:401'));
    // a genuine delivery is not affected by the flood
    expect((await hook(c.id, body('FLOOD'), { 'x-webhook-secret': c.secret })).status).toBe(201);
  });

  it('a webhook-id over 256 characters is refused with 400', async () => {
    const c = await setup();
    const r = await hook(c.id, body('LONG'), { 'x-webhook-secret': c.secret, 'webhook-id': 'i'.repeat(257) });
    expect([r.status, r.body]).toEqual([400, { success: false, error: 'webhook-id must be at most 256 characters' }]);
    const raw = body('LONG');
    const signedLong = await hook(c.id, raw, signed(c.secret, 'i'.repeat(257), raw));
    expect(signedLong.status).toBe(401);
    expect((await state(c.id)).purchases).toBe(0);
  });

  it('the old secret stops working when a new one is made', async () => {
    const c = await setup();
    const fresh = await secretFor(c.id);
    const raw = body('ROT');
    expect((await hook(c.id, raw, signed(c.secret, newId(), raw))).status).toBe(401);
    expect((await hook(c.id, raw, { 'x-webhook-secret': c.secret })).status).toBe(401);
    expect((await hook(c.id, raw, signed(fresh, newId(), raw))).status).toBe(201);
  });
});

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
