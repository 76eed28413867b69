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
  gameBody,
  getGame,
  HOUR,
  miss,
  newGame,
  play,
  prize,
  snapshot,
  tierRow,
  win,
} from '../../test/support/fixtures/instant-win.js';
import { createTestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';
import { sweepExpiredPlays } from './sweep.js';

describe('update', () => {
  it('changes title, description, status and publish mode; keeps mechanic, layout, entryLimit and slug', async () => {
    const g = await newGame({ entryLimit: 'device' });
    const r = await env.request('PUT', `${BASE}/${g.id}`, {
      key: a.privateKey,
      body: {
        title: 'New title',
        description: 'New text',
        status: 'paused',
        publishAs: 'embed',
        embedUrl: 'https://brand.test/x',
        mechanic: 'claw',
        layout: 'fullscreen',
        entryLimit: 'none',
        slug: 'plinko',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      title: 'New title',
      description: 'New text',
      status: 'paused',
      publishAs: 'embed',
      embedUrl: 'https://brand.test/x',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'device',
      slug: 'spin-to-win',
    });
    expect(await getGame(g.id)).toEqual(r.body.data);
    const noop = await env.request('PUT', `${BASE}/${g.id}`, { key: a.privateKey, body: { mechanic: 'egg' } });
    expect(noop.body.data).toMatchObject({ title: 'New title', mechanic: 'wheel' });
    const cleared = await env.request('PUT', `${BASE}/${g.id}`, {
      key: a.privateKey,
      body: { description: null, publishAs: 'landing' },
    });
    expect(cleared.body.data).toMatchObject({
      description: null,
      publishAs: 'landing',
      embedUrl: 'https://brand.test/x',
    });
  });

  it('refuses bad input with 400 and changes nothing; 404 for another team; 403 for a public key', async () => {
    const g = await newGame();
    const other = await newGame();
    const before = await snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ publishAs: 'embed' }, 'embedUrl is required when publishAs is embed'],
      [{ status: 'gone' }, 'status must be one of draft, active, paused, ended'],
      [{ title: '' }, 'title must not be empty'],
      [{ tiers: [prize()] }, 'At least two tiers are required'],
      [{ tiers: [prize(), miss({ oddsPercent: 49.9999 })] }, 'Tier odds must sum to 100'],
      [{ tiers: [prize({ id: other.tiers[0]!.id }), miss()] }, 'tiers[0].id is not a tier of this game'],
      [{ tiers: [prize({ id: g.tiers[0]!.id }), miss({ id: g.tiers[0]!.id })] }, 'tiers[1].id appears twice'],
      [
        { title: 'Changed', tiers: [prize({ redeemCode: undefined }), miss()] },
        'Each prize tier needs a redeemCode or redeemUrl',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await env.request('PUT', `${BASE}/${g.id}`, { key: a.privateKey, body });
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error: message }]);
    }
    expect((await getGame(g.id)).title).toBe('Spin the wheel');
    expect((await env.request('PUT', `${BASE}/${g.id}`, { key: b.privateKey, body: { title: 'x' } })).body).toEqual({
      success: false,
      error: 'Game not found',
    });
    expect((await env.request('PUT', `${BASE}/${g.id}`, { key: a.publicKey, body: { title: 'x' } })).status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it('a new quantity counts the units already handed out; expiries after a cut never push remaining past it', async () => {
    const g = await newGame({ tiers: [prize({ quantity: 10 }), miss()] });
    const t = g.tiers[0]!.id;
    const wins = [await win(g.id), await win(g.id), await win(g.id)];
    await claim(g.id, wins[0]!.playId, { email: 'keep@example.com', playCookie: wins[0]!.playCookie });
    expect(await tierRow(t)).toEqual({ quantity: 10, remaining: 7, handed_out: 3 });
    const put = (quantity: number | null) =>
      env.request('PUT', `${BASE}/${g.id}`, {
        key: a.privateKey,
        body: { tiers: [prize({ id: t, quantity }), miss({ id: g.tiers[1]!.id })] },
      });
    expect((await put(5)).body.data.tiers[0]).toMatchObject({ quantity: 5, remaining: 2 });
    expect((await put(2)).body.data.tiers[0]).toMatchObject({ quantity: 2, remaining: 0 });
    // remaining 0: the draw gives the miss
    expect((await play(g.id, { r: 1 })).body.data.result.isMiss).toBe(true);
    // the two unclaimed wins expire: 2 - 1 claimed = 1 left, not 0 + 2
    env.clock.advance(25 * HOUR);
    await sweepExpiredPlays(env.db, env.clock.now());
    expect(await tierRow(t)).toEqual({ quantity: 2, remaining: 1, handed_out: 1 });
    // unlimited, then limited again: the claimed unit still counts
    expect((await put(null)).body.data.tiers[0]).toMatchObject({ quantity: null, remaining: null });
    await win(g.id);
    expect((await put(4)).body.data.tiers[0]).toMatchObject({ quantity: 4, remaining: 2 });
  });

  it('adds codes to a pool; codes already reserved stay with their plays', async () => {
    const g = await newGame({
      tiers: [
        prize({ deliveryType: 'unique_code', redeemCode: undefined, codes: ['A', 'B'], oddsPercent: 50 }),
        miss(),
      ],
    });
    const t = g.tiers[0]!.id;
    const w = await win(g.id);
    const reserved = (await queryOne<{ code: string }>(
      env.db,
      sql`select code from instant_win_codes where play_id = ${w.playId}`,
    ))!.code;
    const r = await env.request('PUT', `${BASE}/${g.id}`, {
      key: a.privateKey,
      body: {
        tiers: [{ id: t, name: 'Gift card', oddsPercent: 50, codes: ['A', 'B', 'C'] }, miss({ id: g.tiers[1]!.id })],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.tiers[0]).toMatchObject({
      name: 'Gift card',
      deliveryType: 'unique_code',
      codesTotal: 3,
      codesAvailable: 2,
      codes: ['A', 'B', 'C'],
    });
    // a PUT that sends no codes keeps the pool
    const keep = await env.request('PUT', `${BASE}/${g.id}`, {
      key: a.privateKey,
      body: { tiers: [{ id: t, name: 'Gift card', oddsPercent: 60 }, miss({ id: g.tiers[1]!.id, oddsPercent: 40 })] },
    });
    expect(keep.body.data.tiers[0]).toMatchObject({ codesTotal: 3, codesAvailable: 2 });
    const c = await claim(g.id, w.playId, { email: 'pool@example.com', playCookie: w.playCookie });
    expect(c.body.data).toMatchObject({ prizeName: 'Gift card', couponCode: reserved });
  });

  it('archives removed tiers: out of the draw and the game, still in the plays log; kinds of tiers with plays are fixed', async () => {
    const g = await newGame({ tiers: [prize({ name: 'Old prize', oddsPercent: 50 }), miss({ name: 'Old miss' })] });
    const w = await win(g.id);
    const before = await snapshot();
    for (const [tiers, message] of [
      [
        [miss({ id: g.tiers[0]!.id }), miss()],
        'tiers[0] has plays: a prize tier cannot become a miss (leave it out and add a new tier)',
      ],
      [
        [prize({ id: g.tiers[0]!.id, deliveryType: 'unique_code', codes: ['X'] }), miss()],
        'tiers[0] has plays: its deliveryType cannot change to or from unique_code (leave it out and add a new tier)',
      ],
    ] as const) {
      const r = await env.request('PUT', `${BASE}/${g.id}`, { key: a.privateKey, body: { tiers } });
      expect([r.status, r.body]).toEqual([400, { success: false, error: message }]);
    }
    expect(await snapshot()).toEqual(before);
    const r = await env.request('PUT', `${BASE}/${g.id}`, {
      key: a.privateKey,
      body: {
        tiers: [
          prize({ name: 'New prize', oddsPercent: 10, redeemCode: 'NEW' }),
          miss({ name: 'New miss', oddsPercent: 90 }),
        ],
      },
    });
    expect(r.body.data.tiers.map((t: { name: string }) => t.name)).toEqual(['New prize', 'New miss']);
    expect(await count('instant_win_tiers', sql`game_id = ${g.id} and archived_at is not null`)).toBe(2);
    // the old prize is no longer drawn: r = 20 was 'Old prize', now it falls in 'New miss'
    expect((await play(g.id, { r: 20 })).body.data.result.name).toBe('New miss');
    expect((await play(g.id, { r: 5 })).body.data.result.name).toBe('New prize');
    // the old win keeps its tier and can still be claimed with the old fulfilment
    const log = await env.request('GET', `${BASE}/${g.id}/plays?status=pending`, { key: a.privateKey });
    expect(log.body.data.find((p: { id: string }) => p.id === w.playId).tier).toEqual({
      id: g.tiers[0]!.id,
      name: 'Old prize',
      isMiss: false,
    });
    const c = await claim(g.id, w.playId, { email: 'old@example.com', playCookie: w.playCookie });
    expect(c.body.data).toEqual({
      alreadyClaimed: false,
      prizeName: 'Old prize',
      couponCode: 'SAVE10',
      redeemUrl: null,
    });
    // a tier without plays may change kind
    const fresh = await newGame();
    const k = await env.request('PUT', `${BASE}/${fresh.id}`, {
      key: a.privateKey,
      body: {
        tiers: [
          miss({ id: fresh.tiers[0]!.id }),
          prize({ id: fresh.tiers[1]!.id, deliveryType: 'unique_code', redeemCode: undefined, codes: ['Q'] }),
        ],
      },
    });
    expect(
      k.body.data.tiers.map((t: { isMiss: boolean; deliveryType: string | null }) => [t.isMiss, t.deliveryType]),
    ).toEqual([
      [true, null],
      [false, 'unique_code'],
    ]);
  });
});

describe('delete', () => {
  it('deletes a game without claims, with its tiers, codes and plays', async () => {
    const g = await newGame({
      tiers: [prize({ deliveryType: 'unique_code', redeemCode: undefined, codes: ['D1'] }), miss()],
    });
    await win(g.id);
    const r = await env.request('DELETE', `${BASE}/${g.id}`, { key: a.privateKey });
    expect(r.body).toEqual({ success: true, data: { id: g.id, deleted: true } });
    expect((await env.request('GET', `${BASE}/${g.id}`, { key: a.privateKey })).status).toBe(404);
    for (const table of ['instant_win_tiers', 'instant_win_codes', 'instant_win_plays'])
      expect(await count(table, sql`game_id = ${g.id}`)).toBe(0);
  });

  it('answers 409 when plays were claimed, unless force=true', async () => {
    const g = await newGame();
    const w = await win(g.id);
    await claim(g.id, w.playId, { email: 'claimed@example.com', playCookie: w.playCookie });
    for (const qs of ['', '?force=false']) {
      const r = await env.request('DELETE', `${BASE}/${g.id}${qs}`, { key: a.privateKey });
      expect([r.status, r.body]).toEqual([
        409,
        { success: false, error: 'Game has claimed entries; pass force=true to delete' },
      ]);
    }
    const bad = await env.request('DELETE', `${BASE}/${g.id}?force=yes`, { key: a.privateKey });
    expect([bad.status, bad.body]).toEqual([400, { success: false, error: 'force must be true or false' }]);
    expect((await env.request('DELETE', `${BASE}/${g.id}?force=true`, { key: b.privateKey })).body).toEqual({
      success: false,
      error: 'Game not found',
    });
    expect((await env.request('DELETE', `${BASE}/${g.id}?force=true`, { key: a.publicKey })).status).toBe(403);
    expect(await count('contests', sql`id = ${g.id}`)).toBe(1);
    const ok = await env.request('DELETE', `${BASE}/${g.id}?force=true`, { key: a.privateKey });
    expect(ok.body).toEqual({ success: true, data: { id: g.id, deleted: true } });
    expect(await count('contests', sql`id = ${g.id}`)).toBe(0);
    expect(await count('entries', sql`contest_id = ${g.id}`)).toBe(0);
  });
});

describe('plays log', () => {
  it('lists plays newest first with status, tier, email and times; filters by status; paginates', async () => {
    const g = await newGame();
    const ids: string[] = [];
    for (const r of [1, 99, 2]) {
      env.clock.advance(1000);
      ids.push((await play(g.id, { r })).body.data.playId);
    }
    const w = await play(g.id, { r: 3 });
    ids.push(w.body.data.playId);
    await claim(g.id, w.body.data.playId, { email: 'log@example.com', playCookie: w.body.data.playCookie });
    const all = await env.request('GET', `${BASE}/${g.id}/plays`, { key: a.privateKey });
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    expect(all.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice().reverse());
    const first = all.body.data[0];
    expect(first).toEqual({
      id: w.body.data.playId,
      status: 'claimed',
      tier: { id: g.tiers[0]!.id, name: '10% off', isMiss: false },
      email: 'log@example.com',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      claimedAt: expect.any(String),
      drawnTier: { id: g.tiers[0]!.id, name: '10% off' },
      clientSeed: expect.stringMatching(/^t\d+$/),
      nonce: 1,
      seedId: g.fairness.seedId,
    });
    expect(all.body.data[2]).toMatchObject({
      status: 'miss',
      tier: { id: g.tiers[1]!.id, name: 'Try again', isMiss: true },
      email: null,
      expiresAt: null,
      claimedAt: null,
    });
    const statuses = async (status: string) =>
      (await env.request('GET', `${BASE}/${g.id}/plays?status=${status}`, { key: a.privateKey })).body.data.map(
        (p: { status: string }) => p.status,
      );
    expect(await statuses('pending')).toEqual(['pending', 'pending']);
    expect(await statuses('miss')).toEqual(['miss']);
    expect(await statuses('claimed')).toEqual(['claimed']);
    expect(await statuses('expired')).toEqual([]);
    const p2 = await env.request('GET', `${BASE}/${g.id}/plays?page=2&limit=3`, { key: a.privateKey });
    expect([p2.body.data.map((p: { id: string }) => p.id), p2.body.pagination]).toEqual([
      [ids[0]],
      { page: 2, limit: 3, total: 4, totalPages: 2 },
    ]);
    for (const [qs, message] of [
      ['?status=won', 'status must be one of pending, claimed, miss, expired'],
      ['?limit=500', 'limit must be between 1 and 100'],
    ]) {
      const r = await env.request('GET', `${BASE}/${g.id}/plays${qs}`, { key: a.privateKey });
      expect([r.status, r.body]).toEqual([400, { success: false, error: message }]);
    }
    expect((await env.request('GET', `${BASE}/${g.id}/plays`, { key: b.privateKey })).body).toEqual({
      success: false,
      error: 'Game not found',
    });
    expect((await env.request('GET', `${BASE}/${g.id}/plays`, { key: a.publicKey })).body).toEqual({
      success: false,
      error: 'This endpoint requires a private API key',
    });
  });
});

describe('rate limit', () => {
  it('allows 30 plays and claims a minute per IP address per game, then 429 with Retry-After', async () => {
    const rl = await createTestEnv({ backend: env.backend });
    try {
      const t = await rl.team();
      const mk = async () =>
        (
          await rl.request('POST', BASE, {
            key: t.privateKey,
            body: gameBody({ tiers: [prize({ oddsPercent: 100 }), miss({ oddsPercent: 0 })] }),
          })
        ).body.data.id as string;
      const g = await mk();
      const g2 = await mk();
      const hit = (gameId: string, ip: string) =>
        rl.request('POST', `${BASE}/${gameId}/play`, {
          key: t.publicKey,
          body: {},
          headers: { 'x-forwarded-for': ip },
        });
      for (let i = 0; i < 29; i++) expect((await hit(g, '192.0.2.50')).status).toBe(200);
      const last = await hit(g, '192.0.2.50');
      // the 31st request of the minute is a claim: it counts in the same bucket
      const over = await rl.request('POST', `${BASE}/${g}/plays/${last.body.data.playId}/claim`, {
        key: t.publicKey,
        body: { email: 'rl@example.com', playCookie: last.body.data.playCookie },
        headers: { 'x-forwarded-for': '192.0.2.50' },
      });
      expect([over.status, over.body]).toEqual([429, { success: false, error: 'Too many requests' }]);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      const tooMany = await hit(g, '192.0.2.50');
      expect(tooMany.status).toBe(429);
      const plays = await queryOne<{ n: number }>(
        rl.db,
        sql`select count(*)::int as n from instant_win_plays where game_id = ${g}`,
      );
      expect(plays!.n).toBe(30);
      // another address, or another game: fine
      expect((await hit(g, '192.0.2.51')).status).toBe(200);
      expect((await hit(g2, '192.0.2.50')).status).toBe(200);
      // a minute later: fine again
      rl.clock.advance(61_000);
      expect((await hit(g, '192.0.2.50')).status).toBe(200);
    } finally {
      await rl.close();
    }
  });
});
