/**
 * Public reads from a cache on the Worker (`publicCacheSeconds`): the isolate's copy and the
 * Workers Cache API. Statements are counted where the Worker sends them, at the local
 * SQL-over-HTTP endpoint. A changed value stays cached at most N seconds, then follows; with 0
 * every read reaches the database.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type CacheStorageLike, workersPublicCache } from '../../src/http/public-cache.js';
import { call, hasPostgres, makeContest, makeTeam, quietSqlRequests as quiet, type Team } from './support/workerd.js';

describe.skipIf(!hasPostgres)('public cache on the Worker', () => {
  let team: Team;
  beforeAll(async () => {
    team = await makeTeam('Public cache');
  });

  async function contestWithEntry(publicCacheSeconds: number) {
    const c = await makeContest(team.teamId, {
      title: `Cache ${publicCacheSeconds}`,
      requireEmailConfirmation: false,
      publicCacheSeconds,
    });
    const e = await call('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: `cache-${publicCacheSeconds}-${Date.now()}@example.com` },
    });
    expect(e.status, e.text).toBe(201);
    return { id: c.id, entryId: e.body.data.entryId as string };
  }
  const read = async (contestId: string) => {
    const before = await quiet();
    const r = await call('GET', `/api/v1/contests/${contestId}/leaderboard`, { key: team.publicKey });
    expect(r.status, r.text).toBe(200);
    return {
      points: r.body.data[0].points as number,
      sql: (await quiet()) - before,
      cacheControl: r.headers.get('cache-control'),
    };
  };
  const addPoints = async (entryId: string, points: number) => {
    const r = await call('POST', `/api/v1/entries/${entryId}/points`, {
      key: team.privateKey,
      body: { points, reason: 'cache test' },
    });
    expect(r.status, r.text).toBe(200);
  };

  it('with publicCacheSeconds 2 a changed leaderboard stays as it was at most 2 s, from no statement, then follows', async () => {
    const c = await contestWithEntry(2);
    const started = Date.now();
    expect(await read(c.id)).toEqual({ points: 0, sql: 1, cacheControl: 'private, max-age=2' });
    // the answer was stored at the latest now: it expires 2 s after this at the latest (on a
    // loaded machine the first read alone may take longer than the slack a fixed wait would leave)
    const storedBy = Date.now();
    await addPoints(c.entryId, 4);
    const cached = await read(c.id);
    if (Date.now() - started < 1900) expect(cached).toMatchObject({ points: 0, sql: 0 });
    await new Promise((r) => setTimeout(r, Math.max(0, storedBy + 2100 - Date.now())));
    expect(await read(c.id)).toEqual({ points: 4, sql: 1, cacheControl: 'private, max-age=2' });
  });

  it('with publicCacheSeconds 0 every read is exact and sends its statement', async () => {
    const c = await contestWithEntry(0);
    expect(await read(c.id)).toEqual({ points: 0, sql: 1, cacheControl: null });
    await addPoints(c.entryId, 3);
    expect(await read(c.id)).toEqual({ points: 3, sql: 1, cacheControl: null });
  });

  it('an answer kept in the Cache API is found by another isolate (a fresh copy of the layer) with its times', async () => {
    const cacheApi = (caches as unknown as { default: CacheStorageLike }).default;
    const key = `http://contests.test/api/v1/contests/x/leaderboard?ce-key=${'a'.repeat(64)}-${Date.now()}`;
    const now = Date.now();
    await workersPublicCache(cacheApi).put(key, {
      body: '{"success":true}',
      contentType: 'application/json',
      storedAt: now,
      expiresAt: now + 60_000,
    });
    expect(await workersPublicCache(cacheApi).get(key)).toEqual({
      body: '{"success":true}',
      contentType: 'application/json',
      storedAt: now,
      expiresAt: now + 60_000,
    });
    expect(await workersPublicCache(cacheApi).get(`${key}-other`)).toBeNull();
  });

  it("an erasure drops the contest's cached answers at once (the isolate's copy and the Cache API's)", async () => {
    const c = await contestWithEntry(60);
    const email = (await call('GET', `/api/v1/entries/${c.entryId}`, { key: team.privateKey })).body.data.email;
    const first = await call('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: team.publicKey });
    expect(first.text).toContain(email);
    expect(first.headers.get('cache-control')).toBe('private, max-age=60');
    const before = await quiet();
    expect((await call('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: team.publicKey })).text).toBe(first.text);
    expect((await quiet()) - before).toBe(0);
    const erased = await call('DELETE', `/api/v1/entries/${c.entryId}`, { key: team.privateKey });
    expect(erased.status, erased.text).toBe(200);
    const after = await call('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: team.publicKey });
    expect(after.text).not.toContain(email);
  });

  it('forget() deletes from the Cache API what this isolate stored, so another isolate no longer finds it', async () => {
    const cacheApi = (caches as unknown as { default: CacheStorageLike }).default;
    const key = `http://contests.test/api/v1/contests/y/leaderboard?ce-key=${'b'.repeat(64)}-${Date.now()}`;
    const now = Date.now();
    const here = workersPublicCache(cacheApi);
    await here.put(key, {
      body: '{"n":1}',
      contentType: 'application/json',
      storedAt: now,
      expiresAt: now + 60_000,
      scope: 's1',
    });
    expect((await workersPublicCache(cacheApi).get(key))?.scope).toBe('s1');
    await here.forget('s1');
    expect(await here.get(key)).toBeNull();
    expect(await workersPublicCache(cacheApi).get(key)).toBeNull();
  });
});
