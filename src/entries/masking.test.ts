/**
 * Public keys and personal data: personalData "full" | "masked" keys, masking everywhere
 * entries appear, whole-email-only search, the public rate limit per (key, client IP), manual
 * bonus actions held pending for a public key, and TRUST_PROXY taking the client from the right.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { ledgerMismatches } from '../../test/support/ledger.js';
import { createApiKey, createBonusAction } from '../admin/admin.js';
import { queryOne } from '../db/client.js';
import { forwardedClientIp, memoryRateLimiter } from '../deps.js';
import { maskEmail, maskEntry, maskName, maskPhone } from '../sql/masking.js';

let env: TestEnv;
let t: TeamFixture;
let masked: string;
let contestId: string;

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('A');
  masked = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'page', 'masked')).key;
  contestId = (
    await env.contest(t.teamId, { requireEmailConfirmation: false, referral: { advocatePoints: 10, friendPoints: 5 } })
  ).id;
  const ann = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: t.privateKey,
    body: {
      email: 'ann.bell@example.com',
      name: 'Ann Marie Bell',
      phone: '+1 555 123 4567',
      customFieldData: { size: 'M' },
    },
  });
  expect(ann.status).toBe(201);
  const cher = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: t.privateKey,
    body: { email: 'cher@example.org', name: 'Cher' },
  });
  expect(cher.status).toBe(201);
});
afterAll(() => env?.close());

describe('admin: personalData on keys', () => {
  it('creates public keys full (default) or masked, lists keys newest first without the key', async () => {
    const full = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
      headers: admin,
      body: { type: 'public' },
    });
    expect(full.status).toBe(201);
    expect(full.body.data.personalData).toBe('full');
    const m = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
      headers: admin,
      body: { type: 'public', personalData: 'masked', name: 'shop' },
    });
    expect(m.status).toBe(201);
    expect(m.body.data).toMatchObject({ type: 'public', name: 'shop', personalData: 'masked' });
    const priv = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
      headers: admin,
      body: { type: 'private' },
    });
    expect(priv.body.data.personalData).toBeNull();
    const list = await env.request('GET', `/api/admin/teams/${t.teamId}/api-keys`, { headers: admin });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toEqual({
      id: priv.body.data.id,
      type: 'private',
      name: null,
      prefix: priv.body.data.prefix,
      personalData: null,
      createdAt: expect.any(String),
      revokedAt: null,
    });
    expect(list.body.data.find((k: { id: string }) => k.id === m.body.data.id).personalData).toBe('masked');
    expect(JSON.stringify(list.body)).not.toContain(m.body.data.key);
    const missing = await env.request('GET', `/api/admin/teams/00000000-0000-4000-8000-000000000000/api-keys`, {
      headers: admin,
    });
    expect(missing.status).toBe(404);
  });

  it('refuses personalData on a private key whatever the value, and bad values; nothing stored', async () => {
    const before = await queryOne<{ n: number }>(env.db, sql`select count(*)::int as n from api_keys`);
    for (const personalData of ['masked', 'full', 'nonsense', null]) {
      const r = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
        headers: admin,
        body: { type: 'private', personalData },
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'personalData applies to public keys only' });
    }
    const bad = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
      headers: admin,
      body: { type: 'public', personalData: 'half' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('personalData must be full or masked');
    const after = await queryOne<{ n: number }>(env.db, sql`select count(*)::int as n from api_keys`);
    expect(after!.n).toBe(before!.n);
  });
});

describe('masking with a masked public key', () => {
  it('the rules, in JS (the same as the SQL functions)', () => {
    expect(maskEmail('ann@example.com')).toBe('a***@example.com');
    expect(maskPhone('+15551234567')).toBe('***4567');
    expect(maskName('Ann Marie Bell')).toBe('Ann B.');
    expect(maskName('Cher')).toBe('Cher');
    expect(maskName(null)).toBeNull();
    expect(maskEntry({ email: null, phone: null, name: 'Ann Bell', customFieldData: { a: 1 } })).toEqual({
      email: null,
      phone: null,
      name: 'Ann B.',
      customFieldData: null,
    });
  });

  it('entries list and detail: masked for the masked key, whole for the full key', async () => {
    const m = await env.request('GET', `/api/v1/contests/${contestId}/entries`, { key: masked });
    expect(m.status).toBe(200);
    const ann = m.body.data.find((e: { email: string }) => e.email.startsWith('a'));
    expect(ann).toMatchObject({ email: 'a***@example.com', name: 'Ann B.', phone: '***4567' });
    const cher = m.body.data.find((e: { email: string }) => e.email.startsWith('c'));
    expect(cher).toMatchObject({ email: 'c***@example.org', name: 'Cher', phone: null });
    expect(m.text).not.toContain('ann.bell');
    const d = await env.request('GET', `/api/v1/entries/${ann.id}`, { key: masked });
    expect(d.body.data).toMatchObject({
      email: 'a***@example.com',
      name: 'Ann B.',
      phone: '***4567',
      customFieldData: null,
    });
    const f = await env.request('GET', `/api/v1/entries/${ann.id}`, { key: t.publicKey });
    expect(f.body.data).toMatchObject({
      email: 'ann.bell@example.com',
      name: 'Ann Marie Bell',
      phone: '+15551234567',
      customFieldData: { size: 'M' },
    });
    const p = await env.request('GET', `/api/v1/entries/${ann.id}`, { key: t.privateKey });
    expect(p.body.data.email).toBe('ann.bell@example.com');
  });

  it('search with a masked key matches whole emails only', async () => {
    const sub = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=ann`, { key: masked });
    expect(sub.status).toBe(200);
    expect(sub.body.data).toEqual([]);
    expect(sub.body.pagination.total).toBe(0);
    const byName = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=Bell`, { key: masked });
    expect(byName.body.data).toEqual([]);
    const whole = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=Ann.Bell@Example.com`, {
      key: masked,
    });
    expect(whole.body.data.map((e: { email: string }) => e.email)).toEqual(['a***@example.com']);
    const full = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=ann`, { key: t.publicKey });
    expect(full.body.data.map((e: { email: string }) => e.email)).toEqual(['ann.bell@example.com']);
  });

  it('leaderboard and bonus-action lookup are masked; the lookup still finds the entry by the full email', async () => {
    const lb = await env.request('GET', `/api/v1/contests/${contestId}/leaderboard`, { key: masked });
    expect(lb.status).toBe(200);
    expect(lb.body.data.map((r: { email: string; name: string }) => [r.email, r.name]).sort()).toEqual([
      ['a***@example.com', 'Ann B.'],
      ['c***@example.org', 'Cher'],
    ]);
    const look = await env.request(
      'GET',
      `/api/v1/entries/lookup/bonus-actions?email=ann.bell@example.com&contestId=${contestId}`,
      { key: masked },
    );
    expect(look.status).toBe(200);
    expect(look.body.data.email).toBe('a***@example.com');
    const lookFull = await env.request(
      'GET',
      `/api/v1/entries/lookup/bonus-actions?email=ann.bell@example.com&contestId=${contestId}`,
      { key: t.publicKey },
    );
    expect(lookFull.body.data.email).toBe('ann.bell@example.com');
  });
});

describe('manual bonus actions', () => {
  it('a public-key completion is pending with no points; verify approves once; reject lets the entry complete again', async () => {
    const action = await createBonusAction(env.db, contestId, {
      action: 'Follow us',
      points: 50,
      confirmationType: 'manual',
    });
    const e = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
      key: t.privateKey,
      body: { email: 'manual@example.com' },
    });
    const id = e.body.data.entryId;
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
      key: t.publicKey,
      body: {},
    });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({
      alreadyCompleted: false,
      completedAt: expect.any(String),
      pointsAdded: 0,
      newTotalPoints: 0,
      message: expect.any(String),
    });
    const lst = await env.request('GET', `/api/v1/entries/${id}/bonus-actions`, { key: t.publicKey });
    expect(lst.body.data.actions.find((a: { id: string }) => a.id === action.id).completionStatus).toBe('pending');
    // public key cannot verify
    const pub = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.publicKey,
      body: { approve: true },
    });
    expect(pub.status).toBe(403);
    const bad = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.privateKey,
      body: { approve: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('approve must be a boolean');
    const rej = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.privateKey,
      body: { approve: false },
    });
    expect(rej.status).toBe(200);
    expect(rej.body.data).toEqual({ completionStatus: 'rejected', pointsAdded: 0, newTotalPoints: 0 });
    const again409 = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.privateKey,
      body: { approve: true },
    });
    expect(again409.status).toBe(409);
    expect(again409.body.error).toBe('No pending completion');
    const redo = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
      key: t.publicKey,
      body: {},
    });
    expect(redo.body.data.pointsAdded).toBe(0);
    expect(redo.body.data.alreadyCompleted).toBe(false);
    const [a1, a2] = await Promise.all([
      env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
        key: t.privateKey,
        body: { approve: true },
      }),
      env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
        key: t.privateKey,
        body: { approve: true },
      }),
    ]);
    expect([a1.status, a2.status].sort()).toEqual([200, 409]);
    const okOne = a1.status === 200 ? a1 : a2;
    expect(okOne.body.data).toEqual({ completionStatus: 'verified', pointsAdded: 50, newTotalPoints: 50 });
    const row = await queryOne<{ points: number; ledger: number }>(
      env.db,
      sql`select points, (select count(*)::int from points_ledger where entry_id = ${id}) as ledger from entries where id = ${id}`,
    );
    expect(row).toEqual({ points: 50, ledger: 1 });
    expect(await ledgerMismatches(env.db, contestId)).toEqual([]);
  });

  it('a private-key completion of a manual action is verified at once; unknown pairs answer 404', async () => {
    const action = await createBonusAction(env.db, contestId, {
      action: 'Review',
      points: 7,
      confirmationType: 'manual',
    });
    const e = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
      key: t.privateKey,
      body: { email: 'priv@example.com' },
    });
    const id = e.body.data.entryId;
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
      key: t.privateKey,
      body: {},
    });
    expect(done.body.data).toMatchObject({ pointsAdded: 7, newTotalPoints: 7 });
    const none = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.privateKey,
      body: { approve: true },
    });
    expect(none.status).toBe(409);
    const missing = await env.request(
      'POST',
      `/api/v1/entries/00000000-0000-4000-8000-000000000000/bonus-actions/${action.id}/verify`,
      { key: t.privateKey, body: { approve: true } },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Entry or bonus action not found');
  });
});

describe('public rate limit per (key, client IP)', () => {
  it('429 Too many requests with Retry-After past the limit; other IPs, private keys, play and claim are not counted', async () => {
    const limited = await createTestEnv({ publicRateLimiter: undefined });
    try {
      const tt = await limited.team('L');
      limited.deps.publicRateLimiter = memoryRateLimiter(3, 60, limited.clock);
      const c = await limited.contest(tt.teamId);
      const get = (ip: string, key = tt.publicKey) =>
        limited.request('GET', `/api/v1/contests/${c.id}`, { key, headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 3; i++) expect((await get('198.51.100.1')).status).toBe(200);
      const over = await get('198.51.100.1');
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ success: false, error: 'Too many requests' });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await get('198.51.100.2')).status).toBe(200);
      expect((await get('198.51.100.1', tt.privateKey)).status).toBe(200);
      const game = await limited.request('POST', '/api/v1/instant-win-games', {
        key: tt.privateKey,
        body: {
          slug: 'spin-to-win',
          title: 'S',
          mechanic: 'wheel',
          layout: 'default',
          entryLimit: 'none',
          publishAs: 'landing',
          tiers: [
            { name: 'P', oddsPercent: 100, redeemCode: 'C' },
            { name: 'M', oddsPercent: 0, isMiss: true },
          ],
        },
      });
      const play = await limited.request('POST', `/api/v1/instant-win-games/${game.body.data.id}/play`, {
        key: tt.publicKey,
        body: {},
        headers: { 'x-forwarded-for': '198.51.100.1' },
      });
      expect(play.status).toBe(200);
      limited.clock.advance(61_000);
      expect((await get('198.51.100.1')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('TRUST_PROXY=N: the client address is the N-th X-Forwarded-For entry from the right', () => {
  it('a spoofed left-most address changes nothing', () => {
    expect(forwardedClientIp('203.0.113.9', 1)).toBe('203.0.113.9');
    expect(forwardedClientIp('1.1.1.1, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(forwardedClientIp('6.6.6.6, 7.7.7.7, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(forwardedClientIp('6.6.6.6, 203.0.113.9, 10.0.0.2', 2)).toBe('203.0.113.9');
    expect(forwardedClientIp('10.0.0.2', 2)).toBeNull();
    expect(forwardedClientIp(undefined, 1)).toBeNull();
    expect(forwardedClientIp('1.1.1.1', 0)).toBeNull();
  });
});
