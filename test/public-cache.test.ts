/**
 * Public reads from a cache when a team asks for it (`publicCacheSeconds` on a contest or game):
 * with 0 (the default) every answer is exact; above 0 a public key's read of the contest, its
 * leaderboard, its bonus actions or the game is answered from the process's cache for at most
 * that many seconds (no statement), then follows the database again. The cache key is the API
 * key and the URL: a masked key never gets an unmasked answer, an unknown key never gets any,
 * private keys are never cached. Statements are counted by the app's own Server-Timing header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../src/admin/admin.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

/** the number of database round trips the answer says it took */
const trips = (r: { headers: Headers }) =>
  Number(/(\d+) round trip/.exec(r.headers.get('server-timing') ?? '')?.[1] ?? 'NaN');

async function contestWithEntries(settings: Record<string, unknown> = {}) {
  const c = await env.contest(t.teamId, { requireEmailConfirmation: false, ...settings });
  const ids: string[] = [];
  for (const email of ['ada@example.com', 'bob@example.com']) {
    const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, { key: t.privateKey, body: { email } });
    expect(r.status, r.text).toBe(201);
    ids.push(r.body.data.entryId);
  }
  return { id: c.id, ids };
}

const addPoints = async (entryId: string, points: number) => {
  const r = await env.request('POST', `/api/v1/entries/${entryId}/points`, {
    key: t.privateKey,
    body: { points, reason: 'test' },
  });
  expect(r.status, r.text).toBe(200);
};
const topPoints = async (contestId: string, key = t.publicKey) => {
  const r = await env.request('GET', `/api/v1/contests/${contestId}/leaderboard`, { key });
  expect(r.status, r.text).toBe(200);
  return {
    points: r.body.data[0]?.points as number,
    trips: trips(r),
    cacheControl: r.headers.get('cache-control'),
    age: r.headers.get('age'),
    body: r.body,
  };
};

describe('publicCacheSeconds: 0 (the default)', () => {
  it('every public read is exact and goes to the database; nothing says it may be cached', async () => {
    const c = await contestWithEntries();
    const first = await topPoints(c.id);
    expect(first).toMatchObject({ points: 0, trips: 1, cacheControl: null });
    await addPoints(c.ids[0]!, 7);
    expect(await topPoints(c.id)).toMatchObject({ points: 7, trips: 1, cacheControl: null });
    const settings = await env.request('GET', `/api/v1/contests/${c.id}/settings`, { key: t.privateKey });
    expect(settings.body.data.publicCacheSeconds).toBe(0);
  });
});

describe('publicCacheSeconds above 0', () => {
  it('a leaderboard stays as it was for at most N seconds, from no statement, then follows', async () => {
    const c = await contestWithEntries({ publicCacheSeconds: 5 });
    const first = await topPoints(c.id);
    expect(first).toMatchObject({ points: 0, trips: 1, cacheControl: 'private, max-age=5' });
    await addPoints(c.ids[0]!, 9);
    env.clock.advance(4_000);
    const cached = await topPoints(c.id);
    expect(cached).toMatchObject({ points: 0, trips: 0, cacheControl: 'private, max-age=1', age: '4' });
    expect(cached.body).toEqual(first.body);
    // the private key reads the database, always
    const priv = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: t.privateKey });
    expect([priv.body.data[0].points, trips(priv), priv.headers.get('cache-control')]).toEqual([9, 1, null]);
    env.clock.advance(1_000);
    expect(await topPoints(c.id)).toMatchObject({ points: 9, trips: 1, cacheControl: 'private, max-age=5' });
    // another query string is another answer
    const limited = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard?limit=1`, { key: t.publicKey });
    expect([limited.body.data.length, trips(limited)]).toEqual([1, 1]);
  });

  it('the contest, its bonus actions and a game are cached the same way', async () => {
    const c = await contestWithEntries({ publicCacheSeconds: 30 });
    const path = `/api/v1/contests/${c.id}`;
    expect(trips(await env.request('GET', path, { key: t.publicKey }))).toBe(1);
    expect((await env.request('PATCH', path, { key: t.privateKey, body: { title: 'Renamed' } })).status).toBe(200);
    const contest = await env.request('GET', path, { key: t.publicKey });
    expect([contest.body.data.title, trips(contest)]).toEqual(['Test contest', 0]);

    const actions = `/api/v1/contests/${c.id}/bonus-actions`;
    expect((await env.request('GET', actions, { key: t.publicKey })).body.data).toEqual([]);
    const made = await env.request('POST', actions, {
      key: t.privateKey,
      body: { action: 'visit', points: 5, confirmationType: 'click', destinationUrl: 'https://example.com/visit' },
    });
    expect(made.status, made.text).toBe(201);
    const list = await env.request('GET', actions, { key: t.publicKey });
    expect([list.body.data, trips(list)]).toEqual([[], 0]);

    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        publicCacheSeconds: 10,
        tiers: [
          { name: 'Prize', oddsPercent: 50, redeemCode: 'X' },
          { name: 'Miss', oddsPercent: 50, isMiss: true },
        ],
      },
    });
    expect([game.status, game.body.data?.publicCacheSeconds]).toEqual([201, 10]);
    const gamePath = `/api/v1/instant-win-games/${game.body.data.id}`;
    expect(trips(await env.request('GET', gamePath, { key: t.publicKey }))).toBe(1);
    expect((await env.request('PUT', gamePath, { key: t.privateKey, body: { title: 'Spin again' } })).status).toBe(200);
    const cachedGame = await env.request('GET', gamePath, { key: t.publicKey });
    expect([cachedGame.body.data.title, trips(cachedGame), cachedGame.headers.get('cache-control')]).toEqual([
      'Spin',
      0,
      'public, max-age=10',
    ]);
    env.clock.advance(10_000);
    expect((await env.request('GET', gamePath, { key: t.publicKey })).body.data.title).toBe('Spin again');
  });

  it('a masked key never gets an unmasked answer, another team’s key gets 404, an unknown key 401, a revoked key reads the copy until it expires', async () => {
    const c = await contestWithEntries({ publicCacheSeconds: 5 });
    const full = await topPoints(c.id);
    expect(full.body.data.map((r: { email: string }) => r.email).sort()).toEqual([
      'ada@example.com',
      'bob@example.com',
    ]);
    const masked = await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'masked', 'masked');
    const m = await topPoints(c.id, masked.key);
    expect([m.trips, ...m.body.data.map((r: { email: string }) => r.email).sort()]).toEqual([
      1,
      'a***@example.com',
      'b***@example.com',
    ]);
    expect((await topPoints(c.id, masked.key)).trips).toBe(0);

    // another team's public key never gets this team's copy: its read goes to the database, 404
    const other = await env.team('Other team');
    const foreign = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: other.publicKey });
    expect([foreign.status, foreign.body, trips(foreign)]).toEqual([
      404,
      { success: false, error: 'Contest not found' },
      1,
    ]);

    const unknown = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: `pk_${'Q'.repeat(40)}` });
    expect([unknown.status, unknown.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);

    const soonRevoked = await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'soon revoked');
    expect((await topPoints(c.id, soonRevoked.key)).trips).toBe(1);
    await revokeApiKey(env.db, soonRevoked.id, env.clock.now());
    expect((await topPoints(c.id, soonRevoked.key)).trips).toBe(0); // what the docs say a revoked key can still read
    env.clock.advance(5_000);
    const after = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: soonRevoked.key });
    expect([after.status, after.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);
  });

  it('answers that are not 200 are never kept', async () => {
    const c = await contestWithEntries({ publicCacheSeconds: 5 });
    const bad = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard?limit=0`, { key: t.publicKey });
    expect(bad.status).toBe(400);
    const missing = await env.request('GET', '/api/v1/contests/00000000-0000-4000-8000-000000000000/leaderboard', {
      key: t.publicKey,
    });
    expect([missing.status, trips(missing)]).toEqual([404, 1]);
    expect(
      trips(
        await env.request('GET', '/api/v1/contests/00000000-0000-4000-8000-000000000000/leaderboard', {
          key: t.publicKey,
        }),
      ),
    ).toBe(1);
  });

  it('a revealed draw’s snapshot is kept without a setting (it never changes); a committed one is not', async () => {
    const c = await contestWithEntries();
    const made = await env.request('POST', `/api/v1/contests/${c.id}/draws`, {
      key: t.privateKey,
      body: { winners: 1 },
    });
    expect(made.status, made.text).toBe(201);
    const path = `/api/v1/draws/${made.body.data.id}/snapshot`;
    const committed = await env.request('GET', path, { key: t.publicKey });
    expect([committed.status, trips(committed), committed.headers.get('cache-control')]).toEqual([200, 1, null]);
    expect(trips(await env.request('GET', path, { key: t.publicKey }))).toBe(1);
    const revealed = await env.request('POST', `/api/v1/draws/${made.body.data.id}/reveal`, {
      key: t.privateKey,
      body: { publicRandomness: 'cache test' },
    });
    expect(revealed.status, revealed.text).toBe(200);
    const first = await env.request('GET', path, { key: t.publicKey });
    expect([trips(first), first.headers.get('cache-control')]).toEqual([1, 'private, max-age=300']);
    const again = await env.request('GET', path, { key: t.publicKey });
    expect([
      again.text,
      trips(again),
      again.headers.get('content-type'),
      again.headers.get('content-disposition'),
    ]).toEqual([committed.text, 0, 'text/csv; charset=utf-8', committed.headers.get('content-disposition')]);
  });

  it('a setting out of range answers 400 and changes nothing', async () => {
    const c = await contestWithEntries({ publicCacheSeconds: 5 });
    const message = 'publicCacheSeconds must be a whole number of seconds from 0 to 300';
    for (const value of [301, -1, 1.5, '5', null]) {
      const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
        key: t.privateKey,
        body: { publicCacheSeconds: value },
      });
      expect([value, r.status, r.body]).toEqual([value, 400, { success: false, error: message }]);
    }
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        publicCacheSeconds: 1000,
        tiers: [
          { name: 'Prize', oddsPercent: 50, redeemCode: 'X' },
          { name: 'Miss', oddsPercent: 50, isMiss: true },
        ],
      },
    });
    expect([game.status, game.body]).toEqual([400, { success: false, error: message }]);
    const settings = await env.request('GET', `/api/v1/contests/${c.id}/settings`, { key: t.privateKey });
    expect(settings.body.data.publicCacheSeconds).toBe(5);
    const ok = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: t.privateKey,
      body: { publicCacheSeconds: 0 },
    });
    expect(ok.body.data.publicCacheSeconds).toBe(0);
  });
});

if (!hasRealPostgres)
  console.warn('*** public-cache.test.ts: the concurrent-reads test is SKIPPED (needs TEST_DATABASE_URL) ***');

// PGlite answers inside the event loop, so requests never overlap there: this one needs a real server
describe.skipIf(!hasRealPostgres)('publicCacheSeconds under concurrent reads (Postgres)', () => {
  it('concurrent reads of an expired answer send one statement; the others wait for it', async () => {
    const pgEnv = await createTestEnv({ backend: 'postgres' });
    try {
      const team = await pgEnv.team();
      const c = await pgEnv.contest(team.teamId, { requireEmailConfirmation: false, publicCacheSeconds: 5 });
      const read = () => pgEnv.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: team.publicKey });
      expect(trips(await read())).toBe(1);
      pgEnv.clock.advance(5_000);
      const answers = await Promise.all(Array.from({ length: 20 }, read));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(answers.reduce((n, a) => n + trips(a), 0)).toBe(1);
    } finally {
      await pgEnv.close();
    }
  });
});
