/**
 * Instant-win games (contract §6): CRUD with every validation message, the draw and its stock,
 * entry limits, claims and all their refusals, expiry with the injected clock, the sweep, tier
 * edits that keep inventory right, delete, the plays log and the rate limit.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../db/client.js';
import { drawTier } from './draw.js';
import { normalizeTiers } from './input.js';
import { hashCookie } from './hashing.js';
import { sweepExpiredPlays } from './sweep.js';
import { clientSeedFor, nextNonce } from '../../test/support/fairness.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

const neverLimit = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };
let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;
let ipSeq = 0;
const nextIp = () => `198.51.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: neverLimit });
  a = await env.team('A');
  b = await env.team('B');
});
/** Claims trigger prize-email delivery in the background: let it finish before the database goes. */
async function emailsSettled(e: TestEnv) {
  for (let i = 0; i < 200; i++) {
    const row = await queryOne<{ n: number }>(
      e.db,
      sql`select count(*)::int as n from email_outbox where status = 'pending'`,
    );
    if (!row?.n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 100));
}
afterAll(async () => {
  await emailsSettled(env);
  await env.close();
});

const BASE = '/api/v1/instant-win-games';
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const HOUR = 3600_000;

const prize = (o: Record<string, unknown> = {}) => ({ name: '10% off', oddsPercent: 50, redeemCode: 'SAVE10', ...o });
const miss = (o: Record<string, unknown> = {}) => ({ name: 'Try again', oddsPercent: 50, isMiss: true, ...o });
const gameBody = (o: Record<string, unknown> = {}) => ({
  slug: 'spin-to-win',
  title: 'Spin the wheel',
  mechanic: 'wheel',
  layout: 'default',
  entryLimit: 'none',
  publishAs: 'landing',
  tiers: [prize(), miss()],
  ...o,
});

async function newGame(o: Record<string, unknown> = {}, team = a) {
  const r = await env.request('POST', BASE, { key: team.privateKey, body: gameBody(o) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; tiers: { id: string; name: string }[] } & Record<string, any>;
}
const getGame = async (id: string, key = a.privateKey) =>
  (await env.request('GET', `${BASE}/${id}`, { key })).body.data;

/**
 * A play. With `r`, the play's provably fair number is made to land within `tol` of r and in the
 * tier r draws: the test reads the game's current seed and picks a clientSeed that gives such a
 * number (the number itself comes from the seed, as in production).
 */
async function play(gameId: string, o: { cookie?: string; ip?: string; key?: string; r?: number; tol?: number } = {}) {
  const body: Record<string, unknown> = o.cookie ? { playCookie: o.cookie } : {};
  if (o.r !== undefined) {
    const target = o.r;
    const tol = o.tol ?? 0.4;
    const tiers = await query<{ id: string; odds_percent: number }>(
      env.db,
      sql`select id, odds_percent from instant_win_tiers where game_id = ${gameId} and archived_at is null order by position, id`,
    );
    const odds = tiers.map((t) => ({ id: t.id, oddsPercent: Number(t.odds_percent) }));
    const want = drawTier(target, odds)?.id;
    const nonce = await nextNonce(env.db, gameId, o.cookie ? await hashCookie(o.cookie) : null);
    body.clientSeed = await clientSeedFor(
      env.db,
      gameId,
      nonce,
      (r) => Math.abs(r - target) <= tol && drawTier(r, odds)?.id === want,
    );
  }
  return env.request('POST', `${BASE}/${gameId}/play`, {
    key: o.key ?? a.publicKey,
    body,
    headers: { 'x-forwarded-for': o.ip ?? nextIp() },
  });
}
function claim(gameId: string, playId: string, body: Record<string, unknown>, key = a.publicKey) {
  return env.request('POST', `${BASE}/${gameId}/plays/${playId}/claim`, {
    key,
    body,
    headers: { 'x-forwarded-for': nextIp() },
  });
}
async function win(gameId: string, r = 1) {
  const p = await play(gameId, { r });
  expect(p.status).toBe(200);
  expect(p.body.data.result.isMiss).toBe(false);
  return p.body.data as { playId: string; playCookie: string; result: { id: string; name: string } };
}

const count = async (table: string, where = sql`true`) =>
  (await queryOne<{ n: number }>(env.db, sql`select count(*)::int as n from ${sql.raw(table)} where ${where}`))!.n;
const tierRow = async (id: string) =>
  (await queryOne<{ quantity: number | null; remaining: number | null; handed_out: number }>(
    env.db,
    sql`select quantity, remaining, handed_out from instant_win_tiers where id = ${id}`,
  ))!;
/** Everything a refused request must leave unchanged. */
async function snapshot() {
  return query(
    env.db,
    sql`select (select count(*)::int from contests) as contests, (select count(*)::int from instant_win_tiers) as tiers,
               (select count(*)::int from instant_win_codes) as codes, (select count(*)::int from instant_win_codes where play_id is null) as free_codes,
               (select count(*)::int from instant_win_plays) as plays, (select coalesce(sum(remaining), 0)::int from instant_win_tiers) as remaining,
               (select count(*)::int from instant_win_plays where status = 'claimed') as claimed,
               (select count(*)::int from entries) as entries, (select count(*)::int from email_outbox) as emails`,
  );
}

describe('create', () => {
  it('answers 201 with the game as get shows it to a private key, active by default', async () => {
    const r = await env.request('POST', BASE, {
      key: a.privateKey,
      body: gameBody({
        description: 'Win a prize',
        tiers: [
          prize({ quantity: 10, color: '#ff0000' }),
          {
            name: 'Free gift',
            oddsPercent: 20,
            deliveryType: 'unique_code',
            codes: ['GIFT-1', 'GIFT-2'],
            redeemUrl: 'https://shop.test/redeem',
          },
          { name: 'Visit', oddsPercent: 10, redeemUrl: 'https://shop.test/welcome' },
          miss({ oddsPercent: 20, redeemCode: 'IGNORED', quantity: 3 }),
        ],
      }),
    });
    expect(r.status).toBe(201);
    const g = r.body.data;
    expect(g).toMatchObject({
      slug: 'spin-to-win',
      title: 'Spin the wheel',
      description: 'Win a prize',
      status: 'active',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'landing',
      embedUrl: null,
      stats: { plays: 0, wins: 0, claims: 0 },
    });
    expect(g.tiers.map((t: Record<string, unknown>) => ({ ...t, id: typeof t.id }))).toEqual([
      {
        id: 'string',
        name: '10% off',
        oddsPercent: 50,
        isMiss: false,
        color: '#ff0000',
        deliveryType: 'code',
        quantity: 10,
        remaining: 10,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: 'SAVE10',
        redeemUrl: null,
        codes: [],
      },
      {
        id: 'string',
        name: 'Free gift',
        oddsPercent: 20,
        isMiss: false,
        color: null,
        deliveryType: 'unique_code',
        quantity: null,
        remaining: null,
        codesTotal: 2,
        codesAvailable: 2,
        redeemCode: null,
        redeemUrl: 'https://shop.test/redeem',
        codes: ['GIFT-1', 'GIFT-2'],
      },
      {
        id: 'string',
        name: 'Visit',
        oddsPercent: 10,
        isMiss: false,
        color: null,
        deliveryType: 'url',
        quantity: null,
        remaining: null,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: null,
        redeemUrl: 'https://shop.test/welcome',
        codes: [],
      },
      // a miss stores no fulfilment and no quantity
      {
        id: 'string',
        name: 'Try again',
        oddsPercent: 20,
        isMiss: true,
        color: null,
        deliveryType: null,
        quantity: null,
        remaining: null,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: null,
        redeemUrl: null,
        codes: [],
      },
    ]);
    expect(await getGame(g.id)).toEqual(g);
    // it is a contest with tool type instant_win whose slug is the preset
    const list = await env.request('GET', '/api/v1/contests?toolType=instant_win', { key: a.publicKey });
    expect(list.body.data.find((c: { id: string }) => c.id === g.id)).toMatchObject({
      slug: 'spin-to-win',
      toolType: 'instant_win',
      title: 'Spin the wheel',
    });
  });

  it('combines any preset with any mechanic; two games may share a preset; takes status, embed and ignores unknown fields', async () => {
    const g1 = await newGame({ slug: 'golden-egg', mechanic: 'slots', layout: 'fullscreen', entryLimit: 'daily' });
    const g2 = await newGame({
      slug: 'golden-egg',
      mechanic: 'claw',
      status: 'draft',
      publishAs: 'embed',
      embedUrl: 'https://brand.test/page',
      teamId: b.teamId,
      id: MISSING_ID,
      stats: { plays: 99 },
    });
    expect(g1).toMatchObject({ slug: 'golden-egg', mechanic: 'slots', layout: 'fullscreen', entryLimit: 'daily' });
    expect(g2).toMatchObject({
      slug: 'golden-egg',
      mechanic: 'claw',
      status: 'draft',
      publishAs: 'embed',
      embedUrl: 'https://brand.test/page',
    });
    expect(g2.id).not.toBe(MISSING_ID);
    expect(g2.stats).toEqual({ plays: 0, wins: 0, claims: 0 });
    expect((await env.request('GET', `${BASE}/${g2.id}`, { key: b.privateKey })).status).toBe(404);
  });

  it('refuses every bad body with a clear 400 and creates nothing', async () => {
    const before = await snapshot();
    const many = Array.from({ length: 1000 }, (_, i) => ({ name: `t${i}`, oddsPercent: 0.1, isMiss: true }));
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: 'nope' }, 'Unknown slug'],
      [{ slug: 'coupon-roulette' }, 'Unknown slug'],
      [{ slug: 'in-store-kiosk' }, 'Unknown slug'],
      [{ slug: undefined }, 'slug is required'],
      [{ title: undefined }, 'title is required'],
      [{ title: '   ' }, 'title must not be empty'],
      [{ mechanic: 'spinner' }, 'mechanic must be one of wheel, scratch, box, advent, plinko, slots, egg, claw'],
      [{ layout: 'tiny' }, 'layout must be one of default, fullscreen'],
      [{ entryLimit: 'weekly' }, 'entryLimit must be one of none, daily, device'],
      [{ publishAs: 'popup' }, 'publishAs must be one of landing, embed'],
      [{ status: 'live' }, 'status must be one of draft, active, paused, ended'],
      [{ publishAs: 'embed' }, 'embedUrl is required when publishAs is embed'],
      [{ publishAs: 'embed', embedUrl: 'javascript:alert(1)' }, 'embedUrl must be an http(s) URL'],
      [{ tiers: undefined }, 'tiers is required'],
      [{ tiers: 'two' }, 'Invalid tiers'],
      [{ tiers: [] }, 'At least two tiers are required'],
      [{ tiers: [prize({ oddsPercent: 100 })] }, 'At least two tiers are required'],
      [{ tiers: many }, 'At most 50 tiers are allowed'],
      [{ tiers: [prize({ oddsPercent: 50 }), miss({ oddsPercent: 49.9999 })] }, 'Tier odds must sum to 100'],
      [{ tiers: [prize({ oddsPercent: 50 }), miss({ oddsPercent: 50.0001 })] }, 'Tier odds must sum to 100'],
      [{ tiers: [prize({ oddsPercent: '50' }), miss()] }, 'Invalid tiers.0.oddsPercent'],
      [{ tiers: [prize({ oddsPercent: 'NaN' }), miss()] }, 'Invalid tiers.0.oddsPercent'],
      [{ tiers: [prize({ oddsPercent: undefined }), miss()] }, 'tiers.0.oddsPercent is required'],
      [
        { tiers: [prize({ oddsPercent: -10 }), miss({ oddsPercent: 110 })] },
        'tiers[0].oddsPercent must be a number between 0 and 100',
      ],
      [
        { tiers: [prize({ oddsPercent: 150 }), miss({ oddsPercent: -50 })] },
        'tiers[0].oddsPercent must be a number between 0 and 100',
      ],
      [{ tiers: [prize({ name: ' ' }), miss()] }, 'tiers[0].name must not be empty'],
      [{ tiers: [prize({ redeemCode: undefined }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [{ tiers: [prize({ redeemCode: '  ' }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [
        { tiers: [prize({ deliveryType: 'code', redeemCode: undefined, redeemUrl: 'https://x.test' }), miss()] },
        'Each prize tier needs a redeemCode or redeemUrl',
      ],
      [{ tiers: [prize({ deliveryType: 'url' }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [{ tiers: [prize({ deliveryType: 'coupon' }), miss()] }, 'Invalid tiers.0.deliveryType'],
      [
        { tiers: [prize({ deliveryType: 'unique_code' }), miss()] },
        'tiers[0].codes must list at least one code for deliveryType unique_code',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: [] }), miss()] },
        'tiers[0].codes must list at least one code for deliveryType unique_code',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A'], quantity: 1 }), miss()] },
        'tiers[0].quantity is not used with deliveryType unique_code: each code is one prize',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A', 'B', ' A '] }), miss()] },
        'tiers[0].codes lists "A" twice',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A', ''] }), miss()] },
        'tiers[0].codes[1] must be 1 to 100 printable characters',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['x'.repeat(101)] }), miss()] },
        'tiers[0].codes[0] must be 1 to 100 printable characters',
      ],
      [{ tiers: [prize({ deliveryType: 'unique_code', codes: [42] }), miss()] }, 'Invalid tiers.0.codes.0'],
      [{ tiers: [prize({ codes: ['A'] }), miss()] }, 'tiers[0].codes are only used with deliveryType unique_code'],
      [{ tiers: [prize({ quantity: 1.5 }), miss()] }, 'tiers[0].quantity must be a whole number from 0 to 1000000000'],
      [{ tiers: [prize({ quantity: -1 }), miss()] }, 'tiers[0].quantity must be a whole number from 0 to 1000000000'],
      [{ tiers: [prize({ quantity: '5' }), miss()] }, 'Invalid tiers.0.quantity'],
      [{ tiers: [prize({ redeemUrl: 'ftp://files.test/x' }), miss()] }, 'tiers[0].redeemUrl must be an http(s) URL'],
      [{ tiers: [prize(), miss({ isMiss: 'yes' })] }, 'Invalid tiers.1.isMiss'],
      [{ tiers: [prize(), 'miss'] }, 'Invalid tiers.1'],
    ];
    for (const [over, message] of cases) {
      const r = await env.request('POST', BASE, { key: a.privateKey, body: gameBody(over) });
      expect([over, r.status, r.body]).toEqual([over, 400, { success: false, error: message }]);
    }
    // odds as strings in raw JSON, Infinity (1e999) and NaN (not JSON at all)
    const raw = JSON.stringify(gameBody({ tiers: [prize({ oddsPercent: 12345 }), miss()] }));
    const inf = await env.request('POST', BASE, { key: a.privateKey, rawBody: raw.replace('12345', '1e999') });
    expect(inf.body).toEqual({ success: false, error: 'tiers[0].oddsPercent must be a number between 0 and 100' });
    const nan = await env.request('POST', BASE, { key: a.privateKey, rawBody: raw.replace('12345', 'NaN') });
    expect([nan.status, nan.body]).toEqual([400, { success: false, error: 'Invalid request body' }]);
    // a 1 MB code list never reaches the handler
    const huge = gameBody({
      tiers: [
        prize({ deliveryType: 'unique_code', codes: Array.from({ length: 100_000 }, (_, i) => `CODE-${i}`) }),
        miss(),
      ],
    });
    const big = await env.request('POST', BASE, { key: a.privateKey, body: huge });
    expect(JSON.stringify(huge).length).toBeGreaterThan(1_000_000);
    expect([big.status, big.body]).toEqual([413, { success: false, error: 'Request body too large' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts odds that add up to 100 within 0.000001, and bounds the code count of a tier', () => {
    const thirds = [
      prize({ oddsPercent: 33.3333333 }),
      prize({ oddsPercent: 33.3333333 }),
      miss({ oddsPercent: 33.3333333 }),
    ];
    expect(normalizeTiers(thirds as never)).toHaveLength(3);
    const codes = Array.from({ length: 10_001 }, (_, i) => `C${i}`);
    expect(() => normalizeTiers([prize({ deliveryType: 'unique_code', codes }), miss()] as never)).toThrow(
      'tiers[0].codes may list at most 10000 codes',
    );
    expect(
      normalizeTiers([prize({ deliveryType: 'unique_code', codes: codes.slice(0, 10_000) }), miss()] as never)[0]!
        .codes,
    ).toHaveLength(10_000);
  });

  it('needs a private key', async () => {
    const r = await env.request('POST', BASE, { key: a.publicKey, body: gameBody() });
    expect([r.status, r.body]).toEqual([403, { success: false, error: 'This endpoint requires a private API key' }]);
  });
});

describe('get and list', () => {
  it('never shows fulfilment to a public key', async () => {
    const g = await newGame({
      tiers: [
        prize({ oddsPercent: 40, redeemCode: 'SECRET-CODE' }),
        prize({ name: 'Link', oddsPercent: 30, redeemCode: undefined, redeemUrl: 'https://secret.test/x' }),
        prize({
          name: 'Pool',
          oddsPercent: 10,
          redeemCode: undefined,
          deliveryType: 'unique_code',
          codes: ['SECRET-POOL-1'],
        }),
        miss({ oddsPercent: 20 }),
      ],
    });
    const pub = await env.request('GET', `${BASE}/${g.id}`, { key: a.publicKey });
    const list = await env.request('GET', BASE, { key: a.publicKey });
    for (const text of [pub.text, list.text]) {
      expect(text).not.toMatch(/SECRET|secret\.test|redeemCode|redeemUrl|"codes"/);
    }
    expect(pub.body.data.tiers[2]).toEqual({
      id: g.tiers[2]!.id,
      name: 'Pool',
      oddsPercent: 10,
      isMiss: false,
      color: null,
      deliveryType: 'unique_code',
      quantity: null,
      remaining: null,
      codesTotal: 1,
      codesAvailable: 1,
    });
    // a private key sees them; the list gives code counts but not the code lists
    const priv = await env.request('GET', BASE, { key: a.privateKey });
    const inList = priv.body.data.find((x: { id: string }) => x.id === g.id);
    expect(inList.tiers[0].redeemCode).toBe('SECRET-CODE');
    expect(inList.tiers[2]).not.toHaveProperty('codes');
    expect((await getGame(g.id)).tiers[2].codes).toEqual(['SECRET-POOL-1']);
  });

  it('answers 404 Game not found for another team, an unknown or a malformed id, and a plain contest', async () => {
    const g = await newGame();
    const campaign = await env.contest(a.teamId);
    for (const [id, key] of [
      [g.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['not-a-uuid', a.publicKey],
      [campaign.id, a.publicKey],
    ] as const) {
      const r = await env.request('GET', `${BASE}/${id}`, { key });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Game not found' }]);
    }
  });

  it('lists the team games newest first, paginated, filtered by preset (retired presets too)', async () => {
    const team = await env.team('Lister');
    const made: string[] = [];
    for (const slug of ['plinko', 'plinko', 'mystery-box']) {
      env.clock.advance(1000);
      made.push((await newGame({ slug }, team)).id);
    }
    const all = await env.request('GET', BASE, { key: team.publicKey });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual(made.slice().reverse());
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    const page2 = await env.request('GET', `${BASE}?page=2&limit=2`, { key: team.publicKey });
    expect(page2.body.data.map((x: { id: string }) => x.id)).toEqual([made[0]]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const past = await env.request('GET', `${BASE}?page=5&limit=2`, { key: team.publicKey });
    expect([past.status, past.body.data, past.body.pagination]).toEqual([
      200,
      [],
      { page: 5, limit: 2, total: 3, totalPages: 2 },
    ]);
    const plinko = await env.request('GET', `${BASE}?slug=plinko`, { key: team.publicKey });
    expect(plinko.body.data.map((x: { id: string }) => x.id)).toEqual([made[1], made[0]]);
    const retired = await env.request('GET', `${BASE}?slug=trade-show-prize-wheel`, { key: team.publicKey });
    expect([retired.status, retired.body.data, retired.body.pagination.total]).toEqual([200, [], 0]);
    for (const [qs, message] of [
      ['?slug=nope', 'Unknown slug'],
      ['?limit=0', 'limit must be between 1 and 100'],
      ['?limit=101', 'limit must be between 1 and 100'],
      ['?page=0', 'page must be a positive integer'],
      ['?page=x', 'page must be a positive integer'],
    ]) {
      const r = await env.request('GET', `${BASE}${qs}`, { key: team.publicKey });
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error: message }]);
    }
    // another team sees none of them
    const other = await env.request('GET', `${BASE}?slug=plinko`, { key: b.publicKey });
    expect(other.body.data.filter((x: { id: string }) => made.includes(x.id))).toEqual([]);
  });
});

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
    for (let i = 0; i < 120; i++) expect((await play(g.id)).status).toBe(200);
    const tiers = (await getGame(g.id)).tiers as { id: string; oddsPercent: number }[];
    const rows = await query<{ random_value: number; tier_id: string }>(
      env.db,
      sql`select random_value, tier_id from instant_win_plays where game_id = ${g.id}`,
    );
    expect(rows).toHaveLength(126);
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
      await emailsSettled(rl);
      await rl.close();
    }
  });
});
