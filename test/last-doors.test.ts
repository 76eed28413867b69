/**
 * What an erasure, a disqualification and a page still left behind, each closed (Node):
 * - the public cache drops a contest's answers at once when one of its entries is erased or
 *   disqualified (it used to serve the person's name and email until the copy expired);
 * - answers that carry personal data (the leaderboard) go out `Cache-Control: private`;
 * - erasure takes what the person wrote for manual bonus actions, the hashes of their IP address
 *   and user agent, and their share of the risk windows;
 * - every write on an erased entry answers 404, like every read;
 * - a deployment without IP_HASH_SALT hashes with a random salt of its own, kept in the database;
 * - the demo and verification pages can be framed by the app's own pages only.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBonusAction } from '../src/admin/admin.js';
import { query, queryOne } from '../src/db/client.js';
import { ipHashSalt, loadOrMakeSalt } from '../src/db/secrets.js';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const entry = async (contestId: string, body: Record<string, unknown>) => {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body });
  expect(r.status, r.text).toBe(201);
  return r.body.data.entryId as string;
};
const board = async (contestId: string) => {
  const r = await env.request('GET', `/api/v1/contests/${contestId}/leaderboard`, { key: t.publicKey });
  expect(r.status, r.text).toBe(200);
  return { text: r.text, cacheControl: r.headers.get('cache-control') };
};

describe('the public cache after an erasure or a disqualification', () => {
  it('an erased person leaves the cached leaderboard at once; the answer was private', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, publicCacheSeconds: 60 });
    const id = await entry(c.id, { email: 'erase.me@example.com', name: 'Erin Erased' });
    const first = await board(c.id);
    expect(first.text).toContain('erase.me@example.com');
    expect(first.text).toContain('Erin Erased');
    expect(first.cacheControl).toBe('private, max-age=60');
    // served from the cache meanwhile
    expect((await board(c.id)).text).toBe(first.text);
    const erased = await env.request('DELETE', `/api/v1/entries/${id}`, { key: t.privateKey });
    expect([erased.status, erased.body]).toEqual([200, { success: true, data: { entryId: id, erased: true } }]);
    const after = await board(c.id);
    expect(after.text).not.toContain('erase.me@example.com');
    expect(after.text).not.toContain('Erin');
  });

  it('a disqualified entry leaves the cached leaderboard at once; other contests keep their copies', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false, publicCacheSeconds: 60 });
    const other = await env.contest(t.teamId, { requireEmailConfirmation: false, publicCacheSeconds: 60 });
    const id = await entry(c.id, { email: 'cheater@example.com' });
    await entry(other.id, { email: 'bystander@example.com' });
    expect((await board(c.id)).text).toContain('cheater@example.com');
    const otherFirst = await env.request('GET', `/api/v1/contests/${other.id}/leaderboard`, { key: t.publicKey });
    const dq = await env.request('POST', `/api/v1/entries/${id}/disqualify`, {
      key: t.privateKey,
      body: { disqualify: true },
    });
    expect([dq.status, dq.body.data]).toEqual([
      200,
      { entryId: id, disqualified: true, message: 'Entry has been disqualified' },
    ]);
    expect((await board(c.id)).text).not.toContain('cheater@example.com');
    const otherAgain = await env.request('GET', `/api/v1/contests/${other.id}/leaderboard`, { key: t.publicKey });
    // still the cached copy: no statement for the other contest
    expect(otherAgain.headers.get('server-timing')).toContain('0 round trips');
    expect(otherAgain.text).toBe(otherFirst.text);
  });

  it('what carries no personal data (the contest, a game) stays public', async () => {
    const c = await env.contest(t.teamId, { publicCacheSeconds: 30 });
    const r = await env.request('GET', `/api/v1/contests/${c.id}`, { key: t.publicKey });
    expect(r.headers.get('cache-control')).toBe('public, max-age=30');
  });
});

describe('erasure reaches what the person wrote and the hashes kept of them', () => {
  it("proof and answer, the IP and user-agent hashes and the person's share of the risk windows go", async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const ref = await entry(c.id, { email: 'referrer@example.com', ipAddress: '192.0.2.10' });
    const refCode = (await queryOne<{ code: string }>(
      env.db,
      sql`select referral_code as code from entries where id = ${ref}`,
    ))!.code;
    const id = await entry(c.id, {
      email: 'writer@example.com',
      referralCode: refCode,
      ipAddress: '192.0.2.77',
      userAgent: 'Mozilla/5.0 (the person)',
    });
    await entry(c.id, { email: 'neighbour@example.com', ipAddress: '192.0.2.77' });
    const action = await createBonusAction(env.db, c.id, { action: 'Tell us', points: 5, confirmationType: 'manual' });
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
      key: t.publicKey,
      body: { proof: 'https://social.example/writer', answer: 'I am Wendy Writer, writer@example.com' },
    });
    expect(done.status, done.text).toBe(200);
    const before = await queryOne<{ ip: string; ua: string }>(
      env.db,
      sql`select ip_hash as ip, user_agent_hash as ua from entries where id = ${id}`,
    );
    expect(before!.ip).toMatch(/^[0-9a-f]{64}$/);
    const windows = () =>
      query<{ kind: string; key: string; n: number; times: number }>(
        env.db,
        sql`select kind, key, n::int as n, cardinality(times) as times from risk_windows
            where contest_id = ${c.id} and kind in ('ip', 'ref') order by kind, key`,
      );
    const ipWindow = (await windows()).find((w) => w.kind === 'ip' && w.key === before!.ip);
    expect(ipWindow).toMatchObject({ n: 2, times: 2 });
    expect((await windows()).find((w) => w.kind === 'ref' && w.key === ref)).toMatchObject({ n: 1, times: 1 });

    expect((await env.request('DELETE', `/api/v1/entries/${id}`, { key: t.privateKey })).status).toBe(200);

    const row = await queryOne<Record<string, unknown>>(
      env.db,
      sql`select ip_hash, user_agent_hash, email, name from entries where id = ${id}`,
    );
    expect(row).toEqual({ ip_hash: null, user_agent_hash: null, email: null, name: null });
    const proofs = await query(env.db, sql`select proof, answer from bonus_completions where entry_id = ${id}`);
    expect(proofs).toEqual([{ proof: null, answer: null }]);
    // the neighbour's visit from the same address still counts; the person's does not
    expect((await windows()).find((w) => w.kind === 'ip' && w.key === before!.ip)).toMatchObject({ n: 1, times: 1 });
    // the referrer's window held only the person: it is gone
    expect((await windows()).find((w) => w.kind === 'ref' && w.key === ref)).toBeUndefined();
    // what the API serves of the completions has nothing the person wrote
    const listed = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions`, { key: t.privateKey });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).not.toContain('Wendy');
    expect(listed.text).not.toContain('social.example');
  });

  it('a window the person alone was in goes whole, with the hash that keyed it', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const id = await entry(c.id, { email: 'alone@example.com', ipAddress: '198.51.100.200' });
    const hash = (await queryOne<{ h: string }>(env.db, sql`select ip_hash as h from entries where id = ${id}`))!.h;
    expect((await env.request('DELETE', `/api/v1/entries/${id}`, { key: t.privateKey })).status).toBe(200);
    expect(await query(env.db, sql`select 1 from risk_windows where key = ${hash}`)).toEqual([]);
  });
});

describe('an erased entry takes no more writes', () => {
  it('approving or rejecting its pending completion, reviewing it, adjusting its points: 404, nothing changes', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const id = await entry(c.id, { email: 'gone@example.com' });
    const action = await createBonusAction(env.db, c.id, { action: 'Photo', points: 50, confirmationType: 'manual' });
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/complete`, {
      key: t.publicKey,
      body: { proof: 'https://x.example/p' },
    });
    expect(done.status).toBe(200);
    expect((await env.request('DELETE', `/api/v1/entries/${id}`, { key: t.privateKey })).status).toBe(200);
    const verify = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action.id}/verify`, {
      key: t.privateKey,
      body: { approve: true },
    });
    expect([verify.status, verify.body]).toEqual([404, { success: false, error: 'Entry or bonus action not found' }]);
    const review = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.privateKey,
      body: { decision: 'approve' },
    });
    expect([review.status, review.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    const points = await env.request('POST', `/api/v1/entries/${id}/points`, {
      key: t.privateKey,
      body: { points: 5, reason: 'x' },
    });
    expect(points.status).toBe(404);
    const state = await queryOne<{ points: number; status: string }>(
      env.db,
      sql`select e.points, bc.status from entries e join bonus_completions bc on bc.entry_id = e.id where e.id = ${id}`,
    );
    expect(state).toEqual({ points: 0, status: 'pending' });
  });
});

describe('the salt of the hashes', () => {
  it('without IP_HASH_SALT: a random salt made once, kept in the database, the same for every process', async () => {
    const bare = await createTestEnv({ backend: 'pglite' });
    try {
      bare.deps.config.ipHashSalt = undefined;
      const a = await ipHashSalt(bare.deps);
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      // another process (here: the same database read again) finds the same salt
      expect(await loadOrMakeSalt(bare.db, bare.deps.random)).toBe(a);
      const rows = await query(bare.db, sql`select name from deployment_secrets`);
      expect(rows).toEqual([{ name: 'ip_hash_salt' }]);
      // and entries are hashed with it
      const team = await bare.team();
      const c = await bare.contest(team.teamId, { requireEmailConfirmation: false });
      const r = await bare.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: 'salted@example.com', ipAddress: '203.0.113.9' },
      });
      expect(r.status, r.text).toBe(201);
      const { hashIp } = await import('../src/lib/ip-hash.js');
      const stored = await queryOne<{ h: string }>(
        bare.db,
        sql`select ip_hash as h from entries where email = 'salted@example.com'`,
      );
      expect(stored!.h).toBe(await hashIp(a, '203.0.113.9'));
      expect(stored!.h).not.toBe(await hashIp('contest-engine-dev-salt', '203.0.113.9'));
    } finally {
      await bare.close();
    }
  });
});

describe('pages that other sites cannot frame', () => {
  it("the widget's demo page and a draw's verification page: frame-ancestors 'self'", async () => {
    const pages = [
      `/demo/instant-win/00000000-0000-4000-8000-000000000000?key=${t.publicKey}`,
      '/draws/00000000-0000-4000-8000-000000000000/verify',
    ];
    for (const path of pages) {
      const r = await env.request('GET', path);
      expect(r.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy'), path).toContain("frame-ancestors 'self'");
      expect(r.headers.get('x-frame-options'), path).toBe('SAMEORIGIN');
    }
  });
});
