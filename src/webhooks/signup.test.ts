/** POST /api/webhooks/signup/:contestId (docs/contests-and-entries.md). */
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { listReceipts } from './receipts.js';

let env: TestEnv;
let t: TeamFixture;
let seq = 0;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const external = { externalTracking: { enabled: true }, requireEmailConfirmation: false };

async function setup(settings: Record<string, unknown> = external) {
  const c = await env.contest(t.teamId, settings);
  const r = await env.request('POST', `/api/admin/contests/${c.id}/webhook-secret`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return { id: c.id, secret: r.body.data.secret as string };
}

function signed(secret: string, raw: string, id = `msg_${++seq}`) {
  const at = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, raw),
  };
}

const signup = (contestId: string, raw: string, headers: Record<string, string>) =>
  env.request('POST', `/api/webhooks/signup/${contestId}`, { rawBody: raw, headers });

async function entries(contestId: string) {
  return query<{ id: string; email: string | null; name: string | null; points: number; referred_by: string | null }>(
    env.db,
    sql`select id, email, name, points, referred_by from entries where contest_id = ${contestId} order by created_at, id`,
  );
}

describe('signup webhook', () => {
  it('creates an entry: 201 with the create-entry shape; the same email again is 200 alreadyExists', async () => {
    const c = await setup();
    const raw = JSON.stringify({ email: '  New@Example.com ', name: 'New Person', ignored: 'x' });
    const r = await signup(c.id, raw, signed(c.secret, raw));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      data: {
        entryId: expect.any(String),
        email: 'new@example.com',
        referralCode: expect.stringMatching(/^[A-Za-z0-9]{10}$/),
        alreadyExists: false,
        isReferred: false,
        pointsAwarded: { advocate: 0, friend: 0 },
      },
    });
    const again = await signup(c.id, raw, signed(c.secret, raw));
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...r.body.data, alreadyExists: true });
    expect(await entries(c.id)).toEqual([
      { id: r.body.data.entryId, email: 'new@example.com', name: 'New Person', points: 0, referred_by: null },
    ]);
    expect((await listReceipts(env.db, c.id)).map((x) => `${x.source}:${x.outcome}:${x.statusCode}`)).toEqual([
      'signup:processed:201',
      'signup:processed:200',
    ]);
  });

  it('a valid referral code awards advocate and friend points', async () => {
    const c = await setup({ ...external, referral: { advocatePoints: 10, friendPoints: 5 } });
    const first = await signup(c.id, JSON.stringify({ email: 'adv@example.com' }), { 'x-webhook-secret': c.secret });
    const [adv] = await query<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where id = ${first.body.data.entryId}`,
    );
    const raw = JSON.stringify({ email: 'friend@example.com', referralCode: adv!.referral_code });
    const r = await signup(c.id, raw, signed(c.secret, raw));
    expect([r.status, r.body.data.isReferred, r.body.data.pointsAwarded]).toEqual([
      201,
      true,
      { advocate: 10, friend: 5 },
    ]);
    const rows = await entries(c.id);
    expect(rows.map((e) => [e.email, e.points])).toEqual([
      ['adv@example.com', 10],
      ['friend@example.com', 5],
    ]);
  });

  it('a replayed webhook-id answers the stored response and creates nothing more, queues no second email', async () => {
    const c = await setup({ externalTracking: { enabled: true }, requireEmailConfirmation: true });
    const raw = JSON.stringify({ email: 'confirm@example.com' });
    const h = signed(c.secret, raw);
    const first = await signup(c.id, raw, h);
    const second = await signup(c.id, raw, h);
    expect([first.status, second.status, second.body]).toEqual([201, 201, first.body]);
    expect(await entries(c.id)).toHaveLength(1);
    const [mails] = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from email_outbox where contest_id = ${c.id}`,
    );
    expect(mails!.n).toBe(1);
    expect((await listReceipts(env.db, c.id)).map((x) => x.outcome)).toEqual(['processed', 'duplicate']);
  });

  it('external tracking off: 403 External tracking is not enabled for this contest, recorded as rejected', async () => {
    const c = await setup({ requireEmailConfirmation: false });
    const raw = JSON.stringify({ email: 'off@example.com' });
    const r = await signup(c.id, raw, signed(c.secret, raw));
    expect([r.status, r.body]).toEqual([
      403,
      { success: false, error: 'External tracking is not enabled for this contest' },
    ]);
    expect(await entries(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).map((x) => [x.outcome, x.statusCode, x.error])).toEqual([
      ['rejected', 403, 'External tracking is not enabled for this contest'],
    ]);
  });

  it('email is required and validated; other fields follow the create-entry rules', async () => {
    const c = await setup();
    const cases: [unknown, string][] = [
      [{}, 'email is required'],
      [{ phone: '+15551234567' }, 'email is required'],
      [{ email: '   ' }, 'email is required'],
      [{ email: 'not-an-email' }, 'Invalid email'],
      [{ email: 5 }, 'Invalid email'],
      [{ email: 'ok@example.com', name: 'x'.repeat(201) }, 'name must be at most 200 characters'],
      [{ email: 'ok@example.com', phone: 'abc' }, 'Invalid phone'],
    ];
    for (const [b, error] of cases) {
      const raw = JSON.stringify(b);
      const r = await signup(c.id, raw, signed(c.secret, raw));
      expect([b, r.status, r.body]).toEqual([b, 400, { success: false, error }]);
    }
    for (const raw of ['[]', '"x"', 'null', '{']) {
      const r = await signup(c.id, raw, signed(c.secret, raw));
      expect([raw, r.status, r.body]).toEqual([raw, 400, { success: false, error: 'Invalid request body' }]);
    }
    expect(await entries(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).every((x) => x.outcome === 'rejected' && x.statusCode === 400)).toBe(
      true,
    );
  });

  it('contest not open: 409 Contest is not active', async () => {
    const c = await setup({ ...external, status: 'paused' });
    const raw = JSON.stringify({ email: 'p@example.com' });
    const r = await signup(c.id, raw, signed(c.secret, raw));
    expect([r.status, r.body]).toEqual([409, { success: false, error: 'Contest is not active' }]);
    expect(await entries(c.id)).toEqual([]);
  });

  it('bad signature: 401 Invalid webhook signature, no entry', async () => {
    const c = await setup();
    const raw = JSON.stringify({ email: 'sig@example.com' });
    const h = signed(c.secret, raw);
    const r = await signup(c.id, JSON.stringify({ email: 'evil@example.com' }), h);
    expect([r.status, r.body]).toEqual([401, { success: false, error: 'Invalid webhook signature' }]);
    const x = await signup(c.id, raw, { 'x-webhook-secret': 'whsec_wrong' });
    expect(x.status).toBe(401);
    expect(await entries(c.id)).toEqual([]);
  });
});
