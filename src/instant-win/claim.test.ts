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
  claim,
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
  win,
} from '../../test/support/fixtures/instant-win.js';
import { query, queryOne } from '../db/client.js';
import { sweepExpiredPlays } from './sweep.js';

describe('claim', () => {
  it('claims a win: entry in the game contest, play claimed, prize email queued with the code', async () => {
    const g = await newGame({ title: 'Summer <Spin>', tiers: [prize({ redeemUrl: 'https://shop.test/use' }), miss()] });
    const w = await win(g.id);
    const r = await claim(g.id, w.playId, { email: '  Winner@Example.COM ', playCookie: w.playCookie });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: { alreadyClaimed: false, prizeName: '10% off', couponCode: 'SAVE10', redeemUrl: 'https://shop.test/use' },
    });
    const entry = await queryOne<Record<string, unknown>>(
      env.db,
      sql`select * from entries where contest_id = ${g.id}`,
    );
    expect(entry).toMatchObject({
      email: 'winner@example.com',
      email_confirmed: false,
      points: 0,
      disqualified: false,
    });
    expect(entry!.referral_code).toMatch(/^[A-Za-z0-9]{10}$/);
    const p = await queryOne<Record<string, unknown>>(
      env.db,
      sql`select status, email, entry_id, claimed_at from instant_win_plays where id = ${w.playId}`,
    );
    expect(p).toMatchObject({ status: 'claimed', email: 'winner@example.com', entry_id: entry!.id });
    expect(p!.claimed_at).not.toBeNull();
    const mails = await query<Record<string, string>>(
      env.db,
      sql`select * from email_outbox where contest_id = ${g.id}`,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      to: 'winner@example.com',
      kind: 'prize',
      team_id: a.teamId,
      subject: 'You won: 10% off',
    });
    expect(mails[0]!.text).toContain('Your code: SAVE10');
    expect(mails[0]!.text).toContain('https://shop.test/use');
    expect(mails[0]!.html).toContain('Summer &lt;Spin&gt;');
    expect((await getGame(g.id)).stats).toEqual({ plays: 1, wins: 1, claims: 1 });
    const c = await env.request('GET', `/api/v1/contests/${g.id}`, { key: a.publicKey });
    expect(c.body.data.entriesCount).toBe(1);
  });

  it('the same email again answers alreadyClaimed with the same prize; another email 409; nothing changes', async () => {
    const g = await newGame({
      tiers: [prize({ deliveryType: 'unique_code', redeemCode: undefined, codes: ['ONLY-ONE'] }), miss()],
    });
    const w = await win(g.id);
    const first = await claim(g.id, w.playId, { email: 'same@example.com', playCookie: w.playCookie });
    expect(first.body.data).toEqual({
      alreadyClaimed: false,
      prizeName: '10% off',
      couponCode: 'ONLY-ONE',
      redeemUrl: null,
    });
    const before = await snapshot();
    const again = await claim(g.id, w.playId, { email: 'SAME@example.com', playCookie: w.playCookie });
    expect([again.status, again.body.data]).toEqual([
      200,
      { alreadyClaimed: true, prizeName: '10% off', couponCode: 'ONLY-ONE', redeemUrl: null },
    ]);
    const other = await claim(g.id, w.playId, { email: 'other@example.com', playCookie: w.playCookie });
    expect([other.status, other.body]).toEqual([409, { success: false, error: 'This prize has already been claimed' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses: invalid email, no cookie, other device, a miss, unknown play, a play of another game, another team', async () => {
    const g = await newGame();
    const g2 = await newGame();
    const w = await win(g.id);
    const w2 = await win(g2.id);
    const lost = await play(g.id, { r: 99 });
    const before = await snapshot();
    const cases: [string, string, Record<string, unknown>, number, string, string?][] = [
      [g.id, w.playId, { playCookie: w.playCookie }, 400, 'Invalid email'],
      [g.id, w.playId, { email: 'not-an-email', playCookie: w.playCookie }, 400, 'Invalid email'],
      [g.id, w.playId, { email: 42, playCookie: w.playCookie }, 400, 'Invalid email'],
      [g.id, w.playId, { email: 'x@example.com' }, 400, 'playCookie is required'],
      [g.id, w.playId, { email: 'x@example.com', playCookie: null }, 400, 'playCookie is required'],
      [g.id, w.playId, { email: 'x@example.com', playCookie: 'bad' }, 400, 'Invalid playCookie'],
      [
        g.id,
        w.playId,
        { email: 'x@example.com', playCookie: w2.playCookie },
        403,
        'This play belongs to another device',
      ],
      [
        g.id,
        lost.body.data.playId,
        { email: 'x@example.com', playCookie: lost.body.data.playCookie },
        400,
        'This play did not win a prize',
      ],
      [g.id, MISSING_ID, { email: 'x@example.com', playCookie: w.playCookie }, 404, 'Play not found'],
      [g.id, 'not-a-uuid', { email: 'x@example.com', playCookie: w.playCookie }, 404, 'Play not found'],
      [g.id, w2.playId, { email: 'x@example.com', playCookie: w2.playCookie }, 404, 'Play not found'],
      [g.id, w.playId, { email: 'x@example.com', playCookie: w.playCookie }, 404, 'Game not found', b.publicKey],
      [MISSING_ID, w.playId, { email: 'x@example.com', playCookie: w.playCookie }, 404, 'Game not found'],
    ];
    for (const [gameId, playId, body, status, error, key] of cases) {
      const r = await claim(gameId, playId, body, key);
      expect([body, r.status, r.body]).toEqual([body, status, { success: false, error }]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('reuses the entry of an email that already claimed; a url prize has no couponCode', async () => {
    const g = await newGame({ tiers: [prize({ redeemCode: undefined, redeemUrl: 'https://x.test/r' }), miss()] });
    for (let i = 0; i < 2; i++) {
      const w = await win(g.id);
      const r = await claim(g.id, w.playId, { email: 'twice@example.com', playCookie: w.playCookie });
      expect(r.body.data).toEqual({
        alreadyClaimed: false,
        prizeName: '10% off',
        couponCode: null,
        redeemUrl: 'https://x.test/r',
      });
    }
    expect(await count('entries', sql`contest_id = ${g.id}`)).toBe(1);
    expect(await count('email_outbox', sql`contest_id = ${g.id}`)).toBe(2);
    const entryIds = await query(env.db, sql`select distinct entry_id from instant_win_plays where game_id = ${g.id}`);
    expect(entryIds).toHaveLength(1);
  });

  it('a disqualified entry cannot claim (403 Entry is disqualified)', async () => {
    const g = await newGame();
    const w1 = await win(g.id);
    await claim(g.id, w1.playId, { email: 'cheat@example.com', playCookie: w1.playCookie });
    await query(env.db, sql`update entries set disqualified = true where contest_id = ${g.id}`);
    const w2 = await win(g.id);
    const before = await snapshot();
    const r = await claim(g.id, w2.playId, { email: 'cheat@example.com', playCookie: w2.playCookie });
    expect([r.status, r.body]).toEqual([403, { success: false, error: 'Entry is disqualified' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('a win stays claimable after the game is paused (the reservation holds)', async () => {
    const g = await newGame();
    const w = await win(g.id);
    await env.request('PUT', `${BASE}/${g.id}`, { key: a.privateKey, body: { status: 'paused' } });
    expect((await play(g.id)).status).toBe(409);
    const r = await claim(g.id, w.playId, { email: 'paused@example.com', playCookie: w.playCookie });
    expect(r.body.data.alreadyClaimed).toBe(false);
  });
});

describe('expiry', () => {
  it('a win past 24 h is refused (410) at once, shows expired, and the sweep gives its unit back exactly once', async () => {
    const g = await newGame({ tiers: [prize({ quantity: 3 }), miss()] });
    const w = await win(g.id);
    const w2 = await win(g.id);
    expect(await tierRow(g.tiers[0]!.id)).toEqual({ quantity: 3, remaining: 1, handed_out: 2 });
    // (the test clock runs on with real time: set it relative to the stored expiry)
    const expiresAt = async (id: string) =>
      new Date(
        (await queryOne<{ expires_at: Date }>(env.db, sql`select expires_at from instant_win_plays where id = ${id}`))!
          .expires_at,
      ).getTime();
    env.clock.set(new Date((await expiresAt(w2.playId)) - 2000));
    expect((await claim(g.id, w2.playId, { email: 'intime@example.com', playCookie: w2.playCookie })).status).toBe(200);
    env.clock.set(new Date(await expiresAt(w.playId)));
    const before = await snapshot();
    const late = await claim(g.id, w.playId, { email: 'late@example.com', playCookie: w.playCookie });
    expect([late.status, late.body]).toEqual([410, { success: false, error: 'This prize reservation has expired' }]);
    expect(await snapshot()).toEqual(before);
    // no sweep yet: the log already says expired, the unit is still held
    const log = await env.request('GET', `${BASE}/${g.id}/plays?status=expired`, { key: a.privateKey });
    expect(log.body.data.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([[w.playId, 'expired']]);
    const pending = await env.request('GET', `${BASE}/${g.id}/plays?status=pending`, { key: a.privateKey });
    expect(pending.body.data).toEqual([]);
    expect(await tierRow(g.tiers[0]!.id)).toMatchObject({ remaining: 1 });
    // the clock stands still between the two sweeps (another game's win of this file could
    // otherwise expire in the milliseconds between them)
    env.clock.freeze();
    const swept = await sweepExpiredPlays(env.db, env.clock.now());
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(await tierRow(g.tiers[0]!.id)).toEqual({ quantity: 3, remaining: 2, handed_out: 1 });
    expect(await sweepExpiredPlays(env.db, env.clock.now())).toBe(0);
    env.clock.thaw();
    expect(await tierRow(g.tiers[0]!.id)).toEqual({ quantity: 3, remaining: 2, handed_out: 1 });
    const stored = await queryOne(env.db, sql`select status from instant_win_plays where id = ${w.playId}`);
    expect(stored).toEqual({ status: 'expired' });
    expect((await claim(g.id, w.playId, { email: 'late@example.com', playCookie: w.playCookie })).status).toBe(410);
    // claimed plays never expire
    expect(await queryOne(env.db, sql`select status from instant_win_plays where id = ${w2.playId}`)).toEqual({
      status: 'claimed',
    });
    expect((await getGame(g.id)).stats).toEqual({ plays: 2, wins: 2, claims: 1 });
  });

  it('an expired unique code goes back to the pool and is handed out again', async () => {
    const g = await newGame({
      tiers: [
        prize({ deliveryType: 'unique_code', redeemCode: undefined, codes: ['ONE'], oddsPercent: 100 }),
        miss({ oddsPercent: 0 }),
      ],
    });
    const w = await win(g.id);
    expect((await play(g.id)).body.data.result.isMiss).toBe(true);
    env.clock.advance(25 * HOUR);
    await sweepExpiredPlays(env.db, env.clock.now());
    expect((await getGame(g.id)).tiers[0]).toMatchObject({ codesTotal: 1, codesAvailable: 1 });
    expect(await queryOne(env.db, sql`select code_id from instant_win_plays where id = ${w.playId}`)).toEqual({
      code_id: null,
    });
    const w2 = await win(g.id);
    const r = await claim(g.id, w2.playId, { email: 'second@example.com', playCookie: w2.playCookie });
    expect(r.body.data.couponCode).toBe('ONE');
  });
});
