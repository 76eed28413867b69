/**
 * Trust and safety on the real Worker (workerd, Neon driver): a masked public key, risk signals
 * with the disposable-domain table, block and hold modes with the review, and the public rate
 * limit through the Workers Rate Limiting binding (PUBLIC_LIMITER in wrangler.toml, simulated
 * by miniflare).
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, hasPostgres, makeContest, makeTeam, sqlRows, type Team } from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);

describe.skipIf(!hasPostgres)('Worker in workerd: public keys and risk signals', () => {
  let team: Team;
  let masked: string;

  beforeAll(async () => {
    team = await makeTeam('Trust');
    const k = await call('POST', `/api/admin/teams/${team.teamId}/api-keys`, {
      admin: true,
      body: { type: 'public', personalData: 'masked' },
    });
    expect(k.status).toBe(201);
    masked = k.body.data.key;
  });

  it('a masked key reads masked entries and searches whole emails only', async () => {
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false });
    const e = await call('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: `ann-${tag}@example.com`, name: 'Ann Bell', phone: '+15551234567' },
    });
    expect(e.status).toBe(201);
    const list = await call('GET', `/api/v1/contests/${c.id}/entries`, { key: masked });
    expect(list.body.data[0]).toMatchObject({
      email: 'a***@example.com',
      name: 'Ann B.',
      phone: '***4567',
      risk: { level: 'none', reasons: [], review: null },
    });
    expect((await call('GET', `/api/v1/contests/${c.id}/entries?search=ann`, { key: masked })).body.data).toEqual([]);
    expect(
      (await call('GET', `/api/v1/contests/${c.id}/entries?search=ann-${tag}@example.com`, { key: masked })).body.data,
    ).toHaveLength(1);
  });

  it('block refuses a disposable address and stores nothing; hold holds referral points until approved', async () => {
    const b = await makeContest(team.teamId, { requireEmailConfirmation: false, risk: { mode: 'block' } });
    const refused = await call('POST', `/api/v1/contests/${b.id}/entries`, {
      key: team.privateKey,
      body: { email: `x-${tag}@mailinator.com`, ipAddress: '203.0.113.4' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Entry refused by risk rules');
    // the risk checks run inside the create statement: still one round trip at the edge
    expect(refused.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const flagged = await call('POST', `/api/v1/contests/${b.id}/entries`, {
      key: team.privateKey,
      body: { email: `y-${tag}@example.com`, ipAddress: '203.0.113.4', userAgent: 'UA' },
    });
    expect(flagged.status).toBe(201);
    expect(flagged.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const rows = await sqlRows<{ n: number }>(sql`select count(*)::int as n from entries where contest_id = ${b.id}`);
    expect(rows[0]!.n).toBe(1);

    const h = await makeContest(team.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
      risk: { mode: 'hold' },
    });
    const a = await call('POST', `/api/v1/contests/${h.id}/entries`, {
      key: team.privateKey,
      body: { email: `amy-${tag}@example.com` },
    });
    const f = await call('POST', `/api/v1/contests/${h.id}/entries`, {
      key: team.privateKey,
      body: { email: `amy-${tag}+2@example.com`, referralCode: a.body.data.referralCode },
    });
    expect(f.body.data).toMatchObject({
      pointsAwarded: { advocate: 0, friend: 0 },
      pointsPending: { advocate: 10, friend: 5 },
    });
    const rv = await call('POST', `/api/v1/entries/${f.body.data.entryId}/review`, {
      key: team.privateKey,
      body: { decision: 'approve' },
    });
    expect(rv.status).toBe(200);
    expect(rv.body.data).toMatchObject({ points: 5, risk: { level: 'high', review: 'approved' } });
    const adv = await call('GET', `/api/v1/entries/${a.body.data.entryId}`, { key: team.privateKey });
    expect(adv.body.data.points).toBe(10);
  });

  it('public-key requests past the binding limit (600 a minute) answer 429 Too many requests with Retry-After', async () => {
    // the binding is declared in wrangler.toml and simulated by miniflare: use up one (key, IP)
    // budget on it directly (no database), then ask the Worker with that key from that address
    const limiter = (env as unknown as { PUBLIC_LIMITER: { limit(o: { key: string }): Promise<{ success: boolean }> } })
      .PUBLIC_LIMITER;
    const ip = '198.51.100.99';
    const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(team.publicKey)))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    let allowed = 0;
    for (let i = 0; i < 700; i++) if ((await limiter.limit({ key: `pk:${hash}:${ip}` })).success) allowed++;
    expect(allowed).toBe(600);
    const limited = await call('GET', '/api/v1/contests', { key: team.publicKey, headers: { 'cf-connecting-ip': ip } });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client address, and the private key, are not limited by that one
    expect(
      (
        await call('GET', '/api/v1/contests', {
          key: team.publicKey,
          headers: { 'cf-connecting-ip': '198.51.100.100' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('GET', '/api/v1/contests', { key: team.privateKey, headers: { 'cf-connecting-ip': ip } })).status,
    ).toBe(200);
  });

  it('failed admin attempts are limited per client address: 10, then 429 with Retry-After, even for the right token', async () => {
    const ip = { 'cf-connecting-ip': '198.51.100.66' };
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await call('GET', '/api/admin/teams', {
        headers: { ...ip, authorization: `Bearer wrong-token-${i}-0123456789` },
      });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    const right = await call('GET', '/api/admin/teams', { admin: true, headers: ip });
    expect([right.status, right.body.error]).toEqual([429, 'Too many requests']);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      (await call('GET', '/api/admin/teams', { admin: true, headers: { 'cf-connecting-ip': '198.51.100.67' } })).status,
    ).toBe(200);
  });
});
