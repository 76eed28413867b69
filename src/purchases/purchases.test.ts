/** POST /api/v1/contests/:contestId/purchases (docs/api.md). */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { ledgerMismatches } from '../../test/support/ledger.js';
import { MAX_POINTS_TOTAL } from '../sql/points.js';

let env: TestEnv;
let t: TeamFixture;
let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const tracking = (pointsPerPurchase = 10, pointsPerCurrencyUnit = 2) => ({
  purchaseTracking: { enabled: true, pointsPerPurchase, pointsPerCurrencyUnit },
});

/** An entry inserted directly (no dependency on the entries feature). */
async function entry(contestId: string, email: string, points = 0): Promise<string> {
  const rows = await query<{ id: string }>(
    env.db,
    sql`insert into entries (contest_id, email, referral_code, points, email_confirmed)
        values (${contestId}, ${email}, ${`pc${++seq}x${Math.random().toString(36).slice(2, 10)}`}, ${points}, true) returning id`,
  );
  return rows[0]!.id;
}

const buy = (contestId: string, body: unknown, key = t.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/purchases`, { key, body });

async function counts(contestId: string) {
  const [row] = await query<{ purchases: number; ledger: number }>(
    env.db,
    sql`select (select count(*)::int from purchases where contest_id = ${contestId}) as purchases,
               (select count(*)::int from points_ledger where contest_id = ${contestId}) as ledger`,
  );
  return row!;
}

const points = async (entryId: string) =>
  (await query<{ points: number }>(env.db, sql`select points from entries where id = ${entryId}`))[0]!.points;

describe('auth (the documented wording)', () => {
  it('missing or invalid key: 401 Missing or invalid API key; public key: 403 Private key required', async () => {
    const c = await env.contest(t.teamId, tracking());
    const body = { email: 'a@x.io', orderId: 'o', amount: 1 };
    const none = await env.request('POST', `/api/v1/contests/${c.id}/purchases`, { body });
    expect([none.status, none.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);
    const bad = await buy(c.id, body, `sk_${'x'.repeat(40)}`);
    expect([bad.status, bad.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);
    const pub = await buy(c.id, body, t.publicKey);
    expect([pub.status, pub.body]).toEqual([403, { success: false, error: 'Private key required' }]);
    expect(await counts(c.id)).toEqual({ purchases: 0, ledger: 0 });
  });
});

describe('recording a purchase', () => {
  it('201 with the purchase record; points, ledger row and purchase row written together', async () => {
    const c = await env.contest(t.teamId, tracking(10, 2.5));
    const e = await entry(c.id, 'alice@example.com');
    const r = await buy(c.id, { email: 'alice@example.com', orderId: 'ORD-1', amount: 19.99 });
    expect(r.status).toBe(201);
    // 10 + floor(19.99 * 2.5 = 49.975) = 59
    expect(r.body).toEqual({
      success: true,
      data: {
        purchaseId: expect.any(String),
        entryId: e,
        pointsAwarded: 59,
        alreadyExists: false,
        message: 'Purchase recorded; 59 points awarded',
      },
    });
    expect(await points(e)).toBe(59);
    const [p] = await query<Record<string, unknown>>(
      env.db,
      sql`select * from purchases where id = ${r.body.data.purchaseId}`,
    );
    expect(p).toMatchObject({
      entry_id: e,
      order_id: 'ORD-1',
      currency: 'USD',
      points_awarded: 59,
      source: 'api',
      referrer_entry_id: null,
    });
    expect(Number(p!.amount)).toBe(19.99);
    const ledger = await query<Record<string, unknown>>(env.db, sql`select * from points_ledger where entry_id = ${e}`);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({
      delta: 59,
      requested_delta: 59,
      source: 'purchase',
      ref_id: r.body.data.purchaseId,
    });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('points use exact decimal arithmetic: 1.15 x 100 per unit is 115, not 114', async () => {
    const c = await env.contest(t.teamId, tracking(0, 100));
    await entry(c.id, 'exact@example.com');
    const r = await buy(c.id, { email: 'exact@example.com', orderId: 'x', amount: 1.15 });
    expect(r.body.data.pointsAwarded).toBe(115);
  });

  it('the email is matched trimmed and case-insensitively', async () => {
    const c = await env.contest(t.teamId, tracking(1, 0));
    const e = await entry(c.id, 'bob@example.com');
    const r = await buy(c.id, { email: '  Bob@Example.COM ', orderId: 'b1', amount: 5 });
    expect([r.status, r.body.data.entryId]).toEqual([201, e]);
  });

  it('a duplicate orderId answers 200 with the existing purchase, pointsAwarded 0, alreadyExists true, no second award', async () => {
    const c = await env.contest(t.teamId, tracking(10, 1));
    const e = await entry(c.id, 'dup@example.com');
    const other = await entry(c.id, 'other@example.com');
    const first = await buy(c.id, { email: 'dup@example.com', orderId: 'D-1', amount: 10 });
    expect(first.status).toBe(201);
    for (const body of [
      { email: 'dup@example.com', orderId: 'D-1', amount: 10 },
      { email: 'dup@example.com', orderId: '  D-1 ', amount: 99 }, // orderId is trimmed
      { email: 'other@example.com', orderId: 'D-1', amount: 10 }, // another buyer: still the same order
    ]) {
      const again = await buy(c.id, body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        success: true,
        data: {
          purchaseId: first.body.data.purchaseId,
          entryId: e,
          pointsAwarded: 0,
          alreadyExists: true,
          message: 'Purchase already recorded for this orderId; no points awarded',
        },
      });
    }
    expect(await points(e)).toBe(20);
    expect(await points(other)).toBe(0);
    expect(await counts(c.id)).toEqual({ purchases: 1, ledger: 1 });
  });

  it('the same orderId in another contest is another purchase', async () => {
    const a = await env.contest(t.teamId, tracking(1, 0));
    const b = await env.contest(t.teamId, tracking(1, 0));
    await entry(a.id, 'same@example.com');
    await entry(b.id, 'same@example.com');
    expect((await buy(a.id, { email: 'same@example.com', orderId: 'shared', amount: 1 })).status).toBe(201);
    expect((await buy(b.id, { email: 'same@example.com', orderId: 'shared', amount: 1 })).status).toBe(201);
  });

  it('currency: default USD, 3 letters upper-cased, anything else 400 Invalid currency', async () => {
    const c = await env.contest(t.teamId, tracking(1, 0));
    await entry(c.id, 'cur@example.com');
    const eur = await buy(c.id, { email: 'cur@example.com', orderId: 'c1', amount: 3, currency: ' eur ' });
    const nul = await buy(c.id, { email: 'cur@example.com', orderId: 'c2', amount: 3, currency: null });
    expect([eur.status, nul.status]).toEqual([201, 201]);
    const rows = await query<{ order_id: string; currency: string }>(
      env.db,
      sql`select order_id, currency from purchases where contest_id = ${c.id} order by order_id`,
    );
    expect(rows).toEqual([
      { order_id: 'c1', currency: 'EUR' },
      { order_id: 'c2', currency: 'USD' },
    ]);
    for (const currency of ['EURO', 'E1R', 'us', '', 5, true, {}]) {
      const r = await buy(c.id, { email: 'cur@example.com', orderId: `bad-${String(currency)}`, amount: 3, currency });
      expect([currency, r.status, r.body]).toEqual([currency, 400, { success: false, error: 'Invalid currency' }]);
    }
    expect((await counts(c.id)).purchases).toBe(2);
  });

  it('a total past the int4 maximum is capped; the ledger keeps what was asked', async () => {
    const c = await env.contest(t.teamId, tracking(100, 0));
    const e = await entry(c.id, 'max@example.com', MAX_POINTS_TOTAL - 5);
    const r = await buy(c.id, { email: 'max@example.com', orderId: 'm', amount: 1 });
    expect([r.status, r.body.data.pointsAwarded]).toEqual([201, 5]);
    expect(await points(e)).toBe(MAX_POINTS_TOTAL);
    const [l] = await query<Record<string, unknown>>(
      env.db,
      sql`select delta, requested_delta from points_ledger where entry_id = ${e}`,
    );
    expect(l).toEqual({ delta: 5, requested_delta: 100 });
    // a huge amount times a large rate does not overflow either
    const c2 = await env.contest(t.teamId, tracking(0, 1_000_000));
    const e2 = await entry(c2.id, 'huge@example.com');
    const r2 = await buy(c2.id, { email: 'huge@example.com', orderId: 'h', amount: 999_999_999_999 });
    expect([r2.status, r2.body.data.pointsAwarded]).toEqual([201, MAX_POINTS_TOTAL]);
    expect(await points(e2)).toBe(MAX_POINTS_TOTAL);
  });

  it('tracking on with 0 points: the purchase is recorded, no ledger row', async () => {
    const c = await env.contest(t.teamId, tracking(0, 0));
    await entry(c.id, 'zero@example.com');
    const r = await buy(c.id, { email: 'zero@example.com', orderId: 'z', amount: 12 });
    expect([r.status, r.body.data.pointsAwarded, r.body.data.message]).toEqual([
      201,
      0,
      'Purchase recorded; 0 points awarded',
    ]);
    expect(await counts(c.id)).toEqual({ purchases: 1, ledger: 0 });
  });

  it('purchases also count for a disqualified entry', async () => {
    const c = await env.contest(t.teamId, tracking(3, 0));
    const e = await entry(c.id, 'dq@example.com');
    await env.db.execute(sql`update entries set disqualified = true where id = ${e}`);
    const r = await buy(c.id, { email: 'dq@example.com', orderId: 'dq', amount: 1 });
    expect([r.status, r.body.data.pointsAwarded]).toEqual([201, 3]);
  });
});

describe('bad input: 400 and nothing written (docs/api.md)', () => {
  const INVALID = { success: false, error: 'Invalid request body' };
  it('email, orderId or amount missing or invalid: 400 Invalid request body', async () => {
    const c = await env.contest(t.teamId, tracking());
    await entry(c.id, 'v@example.com');
    const good = { email: 'v@example.com', orderId: 'o-1', amount: 10 };
    const cases: unknown[] = [
      {},
      { orderId: 'o', amount: 1 },
      { email: 'v@example.com', amount: 1 },
      { email: 'v@example.com', orderId: 'o' },
      { ...good, email: 'not-an-email' },
      { ...good, email: 42 },
      { ...good, email: '' },
      { ...good, orderId: '' },
      { ...good, orderId: '   ' },
      { ...good, orderId: 12345 },
      { ...good, orderId: 'x'.repeat(256) },
      { ...good, amount: '10' },
      { ...good, amount: null },
      { ...good, amount: 1.23456 }, // more than 4 decimals is refused, never rounded
      { ...good, amount: 1e-7 },
      [good],
      'text',
      null,
    ];
    for (const body of cases) {
      const r = await buy(c.id, body);
      expect([body, r.status, r.body]).toEqual([body, 400, INVALID]);
    }
    const raw = await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
      key: t.privateKey,
      rawBody: '{"email":',
    });
    expect([raw.status, raw.body]).toEqual([400, INVALID]);
    expect(await counts(c.id)).toEqual({ purchases: 0, ledger: 0 });
  });

  it('amount not greater than 0: 400 Amount must be positive; too large: 400 Amount is too large', async () => {
    const c = await env.contest(t.teamId, tracking());
    await entry(c.id, 'amt@example.com');
    for (const amount of [0, -1, -0.01]) {
      const r = await buy(c.id, { email: 'amt@example.com', orderId: 'a', amount });
      expect([amount, r.status, r.body]).toEqual([amount, 400, { success: false, error: 'Amount must be positive' }]);
    }
    const big = await buy(c.id, { email: 'amt@example.com', orderId: 'a', amount: 1e13 });
    expect([big.status, big.body]).toEqual([400, { success: false, error: 'Amount is too large' }]);
    const ok4 = await buy(c.id, { email: 'amt@example.com', orderId: 'a4', amount: 0.0001 });
    expect(ok4.status).toBe(201);
    expect((await counts(c.id)).purchases).toBe(1);
  });

  it('the first invalid field answers: a missing email wins over a negative amount', async () => {
    const c = await env.contest(t.teamId, tracking());
    const r = await buy(c.id, { orderId: 'o', amount: -3 });
    expect(r.body).toEqual(INVALID);
  });
});

describe('contest, tracking, state and entry (order of the checks)', () => {
  it("404 Contest not found: unknown, malformed, another team's", async () => {
    const other = await env.team('Other');
    const theirs = await env.contest(other.teamId, tracking());
    const body = { email: 'a@example.com', orderId: 'o', amount: 1 };
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', theirs.id]) {
      const r = await buy(id, body);
      expect([id, r.status, r.body]).toEqual([id, 404, { success: false, error: 'Contest not found' }]);
    }
    expect(await counts(theirs.id)).toEqual({ purchases: 0, ledger: 0 });
  });

  it('an invalid body is answered before an unknown contest', async () => {
    const r = await buy('00000000-0000-4000-8000-000000000000', { email: 'x' });
    expect(r.body).toEqual({ success: false, error: 'Invalid request body' });
  });

  it('tracking off: 400 Purchase tracking is not enabled for this contest (checked before the entry)', async () => {
    const c = await env.contest(t.teamId, {});
    await entry(c.id, 'off@example.com');
    for (const email of ['off@example.com', 'nobody@example.com']) {
      const r = await buy(c.id, { email, orderId: 'o', amount: 1 });
      expect([r.status, r.body]).toEqual([
        400,
        { success: false, error: 'Purchase tracking is not enabled for this contest' },
      ]);
    }
    expect(await counts(c.id)).toEqual({ purchases: 0, ledger: 0 });
  });

  it('contest not open: 409 Contest is not active (draft, paused, ended, not started yet)', async () => {
    const now = env.clock.now().getTime();
    const variants = [
      { status: 'draft' as const },
      { status: 'paused' as const },
      { status: 'ended' as const },
      {
        isEvergreen: false,
        startDate: new Date(now - 7200e3).toISOString(),
        endDate: new Date(now - 3600e3).toISOString(),
      },
      { startDate: new Date(now + 3600e3).toISOString() },
    ];
    for (const v of variants) {
      const c = await env.contest(t.teamId, { ...tracking(), ...v });
      await entry(c.id, 'closed@example.com');
      const r = await buy(c.id, { email: 'closed@example.com', orderId: 'o', amount: 1 });
      expect([v, r.status, r.body]).toEqual([v, 409, { success: false, error: 'Contest is not active' }]);
      expect(await counts(c.id)).toEqual({ purchases: 0, ledger: 0 });
    }
  });

  it('a retried order is answered alreadyExists even after the contest closed', async () => {
    const c = await env.contest(t.teamId, tracking(5, 0));
    await entry(c.id, 'retry@example.com');
    const first = await buy(c.id, { email: 'retry@example.com', orderId: 'r', amount: 1 });
    await env.db.execute(sql`update contests set status = 'paused' where id = ${c.id}`);
    const again = await buy(c.id, { email: 'retry@example.com', orderId: 'r', amount: 1 });
    expect([again.status, again.body.data.purchaseId, again.body.data.alreadyExists]).toEqual([
      200,
      first.body.data.purchaseId,
      true,
    ]);
    const fresh = await buy(c.id, { email: 'retry@example.com', orderId: 'new', amount: 1 });
    expect(fresh.status).toBe(409);
  });

  it('email matching no entry of this contest: 404 Entry not found', async () => {
    const c = await env.contest(t.teamId, tracking());
    const other = await env.contest(t.teamId, tracking());
    await entry(other.id, 'elsewhere@example.com');
    for (const email of ['nobody@example.com', 'elsewhere@example.com']) {
      const r = await buy(c.id, { email, orderId: 'o', amount: 1 });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    }
    expect(await counts(c.id)).toEqual({ purchases: 0, ledger: 0 });
  });
});
