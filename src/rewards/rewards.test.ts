/**
 * Rewards at milestones: managed with a private key, listed without codes for a public key,
 * unlocked by whatever statement takes an entry across the threshold (an adjustment, a referral on
 * create or on confirmation, a re-qualification), once, never for an entry that does not count;
 * a pool's codes each given once, the rest waiting until codes are added; points taken back keep
 * what was unlocked; erasure unlinks the person and the code stays given.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query, queryOne } from '../db/client.js';
import { runScheduledJobs } from '../jobs.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  env.deps.fetch = async () => new Response('ok');
  t = await env.team();
  const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
    key: t.privateKey,
    body: { url: 'https://hooks.example.test/in' },
  });
  expect(ep.status).toBe(201);
});
afterAll(() => env.close());

const api = (method: string, path: string, body?: unknown, key = t.privateKey) =>
  env.request(method, path, { key, ...(body === undefined ? {} : { body }) });

async function contest(settings: Record<string, unknown> = {}) {
  return env.contest(t.teamId, { requireEmailConfirmation: false, title: 'Spring launch', ...settings });
}
async function entry(contestId: string, email: string, extra: Record<string, unknown> = {}) {
  const r = await api('POST', `/api/v1/contests/${contestId}/entries`, { email, ...extra });
  expect(r.status, r.text).toBe(201);
  env.clock.advance(1000);
  return r.body.data as { entryId: string; referralCode: string };
}
const addPoints = (entryId: string, points: number) =>
  api('POST', `/api/v1/entries/${entryId}/points`, { points, reason: 'test' });
const reward = async (contestId: string, body: Record<string, unknown>) => {
  const r = await api('POST', `/api/v1/contests/${contestId}/rewards`, body);
  expect(r.status, r.text).toBe(201);
  return r.body.data as { id: string };
};
const unlocksOf = (entryId: string) =>
  query<{ name: string; code: string | null; code_pending: boolean }>(
    env.db,
    sql`select r.name, coalesce(k.code, r.code) as code, u.code_pending from reward_unlocks u
        join rewards r on r.id = u.reward_id left join reward_codes k on k.unlock_id = u.id
        where u.entry_id = ${entryId} order by r.name`,
  );
async function deliver() {
  await env.settle();
  await runScheduledJobs(env.deps);
}

describe('managing rewards', () => {
  it('creates the three kinds; a public key lists thresholds without codes; PATCH and DELETE', async () => {
    const c = await contest();
    const pool = await api('POST', `/api/v1/contests/${c.id}/rewards`, {
      name: '20% off',
      description: 'A code for the shop',
      referralsRequired: 3,
      codes: ['A1', 'A2', 'A1', ' A3 '],
    });
    expect(pool.status, pool.text).toBe(201);
    expect(pool.body.data).toMatchObject({
      name: '20% off',
      description: 'A code for the shop',
      referralsRequired: 3,
      pointsRequired: null,
      gives: 'codes',
      code: null,
      codesTotal: 3,
      codesLeft: 3,
      unlocked: 0,
      waitingForCode: 0,
      duplicates: 1,
    });
    const one = await reward(c.id, { name: 'Free shipping', pointsRequired: 50, code: 'SHIPFREE' });
    await reward(c.id, { name: 'Early access', pointsRequired: 10 });

    const pub = await api('GET', `/api/v1/contests/${c.id}/rewards`, undefined, t.publicKey);
    expect(pub.status).toBe(200);
    expect(pub.body.data).toEqual([
      {
        id: pool.body.data.id,
        name: '20% off',
        description: 'A code for the shop',
        imageUrl: null,
        referralsRequired: 3,
        pointsRequired: null,
      },
      {
        id: expect.any(String),
        name: 'Early access',
        description: null,
        imageUrl: null,
        referralsRequired: null,
        pointsRequired: 10,
      },
      {
        id: one.id,
        name: 'Free shipping',
        description: null,
        imageUrl: null,
        referralsRequired: null,
        pointsRequired: 50,
      },
    ]);
    expect(JSON.stringify(pub.body)).not.toMatch(/SHIPFREE|A1/);
    const priv = await api('GET', `/api/v1/contests/${c.id}/rewards`);
    expect(priv.body.data.map((r: { gives: string }) => r.gives)).toEqual(['codes', 'nothing', 'code']);

    const patched = await api('PATCH', `/api/v1/contests/${c.id}/rewards/${one.id}`, {
      code: 'SHIP2',
      referralsRequired: 2,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ code: 'SHIP2', referralsRequired: 2, pointsRequired: null });
    const wrong = await api('PATCH', `/api/v1/contests/${c.id}/rewards/${pool.body.data.id}`, { code: 'X' });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toBe('This reward does not give one code to everyone');

    const del = await api('DELETE', `/api/v1/contests/${c.id}/rewards/${one.id}`);
    expect(del.body.data).toEqual({ id: one.id, deleted: true });
    expect((await api('GET', `/api/v1/contests/${c.id}/rewards`)).body.data).toHaveLength(2);
    expect((await api('DELETE', `/api/v1/contests/${c.id}/rewards/${one.id}`)).status).toBe(404);
  });

  it('refuses bad input with a clear 400 and changes nothing', async () => {
    const c = await contest();
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'Give either referralsRequired or pointsRequired'],
      [{ name: 'x', pointsRequired: 1, referralsRequired: 1 }, 'Give either referralsRequired or pointsRequired'],
      [{ name: 'x', pointsRequired: 0 }, 'pointsRequired must be a whole number from 1 to 1000000'],
      [{ name: '', pointsRequired: 1 }, 'name must not be empty'],
      [{ name: 'x', pointsRequired: 1, codes: ['a'], code: 'b' }, 'Give either codes or code, not both'],
      [{ name: 'x', pointsRequired: 1, codes: ['ok', ''] }, 'each code must not be empty'],
      [{ name: 'x', pointsRequired: 1, codes: ['a\u0007'] }, 'each code must not contain control characters'],
      [
        { name: 'x', pointsRequired: 1, codes: Array.from({ length: 10_001 }, (_, i) => `c${i}`) },
        'codes must have at most 10000 codes per request',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await api('POST', `/api/v1/contests/${c.id}/rewards`, body);
      expect([r.status, r.body.error], JSON.stringify(body).slice(0, 80)).toEqual([400, message]);
    }
    expect(await queryOne(env.db, sql`select 1 from rewards where contest_id = ${c.id}`)).toBeUndefined();
    const other = await env.team('Other');
    const foreign = await api(
      'POST',
      `/api/v1/contests/${c.id}/rewards`,
      { name: 'x', pointsRequired: 1 },
      other.privateKey,
    );
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Contest not found']);
    const pub = await api('POST', `/api/v1/contests/${c.id}/rewards`, { name: 'x', pointsRequired: 1 }, t.publicKey);
    expect(pub.status).toBe(403);
  });
});

describe('unlocking', () => {
  it('an adjustment across the threshold unlocks once, emails the code and records reward.unlocked; points taken back keep it', async () => {
    const c = await contest();
    const r = await reward(c.id, { name: 'Free shipping', pointsRequired: 50, code: 'SHIPFREE' });
    await reward(c.id, { name: 'VIP', pointsRequired: 200 });
    const e = await entry(c.id, 'ann@example.com', { name: 'Ann' });
    expect((await addPoints(e.entryId, 30)).status).toBe(200);
    expect(await unlocksOf(e.entryId)).toEqual([]);
    await addPoints(e.entryId, 30);
    await addPoints(e.entryId, 30);
    expect(await unlocksOf(e.entryId)).toEqual([{ name: 'Free shipping', code: 'SHIPFREE', code_pending: false }]);
    await addPoints(e.entryId, -80);
    expect(await unlocksOf(e.entryId)).toHaveLength(1);

    const mine = await api('GET', `/api/v1/entries/${e.entryId}/rewards`);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual({
      unlocked: [
        {
          rewardId: r.id,
          name: 'Free shipping',
          description: null,
          code: 'SHIPFREE',
          waitingForCode: false,
          unlockedAt: expect.stringMatching(/Z$/),
        },
      ],
      next: {
        rewardId: expect.any(String),
        name: 'VIP',
        description: null,
        referralsRequired: null,
        pointsRequired: 200,
        referralsMissing: null,
        pointsMissing: 190,
      },
    });
    await deliver();
    const mails = env.sent.filter((m) => m.to === 'ann@example.com' && m.subject.startsWith('You unlocked'));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('You unlocked Free shipping: Spring launch');
    expect(mails[0]!.text).toContain('Your code: SHIPFREE');
    expect(mails[0]!.text.startsWith('Hi Ann,')).toBe(true);
    const ev = await query<{ data: Record<string, unknown> }>(
      env.db,
      sql`select data from events where type = 'reward.unlocked' and contest_id = ${c.id}`,
    );
    expect(ev.map((x) => x.data)).toEqual([
      expect.objectContaining({ rewardId: r.id, entryId: e.entryId, code: 'SHIPFREE', codePending: false }),
    ]);
  });

  it('confirmed referrals: a friend counts when confirmed, not before; on create and on confirmation', async () => {
    const c = await contest({ requireEmailConfirmation: true });
    const ra = await reward(c.id, { name: 'Two friends', referralsRequired: 2 });
    const adv = await entry(c.id, 'adv@example.com');
    // the advocate's own email must be confirmed too
    await queryOne(env.db, sql`update entries set email_confirmed = true where id = ${adv.entryId}`);
    const f1 = await entry(c.id, 'f1@example.com', { referralCode: adv.referralCode });
    const f2 = await entry(c.id, 'f2@example.com', { referralCode: adv.referralCode });
    expect(await unlocksOf(adv.entryId)).toEqual([]);
    const next = await api('GET', `/api/v1/entries/${adv.entryId}/rewards`);
    expect(next.body.data.next).toMatchObject({ rewardId: ra.id, referralsMissing: 2, pointsMissing: null });
    const tokenOf = async (id: string) => {
      // the confirmation link's token is mailed; the test sets a known one
      await queryOne(
        env.db,
        sql`update entries set confirmation_token_hash = encode(sha256(convert_to(${id.replace(/-/g, '')}, 'UTF8')), 'hex') where id = ${id}`,
      );
      return id.replace(/-/g, '');
    };
    const confirm = async (id: string) => {
      const r = await env.request('GET', `/api/confirm/${await tokenOf(id)}`);
      expect(r.status, r.text).toBeLessThan(400);
    };
    await confirm(f1.entryId);
    expect(await unlocksOf(adv.entryId)).toEqual([]);
    await confirm(f2.entryId);
    expect(await unlocksOf(adv.entryId)).toEqual([{ name: 'Two friends', code: null, code_pending: false }]);
  });

  it("a flagged friend approved in review unlocks the advocate's rewards in the review's own statement", async () => {
    const c = await contest({ risk: { mode: 'hold' }, referral: { advocatePoints: 10, friendPoints: 5 } });
    await reward(c.id, { name: 'A friend', referralsRequired: 1 });
    await reward(c.id, { name: 'Ten points', pointsRequired: 10 });
    const adv = await entry(c.id, 'rv-adv@example.com', { ipAddress: '198.51.100.77' });
    // the same address as the advocate: self_referral, held for review
    const f = await entry(c.id, 'rv-friend@example.com', {
      referralCode: adv.referralCode,
      ipAddress: '198.51.100.77',
    });
    const flagged = await api('GET', `/api/v1/entries/${f.entryId}`);
    expect(flagged.body.data.risk).toMatchObject({ level: 'high', review: null });
    expect(await unlocksOf(adv.entryId)).toEqual([]);
    const ok = await api('POST', `/api/v1/entries/${f.entryId}/review`, { decision: 'approve' });
    expect(ok.status, ok.text).toBe(200);
    // no later points change needed: the approval itself unlocks both
    expect(await unlocksOf(adv.entryId)).toEqual([
      { name: 'A friend', code: null, code_pending: false },
      { name: 'Ten points', code: null, code_pending: false },
    ]);
    const mine = await api('GET', `/api/v1/entries/${adv.entryId}/rewards`);
    expect(mine.body.data.unlocked.map((u: { name: string }) => u.name).sort()).toEqual(['A friend', 'Ten points']);
  });

  it('never for a disqualified entry; re-qualified, it unlocks', async () => {
    const c = await contest();
    await reward(c.id, { name: 'Ten', pointsRequired: 10 });
    const e = await entry(c.id, 'dq@example.com');
    expect((await api('POST', `/api/v1/entries/${e.entryId}/disqualify`, { disqualify: true })).status).toBe(200);
    await addPoints(e.entryId, 20);
    expect(await unlocksOf(e.entryId)).toEqual([]);
    expect((await api('POST', `/api/v1/entries/${e.entryId}/disqualify`, { disqualify: false })).status).toBe(200);
    expect(await unlocksOf(e.entryId)).toEqual([{ name: 'Ten', code: null, code_pending: false }]);
  });

  it('a reward created (or lowered) later unlocks for the entries already past it', async () => {
    const c = await contest();
    const a = await entry(c.id, 'a@example.com');
    const b = await entry(c.id, 'b@example.com');
    await addPoints(a.entryId, 40);
    await addPoints(b.entryId, 15);
    const r = await reward(c.id, { name: 'Thirty', pointsRequired: 30 });
    expect(await unlocksOf(a.entryId)).toHaveLength(1);
    expect(await unlocksOf(b.entryId)).toHaveLength(0);
    await api('PATCH', `/api/v1/contests/${c.id}/rewards/${r.id}`, { pointsRequired: 10 });
    expect(await unlocksOf(b.entryId)).toHaveLength(1);
    const list = await api('GET', `/api/v1/contests/${c.id}/rewards/${r.id}/unlocks`);
    expect(list.body.data.map((u: { email: string }) => u.email).sort()).toEqual(['a@example.com', 'b@example.com']);
    expect(list.body.pagination).toMatchObject({ total: 2 });
  });
});

describe('a pool of codes', () => {
  it('gives each code once; when it runs dry the rest wait, and codes added go to them oldest first', async () => {
    const c = await contest();
    const r = await reward(c.id, { name: 'Coupon', pointsRequired: 5, codes: ['C1', 'C2'] });
    const es = [];
    for (let i = 0; i < 4; i++) es.push(await entry(c.id, `p${i}@example.com`));
    for (const e of es) await addPoints(e.entryId, 5);
    const got = await Promise.all(es.map((e) => unlocksOf(e.entryId)));
    expect(got.map((u) => u[0]?.code ?? null)).toEqual(['C1', 'C2', null, null]);
    expect(got.map((u) => u[0]?.code_pending)).toEqual([false, false, true, true]);
    const mine = await api('GET', `/api/v1/entries/${es[3]!.entryId}/rewards`);
    expect(mine.body.data.unlocked[0]).toMatchObject({ code: null, waitingForCode: true });
    expect((await api('GET', `/api/v1/contests/${c.id}/rewards`)).body.data[0]).toMatchObject({
      codesTotal: 2,
      codesLeft: 0,
      unlocked: 4,
      waitingForCode: 2,
    });
    await deliver();
    expect(env.sent.filter((m) => m.to === 'p3@example.com')).toHaveLength(0);

    const add = await api('POST', `/api/v1/contests/${c.id}/rewards/${r.id}/codes`, {
      codes: ['C3', 'C1', 'C4', 'C5'],
    });
    expect(add.status, add.text).toBe(200);
    expect(add.body.data).toEqual({ added: 3, duplicates: 1, given: 2, codesTotal: 5, codesLeft: 1 });
    expect((await unlocksOf(es[2]!.entryId))[0]).toEqual({ name: 'Coupon', code: 'C3', code_pending: false });
    expect((await unlocksOf(es[3]!.entryId))[0]).toEqual({ name: 'Coupon', code: 'C4', code_pending: false });
    await deliver();
    expect(env.sent.filter((m) => m.to === 'p3@example.com').map((m) => m.text)).toEqual([
      expect.stringContaining('Your code: C4'),
    ]);
    const given = await query(
      env.db,
      sql`select 1 from events where type = 'reward.code_given' and contest_id = ${c.id}`,
    );
    expect(given).toHaveLength(2);

    const notPool = await reward(c.id, { name: 'Status', pointsRequired: 1 });
    const r409 = await api('POST', `/api/v1/contests/${c.id}/rewards/${notPool.id}/codes`, { codes: ['x'] });
    expect([r409.status, r409.body.error]).toEqual([409, 'This reward does not give codes from a pool']);
  });

  it('erasure unlinks the person from the unlock; the code stays given and is not handed out again', async () => {
    const c = await contest();
    const r = await reward(c.id, { name: 'Coupon', pointsRequired: 5, codes: ['E1', 'E2'] });
    const e = await entry(c.id, 'erase-me@example.com', { name: 'Eve' });
    await addPoints(e.entryId, 5);
    expect((await unlocksOf(e.entryId))[0]?.code).toBe('E1');
    const del = await api('DELETE', `/api/v1/entries/${e.entryId}`);
    expect(del.status, del.text).toBe(200);
    expect(await unlocksOf(e.entryId)).toEqual([]);
    const left = await query<{ entry_id: string | null; code: string }>(
      env.db,
      sql`select u.entry_id, k.code from reward_unlocks u join reward_codes k on k.unlock_id = u.id where u.reward_id = ${r.id}`,
    );
    expect(left).toEqual([{ entry_id: null, code: 'E1' }]);
    const other = await entry(c.id, 'next@example.com');
    await addPoints(other.entryId, 5);
    expect((await unlocksOf(other.entryId))[0]?.code).toBe('E2');
    const list = await api('GET', `/api/v1/contests/${c.id}/rewards/${r.id}/unlocks`);
    expect(JSON.stringify(list.body)).not.toContain('erase-me');
  });
});

describe('reward emails leave at once', () => {
  it('the write that unlocks a reward sends its email and event after the answer, without the every-minute job', async () => {
    const c = await contest();
    await reward(c.id, { name: 'Quick five', pointsRequired: 5, code: 'QUICK5' });
    const e = await entry(c.id, 'quick@example.com');
    const before = env.sent.length;
    const r = await addPoints(e.entryId, 5);
    expect(r.status).toBe(200);
    await env.settle();
    expect(env.sent.slice(before).map((m) => [m.to, m.text.includes('QUICK5')])).toEqual([['quick@example.com', true]]);
    // the reward.unlocked event was delivered too
    const pending = await query(
      env.db,
      sql`select 1 from event_deliveries d join events ev on ev.id = d.event_id
          where ev.type = 'reward.unlocked' and ev.data->>'entryId' = ${e.entryId} and d.status <> 'delivered'`,
    );
    expect(pending).toEqual([]);
  });
  // a write in a contest without rewards sends no statement more: test/round-trips.test.ts counts them all
});
