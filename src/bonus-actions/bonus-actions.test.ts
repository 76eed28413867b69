/**
 * GET /api/v1/entries/:entryId/bonus-actions (and the `lookup` form) and
 * POST /api/v1/entries/:entryId/bonus-actions/:bonusActionId/complete.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { getLedger, ledgerMismatches } from '../../test/support/ledger.js';
import { createBonusAction } from '../admin/admin.js';
import { query, queryOne } from '../db/client.js';

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(() => env.close());

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

async function newEntry(contestId: string, email: string) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: a.privateKey, body: { email } });
  expect(r.status).toBe(201);
  return r.body.data.entryId as string;
}
const complete = (entryId: string, actionId: string, body: unknown = {}, key = a.publicKey) =>
  env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${actionId}/complete`, { key, body });
const list = (entryId: string, qs = '', key = a.publicKey) =>
  env.request('GET', `/api/v1/entries/${entryId}/bonus-actions${qs}`, { key });

async function state(entryId: string) {
  return queryOne<{ points: number; completions: number; ledger: number }>(
    env.db,
    sql`select e.points, (select count(*)::int from bonus_completions where entry_id = e.id) as completions,
          (select count(*)::int from points_ledger where entry_id = e.id) as ledger
        from entries e where e.id = ${entryId}`,
  );
}

describe('list bonus actions for an entry', () => {
  let c: { id: string };
  let entryId: string;
  let acts: Awaited<ReturnType<typeof createBonusAction>>[];
  beforeAll(async () => {
    c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    entryId = await newEntry(c.id, 'lister@example.com');
    acts = [
      await createBonusAction(env.db, c.id, {
        action: 'visit',
        description: 'Visit our site',
        icon: 'globe',
        iconColor: '#123456',
        points: 5,
        confirmationType: 'click',
        destinationUrl: 'https://example.com',
        order: 2,
      }),
      await createBonusAction(env.db, c.id, {
        action: 'follow',
        description: 'Follow us',
        icon: 'x',
        iconColor: 'blue',
        points: 10,
        order: 1,
      }),
      await createBonusAction(env.db, c.id, { action: 'quiz', points: 3, confirmationType: 'manual', order: 3 }),
    ];
  });

  it('lists every action in display order with completion state and the totals', async () => {
    await complete(entryId, acts[0]!.id, { proof: 'https://img.example.com/1.png' });
    const r = await list(entryId);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      entryId,
      email: 'lister@example.com',
      totalPoints: 5,
      bonusActionsCompleted: 1,
      bonusActionsTotal: 3,
      bonusPointsEarned: 5,
      actions: [
        {
          id: acts[1]!.id,
          action: 'follow',
          description: 'Follow us',
          icon: 'x',
          iconColor: 'blue',
          points: 10,
          confirmationType: 'auto',
          destinationUrl: null,
          order: 1,
          completed: false,
          completedAt: null,
          completionStatus: null,
        },
        {
          id: acts[0]!.id,
          action: 'visit',
          description: 'Visit our site',
          icon: 'globe',
          iconColor: '#123456',
          points: 5,
          confirmationType: 'click',
          destinationUrl: 'https://example.com',
          order: 2,
          completed: true,
          completedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          completionStatus: 'verified',
        },
        {
          id: acts[2]!.id,
          action: 'quiz',
          description: '',
          icon: '',
          iconColor: '',
          points: 3,
          confirmationType: 'manual',
          destinationUrl: null,
          order: 3,
          completed: false,
          completedAt: null,
          completionStatus: null,
        },
      ],
    });
  });

  it('lookup: the entry by email (any case) and contestId', async () => {
    const r = await list('lookup', `?email=${encodeURIComponent(' LISTER@example.com ')}&contestId=${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data.entryId).toBe(entryId);
    expect(r.body.data.bonusActionsTotal).toBe(3);
  });

  it('lookup without email or contestId, or with an invalid email: 400 naming it', async () => {
    const cases: [string, string][] = [
      ['', 'email is required'],
      [`?contestId=${c.id}`, 'email is required'],
      [`?email=&contestId=${c.id}`, 'email is required'],
      ['?email=lister@example.com', 'contestId is required'],
      ['?email=lister@example.com&contestId=%20', 'contestId is required'],
      [`?email=nope&contestId=${c.id}`, 'Invalid email'],
    ];
    for (const [qs, error] of cases) {
      const r = await list('lookup', qs);
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error }]);
    }
  });

  it('lookup of an unknown email: 404 Entry not found; of another team’s or a missing contest: 404 Contest not found', async () => {
    const u = await list('lookup', `?email=ghost@example.com&contestId=${c.id}`);
    expect([u.status, u.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    for (const [cid, key] of [
      [c.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['bad', a.publicKey],
    ]) {
      const r = await list('lookup', `?email=lister@example.com&contestId=${cid}`, key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
  });

  it('an entry of a contest without actions lists none', async () => {
    const empty = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(empty.id, 'none@example.com');
    const r = await list(id);
    expect(r.body.data).toEqual({
      entryId: id,
      email: 'none@example.com',
      totalPoints: 0,
      bonusActionsCompleted: 0,
      bonusActionsTotal: 0,
      bonusPointsEarned: 0,
      actions: [],
    });
  });

  it('another team’s entry, a missing one, a malformed id: 404 Entry not found; no key: 401 Invalid API key', async () => {
    for (const [id, key] of [
      [entryId, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['zzz', a.publicKey],
    ] as [string, string][]) {
      const r = await list(id, '', key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    }
    const r = await env.request('GET', `/api/v1/entries/${entryId}/bonus-actions`);
    expect([r.status, r.body]).toEqual([401, { success: false, error: 'Invalid API key' }]);
  });
});

describe('complete a bonus action', () => {
  it('first time: points added once, completion with proof and answer stored, ledger row; again: alreadyCompleted, nothing added', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'doer@example.com');
    const act = await createBonusAction(env.db, c.id, { action: 'share', points: 15 });
    env.clock.advance(3_600_000);
    const before = env.clock.now().getTime();
    const r = await complete(id, act.id, {
      proof: ' https://img.example.com/p.png ',
      answer: 'Blue',
      extra: 'ignored',
    });
    const after = env.clock.now().getTime();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        alreadyCompleted: false,
        completedAt: expect.any(String),
        pointsAdded: 15,
        newTotalPoints: 15,
        message: 'Bonus action completed: 15 points added',
      },
    });
    // the time comes from the injected clock (an hour ahead of the machine's)
    const at = Date.parse(r.body.data.completedAt);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    const stored = await queryOne<{
      proof: string;
      answer: string;
      status: string;
      points_awarded: number;
      completed_at: Date;
    }>(
      env.db,
      sql`select proof, answer, status, points_awarded, completed_at from bonus_completions where entry_id = ${id}`,
    );
    expect(stored).toMatchObject({
      proof: 'https://img.example.com/p.png',
      answer: 'Blue',
      status: 'verified',
      points_awarded: 15,
    });
    expect(new Date(stored!.completed_at).toISOString()).toBe(r.body.data.completedAt);
    const ledger = await getLedger(env.db, id);
    expect(ledger.map((l) => [l.delta, l.source, l.reason])).toEqual([[15, 'bonus_action', 'Bonus action: share']]);

    env.clock.advance(5000);
    const again = await complete(id, act.id, { proof: 'other' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      success: true,
      data: { alreadyCompleted: true, completedAt: r.body.data.completedAt, message: 'Bonus action already completed' },
    });
    expect(await state(id)).toEqual({ points: 15, completions: 1, ledger: 1 });
    expect(
      (await queryOne<{ proof: string }>(env.db, sql`select proof from bonus_completions where entry_id = ${id}`))!
        .proof,
    ).toBe('https://img.example.com/p.png');
  });

  it('an empty body, no body at all and a zero-point action are accepted', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'empty@example.com');
    const zero = await createBonusAction(env.db, c.id, { action: 'zero', points: 0 });
    const one = await createBonusAction(env.db, c.id, { action: 'one', points: 1 });
    const r0 = await complete(id, zero.id, {});
    expect(r0.body.data).toMatchObject({
      alreadyCompleted: false,
      pointsAdded: 0,
      newTotalPoints: 0,
      message: 'Bonus action completed',
    });
    const r1 = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${one.id}/complete`, {
      key: a.publicKey,
    });
    expect(r1.body.data).toMatchObject({ alreadyCompleted: false, pointsAdded: 1, newTotalPoints: 1 });
    expect(await state(id)).toEqual({ points: 1, completions: 2, ledger: 1 });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('a disqualified entry: 403 Entry is disqualified, nothing stored', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'dq@example.com');
    const act = await createBonusAction(env.db, c.id, { action: 'a', points: 5 });
    await env.request('POST', `/api/v1/entries/${id}/disqualify`, { key: a.privateKey, body: { disqualify: true } });
    const r = await complete(id, act.id);
    expect([r.status, r.body]).toEqual([403, { success: false, error: 'Entry is disqualified' }]);
    expect(await state(id)).toEqual({ points: 0, completions: 0, ledger: 0 });
  });

  it('a contest that is not open: 409 Contest is not active, nothing stored', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'late@example.com');
    const act = await createBonusAction(env.db, c.id, { action: 'a', points: 5 });
    await env.db.execute(sql`update contests set status = 'paused' where id = ${c.id}`);
    const r = await complete(id, act.id);
    expect([r.status, r.body]).toEqual([409, { success: false, error: 'Contest is not active' }]);
    expect(await state(id)).toEqual({ points: 0, completions: 0, ledger: 0 });
  });

  it('an action of another contest, another team’s entry, missing or malformed ids: 404 Entry or bonus action not found', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const other = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'scope@example.com');
    const mine = await createBonusAction(env.db, c.id, { action: 'mine', points: 5 });
    const foreign = await createBonusAction(env.db, other.id, { action: 'foreign', points: 5 });
    const cases: [string, string, string][] = [
      [id, foreign.id, a.publicKey],
      [id, mine.id, b.publicKey],
      [MISSING_ID, mine.id, a.publicKey],
      [id, MISSING_ID, a.publicKey],
      ['x', mine.id, a.publicKey],
      [id, 'y', a.publicKey],
    ];
    for (const [e, act, key] of cases) {
      const r = await complete(e, act, {}, key);
      expect([e, act, r.status, r.body]).toEqual([
        e,
        act,
        404,
        { success: false, error: 'Entry or bonus action not found' },
      ]);
    }
    expect(await state(id)).toEqual({ points: 0, completions: 0, ledger: 0 });
  });

  it('blank path parameters: 400 Missing entryId or bonusActionId', async () => {
    for (const path of [
      `/api/v1/entries//bonus-actions/${MISSING_ID}/complete`,
      `/api/v1/entries/${MISSING_ID}/bonus-actions//complete`,
      '/api/v1/entries//bonus-actions//complete',
      `/api/v1/entries/%20/bonus-actions/${MISSING_ID}/complete`,
    ]) {
      const r = await env.request('POST', path, { key: a.publicKey, body: {} });
      expect([path, r.status, r.body]).toEqual([
        path,
        400,
        { success: false, error: 'Missing entryId or bonusActionId' },
      ]);
    }
    const noKey = await env.request('POST', '/api/v1/entries//bonus-actions//complete', { body: {} });
    expect([noKey.status, noKey.body.error]).toEqual([401, 'Invalid API key']);
  });

  it('bad proof or answer: 400 naming the field, nothing stored', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = await newEntry(c.id, 'badbody@example.com');
    const act = await createBonusAction(env.db, c.id, { action: 'a', points: 5 });
    const cases: [unknown, string][] = [
      [{ proof: 5 }, 'proof must be a string'],
      [{ answer: { x: 1 } }, 'answer must be a string'],
      [{ proof: 'p'.repeat(2001) }, 'proof must be at most 2000 characters'],
      [{ answer: 'a\u0000b' }, 'answer must not contain NUL characters'],
      ['proof', 'Invalid request body'],
    ];
    for (const [body, error] of cases) {
      const r = await complete(id, act.id, body);
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error }]);
    }
    expect(await state(id)).toEqual({ points: 0, completions: 0, ledger: 0 });
    const rows = await query(env.db, sql`select 1 from bonus_completions where entry_id = ${id}`);
    expect(rows).toEqual([]);
  });
});
