/**
 * Instant-win games (docs/instant-win.md): CRUD with every validation message, the draw and its stock,
 * entry limits, claims and all their refusals, expiry with the injected clock, the sweep, tier
 * edits that keep inventory right, delete, the plays log and the rate limit.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  a,
  BASE,
  b,
  count,
  env,
  getGame,
  HOUR,
  MISSING_ID,
  miss,
  newGame,
  play,
  prize,
  snapshot,
  tierRow,
} from '../../test/support/fixtures/instant-win.js';
import { query } from '../db/client.js';
import { drawTier } from './draw.js';

describe('play', () => {
  it('answers playId, a new cookie of 32 characters, alreadyPlayed false and the result; stores hashes only', async () => {
    const g = await newGame({ tiers: [prize({ color: '#00ff00' }), miss({ color: '#999' })] });
    const p = await play(g.id, { r: 10, ip: '192.0.2.77' });
    expect(p.status).toBe(200);
    expect(p.body.data).toEqual({
      playId: expect.any(String),
      playCookie: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      alreadyPlayed: false,
      result: { id: g.tiers[0]!.id, name: '10% off', isMiss: false, color: '#00ff00' },
      fairness: {
        seedId: g.fairness.seedId,
        seedHash: g.fairness.seedHash,
        clientSeed: expect.stringMatching(/^t\d+$/),
        nonce: 1,
      },
    });
    const m = await play(g.id, { r: 75, cookie: 'my-own-cookie-1234567890' });
    expect(m.body.data).toMatchObject({
      playCookie: 'my-own-cookie-1234567890',
      result: { id: g.tiers[1]!.id, name: 'Try again', isMiss: true, color: '#999' },
    });
    const rows = await query<Record<string, unknown>>(
      env.db,
      sql`select * from instant_win_plays where game_id = ${g.id} order by created_at`,
    );
    expect(rows.map((r) => r.status)).toEqual(['pending', 'miss']);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(p.body.data.playCookie);
    expect(dump).not.toContain('my-own-cookie');
    expect(dump).not.toContain('192.0.2.77');
    expect(rows[0]!.cookie_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    // the number that decided the play is kept (it is the seed's number: within the tolerance of the asked one)
    expect(Math.abs(Number(rows[0]!.random_value) - 10)).toBeLessThanOrEqual(0.4);
    expect(Math.abs(Number(rows[1]!.random_value) - 75)).toBeLessThanOrEqual(0.4);
  });

  it('refuses a malformed playCookie', async () => {
    const g = await newGame();
    for (const cookie of ['short', 'has spaces in it here!!', 'x'.repeat(129), 42]) {
      const r = await env.request('POST', `${BASE}/${g.id}/play`, { key: a.publicKey, body: { playCookie: cookie } });
      expect([r.status, r.body]).toEqual([400, { success: false, error: 'Invalid playCookie' }]);
    }
    expect(await count('instant_win_plays', sql`game_id = ${g.id}`)).toBe(0);
  });

  it('picks tiers by cumulative odds in tier order; the SQL draw is drawTier() on the stored number', async () => {
    const g = await newGame({
      tiers: [
        prize({ name: 'A', oddsPercent: 30 }),
        prize({ name: 'Zero', oddsPercent: 0, redeemCode: 'Z' }),
        prize({ name: 'B', oddsPercent: 25.5, redeemUrl: 'https://b.test', redeemCode: undefined }),
        miss({ name: 'M', oddsPercent: 44.5 }),
      ],
    });
    const names = [];
    for (const r of [0, 29.999, 30.0001, 55.4999, 55.5001, 99.99])
      names.push((await play(g.id, { r, tol: 0.002 })).body.data.result.name);
    expect(names).toEqual(['A', 'A', 'B', 'B', 'M', 'M']);
    // with real randomness: every stored play got the tier drawTier() gives for its number
    for (let i = 0; i < 40; i++) expect((await play(g.id)).status).toBe(200);
    const tiers = (await getGame(g.id)).tiers as { id: string; oddsPercent: number }[];
    const rows = await query<{ random_value: number; tier_id: string }>(
      env.db,
      sql`select random_value, tier_id from instant_win_plays where game_id = ${g.id}`,
    );
    expect(rows).toHaveLength(46);
    const mismatches = rows.filter((r) => drawTier(Number(r.random_value), tiers)!.id !== r.tier_id);
    expect(mismatches).toEqual([]);
    expect(new Set(rows.map((r) => r.tier_id)).has(g.tiers[1]!.id)).toBe(false);
  });

  it('a prize out of stock gives the FIRST miss tier, never another prize; remaining never goes below 0', async () => {
    const g = await newGame({
      tiers: [
        prize({ name: 'A', oddsPercent: 50, quantity: 1 }),
        prize({ name: 'B', oddsPercent: 40, redeemCode: 'B' }),
        miss({ name: 'Miss 1', oddsPercent: 5 }),
        miss({ name: 'Miss 2', oddsPercent: 5 }),
      ],
    });
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await play(g.id, { r: 10 })).body.data.result);
    expect(results.map((r) => [r.name, r.isMiss])).toEqual([
      ['A', false],
      ['Miss 1', true],
      ['Miss 1', true],
    ]);
    expect(await tierRow(g.tiers[0]!.id)).toEqual({ quantity: 1, remaining: 0, handed_out: 1 });
    expect((await getGame(g.id)).stats).toEqual({ plays: 3, wins: 1, claims: 0 });
  });

  it('without a miss tier, an exhausted prize gives the built-in "No prize"', async () => {
    const g = await newGame({
      tiers: [prize({ oddsPercent: 100, quantity: 1 }), prize({ name: 'Never', oddsPercent: 0, redeemCode: 'N' })],
    });
    expect((await play(g.id)).body.data.result.isMiss).toBe(false);
    const p = await play(g.id);
    expect(p.body.data.result).toEqual({ id: null, name: 'No prize', isMiss: true, color: null });
    const log = await env.request('GET', `${BASE}/${g.id}/plays`, { key: a.privateKey });
    expect(log.body.data[0]).toMatchObject({
      status: 'miss',
      tier: { id: null, name: 'No prize', isMiss: true },
      expiresAt: null,
    });
  });

  it('unique codes: each win reserves a different code until the pool is empty, then the miss', async () => {
    const g = await newGame({
      tiers: [
        prize({ deliveryType: 'unique_code', redeemCode: undefined, codes: ['C-1', 'C-2'], oddsPercent: 100 }),
        miss({ oddsPercent: 0 }),
      ],
    });
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await play(g.id)).body.data.result.isMiss);
    expect(got).toEqual([false, false, true]);
    const codes = await query<{ code: string; play_id: string | null }>(
      env.db,
      sql`select code, play_id from instant_win_codes where game_id = ${g.id}`,
    );
    expect(codes.every((c) => c.play_id !== null)).toBe(true);
    expect(new Set(codes.map((c) => c.play_id)).size).toBe(2);
    expect((await getGame(g.id)).tiers[0]).toMatchObject({ codesTotal: 2, codesAvailable: 0 });
  });

  it('a win is pending for 24 hours; a miss has no expiry', async () => {
    const g = await newGame();
    const now = env.clock.now();
    await play(g.id, { r: 1 });
    await play(g.id, { r: 99 });
    const rows = await query<{ status: string; created_at: Date; expires_at: Date | null; play_day: string }>(
      env.db,
      sql`select status, created_at, expires_at, play_day::text from instant_win_plays where game_id = ${g.id} order by random_value`,
    );
    expect(rows.map((r) => r.status)).toEqual(['pending', 'miss']);
    expect(new Date(rows[0]!.expires_at!).getTime() - new Date(rows[0]!.created_at).getTime()).toBe(24 * HOUR);
    expect(Math.abs(new Date(rows[0]!.created_at).getTime() - now.getTime())).toBeLessThan(5000);
    expect(rows[1]!.expires_at).toBeNull();
    expect(rows[0]!.play_day).toBe(now.toISOString().slice(0, 10));
  });

  it('answers 409 Game is not active on draft, paused and ended games, 404 on unknown ones, and stores nothing', async () => {
    for (const status of ['draft', 'paused', 'ended']) {
      const g = await newGame({ status });
      const r = await play(g.id);
      expect([status, r.status, r.body]).toEqual([status, 409, { success: false, error: 'Game is not active' }]);
      expect(await count('instant_win_plays', sql`game_id = ${g.id}`)).toBe(0);
    }
    const g = await newGame();
    for (const [id, key] of [
      [MISSING_ID, a.publicKey],
      ['nope', a.publicKey],
      [g.id, b.publicKey],
    ] as const) {
      const r = await play(id, { key });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Game not found' }]);
    }
  });
});

describe('entry limits', () => {
  it('device: one play per cookie and one per IP address, ever; a refusal changes nothing', async () => {
    const g = await newGame({
      entryLimit: 'device',
      tiers: [prize({ oddsPercent: 100, quantity: 5 }), miss({ oddsPercent: 0 })],
    });
    const first = await play(g.id, { ip: '192.0.2.1' });
    expect(first.status).toBe(200);
    const before = await snapshot();
    const sameCookie = await play(g.id, { cookie: first.body.data.playCookie, ip: '192.0.2.2' });
    const sameIp = await play(g.id, { ip: '192.0.2.1' });
    env.clock.advance(48 * HOUR);
    const later = await play(g.id, { cookie: first.body.data.playCookie, ip: '192.0.2.3' });
    for (const r of [sameCookie, sameIp, later])
      expect([r.status, r.body]).toEqual([403, { success: false, error: 'You have already played' }]);
    expect(await snapshot()).toEqual(before);
    expect(await tierRow(g.tiers[0]!.id)).toMatchObject({ remaining: 4 });
    const other = await play(g.id, { ip: '192.0.2.4' });
    expect(other.status).toBe(200);
  });

  it('daily: one play per cookie and per IP address per UTC day', async () => {
    env.clock.set(new Date('2031-03-01T23:59:00Z'));
    const g = await newGame({ entryLimit: 'daily' });
    const first = await play(g.id, { ip: '192.0.2.10' });
    expect(first.status).toBe(200);
    const again = await play(g.id, { cookie: first.body.data.playCookie, ip: '192.0.2.11' });
    const sameIp = await play(g.id, { ip: '192.0.2.10' });
    for (const r of [again, sameIp])
      expect([r.status, r.body]).toEqual([403, { success: false, error: 'You have already played today' }]);
    env.clock.set(new Date('2031-03-02T00:00:01Z'));
    expect((await play(g.id, { cookie: first.body.data.playCookie, ip: '192.0.2.10' })).status).toBe(200);
    expect((await play(g.id, { cookie: first.body.data.playCookie, ip: '192.0.2.12' })).status).toBe(403);
    const days = await query<{ play_day: string }>(
      env.db,
      sql`select play_day::text from instant_win_plays where game_id = ${g.id} order by created_at`,
    );
    expect(days.map((d) => d.play_day)).toEqual(['2031-03-01', '2031-03-02']);
    env.clock.set(new Date());
  });

  it('none: the same cookie and IP play as often as they like', async () => {
    const g = await newGame();
    const cookie = 'same-cookie-every-time-000';
    for (let i = 0; i < 5; i++) expect((await play(g.id, { cookie, ip: '192.0.2.20' })).status).toBe(200);
    const keys = await query(
      env.db,
      sql`select limit_cookie_key, limit_ip_key from instant_win_plays where game_id = ${g.id}`,
    );
    expect(keys.every((k) => k.limit_cookie_key === null && k.limit_ip_key === null)).toBe(true);
  });

  it('when the runtime does not know the IP address, only the cookie limit applies', async () => {
    const g = await newGame({ entryLimit: 'device' });
    const original = env.deps.clientIp;
    env.deps.clientIp = () => null;
    try {
      const p1 = await play(g.id);
      const p2 = await play(g.id);
      expect([p1.status, p2.status]).toEqual([200, 200]);
      expect((await play(g.id, { cookie: p1.body.data.playCookie })).status).toBe(403);
      const rows = await query(
        env.db,
        sql`select ip_hash, limit_ip_key from instant_win_plays where game_id = ${g.id}`,
      );
      expect(rows).toEqual([
        { ip_hash: null, limit_ip_key: null },
        { ip_hash: null, limit_ip_key: null },
      ]);
    } finally {
      env.deps.clientIp = original;
    }
  });
});
