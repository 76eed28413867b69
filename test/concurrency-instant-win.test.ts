/**
 * Instant win under real concurrency (real Postgres, 40 pooled connections, requests fired at
 * once): inventory and code pools never over-given, entry limits hold, one claim per play,
 * and expired stock comes back exactly once under concurrent sweeps.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../src/db/client.js';
import { sweepExpiredPlays } from '../src/instant-win/sweep.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

const BASE = '/api/v1/instant-win-games';
const HOUR = 3600_000;

describe.skipIf(!hasRealPostgres)('instant win under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;
  let seq = 0;
  const ip = () => {
    seq++;
    return `10.${(seq >> 16) & 255}.${(seq >> 8) & 255}.${seq & 255}`;
  };
  const cookie = () => `cookie-${String(++seq).padStart(12, '0')}-concurrency`;

  beforeAll(async () => {
    env = await createTestEnv({
      backend: 'postgres',
      poolMax: 40,
      rateLimiter: { limit: async () => ({ success: true, retryAfterSeconds: 0 }) },
    });
    t = await env.team();
  });
  afterAll(async () => {
    await env.close();
  });

  async function newGame(tiers: unknown[], entryLimit = 'none') {
    const r = await env.request('POST', BASE, {
      key: t.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Rush',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit,
        publishAs: 'landing',
        tiers,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data as { id: string; tiers: { id: string }[] };
  }
  const play = (gameId: string, c = cookie(), address = ip()) =>
    env.request('POST', `${BASE}/${gameId}/play`, {
      key: t.publicKey,
      body: { playCookie: c },
      headers: { 'x-forwarded-for': address },
    });
  const all = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
  const tally = (statuses: number[]) =>
    statuses.reduce<Record<number, number>>((m, s) => {
      m[s] = (m[s] ?? 0) + 1;
      return m;
    }, {});

  it('500 concurrent plays on a prize of quantity 25 at 100% odds: exactly 25 wins, remaining 0', async () => {
    const g = await newGame([
      { name: 'Prize', oddsPercent: 100, redeemCode: 'WIN', quantity: 25 },
      { name: 'Miss', oddsPercent: 0, isMiss: true },
    ]);
    const started = Date.now();
    const res = await all(500, () => play(g.id));
    const ms = Date.now() - started;
    expect(tally(res.map((r) => r.status))).toEqual({ 200: 500 });
    const wins = res.filter((r) => !r.body.data.result.isMiss);
    expect(wins).toHaveLength(25);
    const tier = await queryOne<{ remaining: number; handed_out: number }>(
      env.db,
      sql`select remaining, handed_out from instant_win_tiers where id = ${g.tiers[0]!.id}`,
    );
    expect(tier).toEqual({ remaining: 0, handed_out: 25 });
    const stored = await query<{ status: string; n: number }>(
      env.db,
      sql`select status, count(*)::int as n from instant_win_plays where game_id = ${g.id} group by status order by status`,
    );
    expect(stored).toEqual([
      { status: 'miss', n: 475 },
      { status: 'pending', n: 25 },
    ]);
    console.log(
      `500 plays / quantity 25: ${wins.length} wins, ${500 - wins.length} misses, remaining ${tier!.remaining}, ${ms} ms`,
    );
  });

  it('500 concurrent plays on a pool of 25 unique codes: 25 distinct codes handed out, none twice', async () => {
    const codes = Array.from({ length: 25 }, (_, i) => `UNIQUE-${i}`);
    const g = await newGame([
      { name: 'Code', oddsPercent: 100, deliveryType: 'unique_code', codes },
      { name: 'Miss', oddsPercent: 0, isMiss: true },
    ]);
    const res = await all(500, () => play(g.id));
    expect(tally(res.map((r) => r.status))).toEqual({ 200: 500 });
    const wins = res.filter((r) => !r.body.data.result.isMiss).map((r) => r.body.data.playId as string);
    expect(wins).toHaveLength(25);
    const handed = await query<{ code: string; play_id: string; status: string; code_id: string }>(
      env.db,
      sql`select c.code, c.play_id, p.status, p.code_id from instant_win_codes c join instant_win_plays p on p.id = c.play_id where c.tier_id = ${g.tiers[0]!.id}`,
    );
    expect(handed).toHaveLength(25);
    expect(new Set(handed.map((h) => h.code)).size).toBe(25);
    expect(new Set(handed.map((h) => h.play_id))).toEqual(new Set(wins));
    expect(handed.every((h) => h.status === 'pending')).toBe(true);
    const pendingWithCode = await queryOne<{ n: number }>(
      env.db,
      sql`select count(distinct code_id)::int as n from instant_win_plays where game_id = ${g.id} and status = 'pending'`,
    );
    expect(pendingWithCode!.n).toBe(25);
    console.log(
      `500 plays / 25 unique codes: ${wins.length} wins, ${new Set(handed.map((h) => h.code)).size} distinct codes`,
    );
  });

  it('50 concurrent plays with one cookie on a device game: one play, 49 × 403; one IP address the same', async () => {
    const g = await newGame(
      [
        { name: 'Prize', oddsPercent: 100, redeemCode: 'WIN', quantity: 100 },
        { name: 'Miss', oddsPercent: 0, isMiss: true },
      ],
      'device',
    );
    const one = cookie();
    const res = await all(50, () => play(g.id, one, ip()));
    expect(tally(res.map((r) => r.status))).toEqual({ 200: 1, 403: 49 });
    expect(new Set(res.filter((r) => r.status === 403).map((r) => r.body.error))).toEqual(
      new Set(['You have already played']),
    );
    const address = ip();
    const sameIp = await all(50, () => play(g.id, cookie(), address));
    expect(tally(sameIp.map((r) => r.status))).toEqual({ 200: 1, 403: 49 });
    const plays = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from instant_win_plays where game_id = ${g.id}`,
    );
    const tier = await queryOne<{ remaining: number }>(
      env.db,
      sql`select remaining from instant_win_tiers where id = ${g.tiers[0]!.id}`,
    );
    // the 98 refused plays took no stock
    expect([plays!.n, tier!.remaining]).toEqual([2, 98]);
    console.log(
      `50 plays, one cookie: ${tally(res.map((r) => r.status))[200]} × 200, ${tally(res.map((r) => r.status))[403]} × 403; one IP: ${tally(sameIp.map((r) => r.status))[403]} × 403`,
    );
  });

  it('20 concurrent claims of one play: one claim, one entry, one email (same email and 20 different ones)', async () => {
    const g = await newGame([
      { name: 'Prize', oddsPercent: 100, deliveryType: 'unique_code', codes: ['C1', 'C2'] },
      { name: 'Miss', oddsPercent: 0, isMiss: true },
    ]);
    const claimAll = async (emailOf: (i: number) => string) => {
      const p = await play(g.id);
      const { playId, playCookie } = p.body.data;
      const res = await all(20, (i) =>
        env.request('POST', `${BASE}/${g.id}/plays/${playId}/claim`, {
          key: t.publicKey,
          body: { email: emailOf(i), playCookie },
          headers: { 'x-forwarded-for': ip() },
        }),
      );
      return { playId, res };
    };
    const same = await claimAll(() => 'rush@example.com');
    expect(tally(same.res.map((r) => r.status))).toEqual({ 200: 20 });
    expect(same.res.filter((r) => r.body.data.alreadyClaimed === false)).toHaveLength(1);
    const coupons = new Set(same.res.map((r) => r.body.data.couponCode));
    expect(coupons.size).toBe(1);
    const distinct = await claimAll((i) => `racer${i}@example.com`);
    expect(tally(distinct.res.map((r) => r.status))).toEqual({ 200: 1, 409: 19 });
    const winner = distinct.res.find((r) => r.status === 200)!;
    expect(winner.body.data.alreadyClaimed).toBe(false);
    const entries = await query<{ email: string }>(
      env.db,
      sql`select email from entries where contest_id = ${g.id} order by email`,
    );
    const mails = await query<{ to: string }>(
      env.db,
      sql`select "to" from email_outbox where contest_id = ${g.id} order by "to"`,
    );
    const claimed = await query<{ id: string; email: string }>(
      env.db,
      sql`select id, email from instant_win_plays where game_id = ${g.id} and status = 'claimed' order by email`,
    );
    const winnerEmail = claimed.find((c) => c.id === distinct.playId)!.email;
    expect(entries.map((e) => e.email)).toEqual(['rush@example.com', winnerEmail].sort());
    expect(mails.map((m) => m.to)).toEqual(['rush@example.com', winnerEmail].sort());
    expect(claimed).toHaveLength(2);
    console.log(
      `20 claims, same email: ${same.res.filter((r) => !r.body.data.alreadyClaimed).length} new + ${same.res.filter((r) => r.body.data.alreadyClaimed).length} alreadyClaimed; 20 emails: 1 × 200, ${tally(distinct.res.map((r) => r.status))[409]} × 409; entries ${entries.length}, emails ${mails.length}`,
    );
  });

  it('wins past 24 h cannot be claimed, and concurrent sweeps give their stock back exactly once', async () => {
    const g = await newGame([
      { name: 'Prize', oddsPercent: 60, redeemCode: 'WIN', quantity: 30 },
      {
        name: 'Code',
        oddsPercent: 40,
        deliveryType: 'unique_code',
        codes: Array.from({ length: 30 }, (_, i) => `EXP-${i}`),
      },
    ]);
    const res = await all(60, () => play(g.id));
    expect(res.every((r) => r.status === 200)).toBe(true);
    const won = res.filter((r) => !r.body.data.result.isMiss).map((r) => r.body.data);
    const before = await query<{ id: string; remaining: number | null; handed_out: number }>(
      env.db,
      sql`select id, remaining, handed_out from instant_win_tiers where game_id = ${g.id} order by position`,
    );
    const codesTaken = (await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from instant_win_codes where game_id = ${g.id} and play_id is not null`,
    ))!.n;
    expect(before[0]!.handed_out + codesTaken).toBe(won.length);
    expect(before[0]!.remaining).toBe(30 - before[0]!.handed_out);

    env.clock.advance(24 * HOUR + 1000);
    // refused at once, before any sweep
    const late = await all(10, (i) =>
      env.request('POST', `${BASE}/${g.id}/plays/${won[i]!.playId}/claim`, {
        key: t.publicKey,
        body: { email: `late${i}@example.com`, playCookie: won[i]!.playCookie },
      }),
    );
    expect(new Set(late.map((r) => `${r.status} ${r.body.error}`))).toEqual(
      new Set(['410 This prize reservation has expired']),
    );

    // 8 sweeps at once, in small batches so that they really interleave
    const now = env.clock.now();
    // the sweep covers every game: the earlier tests' wins are due too
    const due = (await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from instant_win_plays where status = 'pending' and expires_at <= ${now.toISOString()}::timestamptz`,
    ))!.n;
    const counts = await all(8, () => sweepExpiredPlays(env.db, now, { batchSize: 3 }));
    expect(counts.reduce((s, n) => s + n, 0)).toBe(due);
    const after = await query<{ remaining: number | null; handed_out: number }>(
      env.db,
      sql`select remaining, handed_out from instant_win_tiers where game_id = ${g.id} order by position`,
    );
    expect(after).toEqual([
      { remaining: 30, handed_out: 0 },
      { remaining: null, handed_out: 0 },
    ]);
    const freeCodes = (await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from instant_win_codes where game_id = ${g.id} and play_id is null`,
    ))!.n;
    expect(freeCodes).toBe(30);
    const statuses = await query<{ status: string; n: number }>(
      env.db,
      sql`select status, count(*)::int as n from instant_win_plays where game_id = ${g.id} group by status order by status`,
    );
    expect(statuses).toEqual([
      { status: 'expired', n: won.length },
      ...(won.length < 60 ? [{ status: 'miss', n: 60 - won.length }] : []),
    ]);
    expect(await sweepExpiredPlays(env.db, now)).toBe(0);
    console.log(
      `expiry: ${won.length} wins of this game (${due} due in all) expired by 8 concurrent sweeps (${counts.join('+')}); remaining back to ${after[0]!.remaining}, ${freeCodes} codes free`,
    );
  });

  it('sweeps racing new plays: the stock given back is handed out again, never more than the quantity', async () => {
    const g = await newGame([
      { name: 'Prize', oddsPercent: 100, redeemCode: 'WIN', quantity: 20 },
      { name: 'Miss', oddsPercent: 0, isMiss: true },
    ]);
    const first = await all(40, () => play(g.id));
    expect(first.filter((r) => !r.body.data.result.isMiss)).toHaveLength(20);
    env.clock.advance(25 * HOUR);
    const now = env.clock.now();
    const [sweeps, plays] = await Promise.all([
      all(4, () => sweepExpiredPlays(env.db, now, { batchSize: 2 })),
      all(100, () => play(g.id)),
    ]);
    expect(sweeps.reduce((s, n) => s + n, 0)).toBe(20);
    const pending = (await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from instant_win_plays where game_id = ${g.id} and status = 'pending'`,
    ))!.n;
    const tier = await queryOne<{ remaining: number; handed_out: number }>(
      env.db,
      sql`select remaining, handed_out from instant_win_tiers where id = ${g.tiers[0]!.id}`,
    );
    expect(pending).toBe(plays.filter((r) => !r.body.data.result.isMiss).length);
    expect(pending).toBeLessThanOrEqual(20);
    expect(tier).toEqual({ remaining: 20 - pending, handed_out: pending });
    console.log(`sweeps racing 100 plays: ${pending} new wins from the returned stock, remaining ${tier!.remaining}`);
  });
});
