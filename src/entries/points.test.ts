/**
 * POST /api/v1/entries/:id/points and the points ledger: floor at 0, previousTotal + adjustment
 * = newTotal, exact error messages, and total = sum of ledger deltas after a random mix of
 * referral, bonus-action and manual changes.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { getLedger, ledgerMismatches } from '../../test/support/ledger.js';
import { createBonusAction } from '../admin/admin.js';
import { query, queryOne } from '../db/client.js';
import { MAX_POINTS_TOTAL } from '../sql/points.js';

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(async () => {
  await env.close();
});

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

async function newEntry(contestId: string, email: string, extra: Record<string, unknown> = {}) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: a.privateKey,
    body: { email, ...extra },
  });
  expect(r.status).toBe(201);
  return r.body.data.entryId as string;
}
const adjust = (id: string, body: unknown, key = a.privateKey) =>
  env.request('POST', `/api/v1/entries/${id}/points`, { key, body });
const pointsOf = async (id: string) =>
  (await queryOne<{ points: number }>(env.db, sql`select points from entries where id = ${id}`))!.points;

describe('adjust points', () => {
  it('adds and removes; previousTotal + adjustment = newTotal; each a manual ledger row with its reason', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'adj@example.com');
    const add = await adjust(id, { points: 25, reason: 'Won the quiz' });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({
      success: true,
      data: { message: 'Added 25 points', previousTotal: 0, newTotal: 25, adjustment: 25 },
    });
    const sub = await adjust(id, { points: -10, reason: '  Correction  ' });
    expect(sub.body.data).toEqual({ message: 'Removed 10 points', previousTotal: 25, newTotal: 15, adjustment: -10 });
    expect(await pointsOf(id)).toBe(15);
    const ledger = await getLedger(env.db, id);
    expect(ledger.map((l) => [l.delta, l.requestedDelta, l.source, l.reason, l.refId])).toEqual([
      [25, 25, 'manual', 'Won the quiz', null],
      [-10, -10, 'manual', 'Correction', null],
    ]);
  });

  it('never goes below zero: the adjustment is the change actually applied, the ledger keeps what was asked', async () => {
    const c = await env.contest(a.teamId);
    const id = await newEntry(c.id, 'floor@example.com');
    await adjust(id, { points: 7, reason: 'start' });
    const r = await adjust(id, { points: -50, reason: 'too much' });
    expect(r.body.data).toEqual({
      message: 'Removed 7 points (total cannot go below 0)',
      previousTotal: 7,
      newTotal: 0,
      adjustment: -7,
    });
    const again = await adjust(id, { points: -1, reason: 'at zero' });
    expect(again.body.data).toMatchObject({ previousTotal: 0, newTotal: 0, adjustment: 0 });
    const ledger = await getLedger(env.db, id);
    expect(ledger.map((l) => [l.delta, l.requestedDelta])).toEqual([
      [7, 7],
      [-7, -50],
      [0, -1],
    ]);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it(`is capped at ${MAX_POINTS_TOTAL} (the column's maximum) the same way`, async () => {
    const c = await env.contest(a.teamId);
    const id = await newEntry(c.id, 'cap@example.com');
    for (let i = 0; i < 2; i++) await adjust(id, { points: 1_000_000_000, reason: 'lots' });
    const r = await adjust(id, { points: 1_000_000_000, reason: 'more' });
    expect(r.body.data).toEqual({
      message: `Added ${MAX_POINTS_TOTAL - 2_000_000_000} points (total cannot exceed ${MAX_POINTS_TOTAL})`,
      previousTotal: 2_000_000_000,
      newTotal: MAX_POINTS_TOTAL,
      adjustment: MAX_POINTS_TOTAL - 2_000_000_000,
    });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('works on a disqualified entry and a contest that is no longer open', async () => {
    const c = await env.contest(a.teamId);
    const id = await newEntry(c.id, 'closed@example.com');
    await env.db.execute(sql`update entries set disqualified = true where id = ${id}`);
    await env.db.execute(sql`update contests set status = 'ended' where id = ${c.id}`);
    const r = await adjust(id, { points: 3, reason: 'late fix' });
    expect(r.status).toBe(200);
    expect(r.body.data.newTotal).toBe(3);
  });

  it('bad bodies: the reference’s Missing points or reason, or a 400 naming the field; nothing changes', async () => {
    const c = await env.contest(a.teamId);
    const id = await newEntry(c.id, 'bad@example.com');
    await adjust(id, { points: 5, reason: 'base' });
    const range = 'points must be a non-zero integer between -1000000000 and 1000000000';
    const cases: [unknown, string][] = [
      [{}, 'Missing points or reason'],
      [{ points: 5 }, 'Missing points or reason'],
      [{ reason: 'r' }, 'Missing points or reason'],
      [{ points: 5, reason: '' }, 'Missing points or reason'],
      [{ points: 5, reason: '   ' }, 'Missing points or reason'],
      [{ points: null, reason: 'r' }, 'Missing points or reason'],
      [{ points: 5, reason: null }, 'Missing points or reason'],
      [{ points: '5', reason: 'r' }, range],
      [{ points: 1.5, reason: 'r' }, range],
      [{ points: 0, reason: 'r' }, range],
      [{ points: 1_000_000_001, reason: 'r' }, range],
      [{ points: -1e12, reason: 'r' }, range],
      [{ points: 5, reason: 42 }, 'reason must be a string'],
      [{ points: 5, reason: 'r'.repeat(501) }, 'reason must be at most 500 characters'],
      [[5], 'Invalid request body'],
    ];
    for (const [body, error] of cases) {
      const r = await adjust(id, body);
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error }]);
    }
    const raw = await env.request('POST', `/api/v1/entries/${id}/points`, {
      key: a.privateKey,
      rawBody: '{"points": 1e400, "reason": "x"}',
    });
    expect([raw.status, raw.body.error]).toEqual([400, range]);
    expect(await pointsOf(id)).toBe(5);
    expect(await getLedger(env.db, id)).toHaveLength(1);
  });

  it('another team’s entry, a missing and a malformed id: 404 Entry not found; a public key: 403 Private key required', async () => {
    const c = await env.contest(a.teamId);
    const id = await newEntry(c.id, 'scope@example.com');
    for (const [eid, key] of [
      [id, b.privateKey],
      [MISSING_ID, a.privateKey],
      ['nope', a.privateKey],
    ] as [string, string][]) {
      const r = await adjust(eid, { points: 5, reason: 'x' }, key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    }
    const pub = await adjust(id, { points: 5, reason: 'x' }, a.publicKey);
    expect([pub.status, pub.body]).toEqual([403, { success: false, error: 'Private key required' }]);
    expect(await pointsOf(id)).toBe(0);
  });
});

describe('ledger invariant', () => {
  it('after a random mix of referrals, bonus completions and adjustments, every total equals the clamped model and its ledger sum', async () => {
    // deterministic pseudo-random sequence (mulberry32), so a failure can be replayed
    let seed = 20240601;
    const rnd = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const c = await env.contest(a.teamId, { referral: { advocatePoints: 7, friendPoints: 3 } });
    const actions = [];
    for (const points of [5, 12, 0])
      actions.push(await createBonusAction(env.db, c.id, { action: `act${points}`, points }));
    const model = new Map<string, number>();
    const ids: string[] = [];
    const codes = new Map<string, string>();
    const done = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const id = await newEntry(c.id, `seed${i}@example.com`);
      ids.push(id);
      model.set(id, 0);
    }
    const codeOf = async (id: string) => {
      if (!codes.has(id))
        codes.set(
          id,
          (await queryOne<{ referral_code: string }>(env.db, sql`select referral_code from entries where id = ${id}`))!
            .referral_code,
        );
      return codes.get(id)!;
    };
    for (let step = 0; step < 120; step++) {
      const op = rnd();
      if (op < 0.2) {
        const referrer = pick(ids);
        const id = await newEntry(c.id, `r${step}@example.com`, { referralCode: await codeOf(referrer) });
        ids.push(id);
        model.set(id, 3);
        model.set(referrer, model.get(referrer)! + 7);
      } else if (op < 0.45) {
        const id = pick(ids);
        const action = pick(actions);
        const r = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
          key: a.publicKey,
          body: {},
        });
        expect(r.status).toBe(200);
        const key = `${id}:${action.id}`;
        expect(r.body.data.alreadyCompleted).toBe(done.has(key));
        if (!done.has(key)) {
          done.add(key);
          model.set(id, model.get(id)! + action.points);
          expect(r.body.data.newTotalPoints).toBe(model.get(id));
        }
      } else {
        const id = pick(ids);
        const delta = Math.round((rnd() - 0.6) * 40) || 1;
        const r = await adjust(id, { points: delta, reason: `step ${step}` });
        const expected = Math.max(0, model.get(id)! + delta);
        expect(r.body.data).toMatchObject({
          previousTotal: model.get(id),
          newTotal: expected,
          adjustment: expected - model.get(id)!,
        });
        model.set(id, expected);
      }
    }
    const rows = await query<{ id: string; points: number; ledger: string | number }>(
      env.db,
      sql`select e.id, e.points, (select coalesce(sum(delta), 0) from points_ledger l where l.entry_id = e.id) as ledger
          from entries e where e.contest_id = ${c.id}`,
    );
    expect(rows).toHaveLength(ids.length);
    for (const r of rows) {
      expect([r.id, r.points, Number(r.ledger)]).toEqual([r.id, model.get(r.id), model.get(r.id)]);
    }
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    // some clamping really happened in this sequence
    const clamped = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from points_ledger where contest_id = ${c.id} and delta <> requested_delta`,
    );
    expect(clamped!.n).toBeGreaterThan(0);
  });
});

describe('POST /entries/{entryId}/points with an Idempotency-Key', () => {
  it('a retry with the same key adds nothing and answers the first answer; another key or entry is its own', async () => {
    const c = await env.contest(a.teamId);
    const e1 = await newEntry(c.id, 'idem1@example.com');
    const e2 = await newEntry(c.id, 'idem2@example.com');
    const adjust = (entryId: string, points: number, key?: string) =>
      env.request('POST', `/api/v1/entries/${entryId}/points`, {
        key: a.privateKey,
        body: { points, reason: 'retry test' },
        headers: key === undefined ? {} : { 'idempotency-key': key },
      });
    const first = await adjust(e1, 7, 'adj-1');
    expect([first.status, first.body.data]).toEqual([
      200,
      { message: 'Added 7 points', previousTotal: 0, newTotal: 7, adjustment: 7 },
    ]);
    // the retry (even with another body) answers the first answer and changes nothing
    for (const points of [7, 50]) {
      const again = await adjust(e1, points, 'adj-1');
      expect([again.status, again.body.data]).toEqual([200, first.body.data]);
    }
    expect((await adjust(e1, 3, 'adj-2')).body.data).toMatchObject({ previousTotal: 7, newTotal: 10 });
    expect((await adjust(e2, 5, 'adj-1')).body.data).toMatchObject({ previousTotal: 0, newTotal: 5 });
    expect((await adjust(e1, 1)).body.data).toMatchObject({ newTotal: 11 });
    const ledger = await getLedger(env.db, e1);
    expect(ledger.filter((l) => l.source === 'manual').map((l) => l.delta)).toEqual([7, 3, 1]);
    const bad = await adjust(e1, 1, 'x'.repeat(201));
    expect([bad.status, bad.body.error]).toEqual([400, 'Invalid Idempotency-Key']);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    // another team's key: not found, and nothing recorded
    const other = await env.request('POST', `/api/v1/entries/${e1}/points`, {
      key: b.privateKey,
      body: { points: 1, reason: 'x' },
      headers: { 'idempotency-key': 'adj-9' },
    });
    expect([other.status, other.body.error]).toEqual([404, 'Entry not found']);
    expect(await query(env.db, sql`select 1 from points_adjustments where idempotency_key = 'adj-9'`)).toEqual([]);
  });
});
