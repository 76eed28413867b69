/** GET /api/v1/contests, GET /api/v1/contests/:id, POST /api/v1/contests/:id/views (with a public key, or none for a contest with public sign-ups) */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query } from '../db/client.js';

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;
const ids: string[] = [];
let gate: { id: string };
let bContest: { id: string };

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
  for (let i = 0; i < 5; i++) ids.push((await env.contest(a.teamId, { title: `Campaign ${i}` })).id);
  gate = await env.contest(a.teamId, { title: 'Gate', toolType: 'content_gate' });
  bContest = await env.contest(b.teamId, { title: 'Other team' });
});
afterAll(() => env.close());

const list = (qs = '', key = a.publicKey) => env.request('GET', `/api/v1/contests${qs}`, { key });

describe('list contests', () => {
  it('lists only the team’s campaigns (tool type null) by default, newest first, with the reference fields', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data.map((c: { title: string }) => c.title)).toEqual([
      'Campaign 4',
      'Campaign 3',
      'Campaign 2',
      'Campaign 1',
      'Campaign 0',
    ]);
    expect(r.body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    const c = r.body.data[0];
    expect(c).toMatchObject({
      id: ids[4],
      title: 'Campaign 4',
      description: null,
      status: 'active',
      startDate: null,
      endDate: null,
      isEvergreen: true,
      mode: 'giveaway',
      slug: 'campaign-4',
      entriesCount: 0,
    });
    expect(c).not.toHaveProperty('viewsCount');
  });

  it('filters tools by toolType', async () => {
    const r = await list('?toolType=content_gate');
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual([gate.id]);
    expect(r.body.data[0].toolType).toBe('content_gate');
    const iw = await list('?toolType=instant_win');
    expect(iw.status).toBe(200);
    expect(iw.body.data).toEqual([]);
  });

  it('refuses an unknown toolType with 400', async () => {
    for (const tt of ['campaign', 'INSTANT_WIN', '']) {
      const r = await list(`?toolType=${tt}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'toolType must be one of content_gate, instant_win' });
    }
  });

  it('paginates with page and limit', async () => {
    const p2 = await list('?page=2&limit=2');
    expect(p2.body.data.map((c: { title: string }) => c.title)).toEqual(['Campaign 2', 'Campaign 1']);
    expect(p2.body.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    const last = await list('?page=3&limit=2');
    expect(last.body.data).toHaveLength(1);
    const past = await list('?page=9&limit=2');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toEqual({ page: 9, limit: 2, total: 5, totalPages: 3 });
    const max = await list('?limit=100');
    expect(max.body.pagination.limit).toBe(100);
  });

  it('refuses page/limit out of range or not integers', async () => {
    for (const [qs, msg] of [
      ['?page=0', 'page must be a positive integer'],
      ['?page=-1', 'page must be a positive integer'],
      ['?page=1.5', 'page must be a positive integer'],
      ['?page=abc', 'page must be a positive integer'],
      ['?page=', 'page must be a positive integer'],
      ['?limit=0', 'limit must be between 1 and 100'],
      ['?limit=101', 'limit must be between 1 and 100'],
      ['?limit=-5', 'limit must be between 1 and 100'],
      ['?limit=2.5', 'limit must be between 1 and 100'],
      ['?limit=1e2', 'limit must be between 1 and 100'],
    ]) {
      const r = await list(qs);
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error: msg }]);
    }
  });

  it('never shows another team’s contests', async () => {
    const r = await list('', b.publicKey);
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual([bContest.id]);
  });

  it('counts entries', async () => {
    await query(
      env.db,
      sql`insert into entries (contest_id, email, referral_code) values (${ids[0]}, 'x@example.com', 'REFCOUNT01'), (${ids[0]}, 'y@example.com', 'REFCOUNT02')`,
    );
    const r = await env.request('GET', `/api/v1/contests/${ids[0]}`, { key: a.publicKey });
    expect(r.body.data.entriesCount).toBe(2);
  });
});

describe('get contest', () => {
  it('answers one contest with viewsCount', async () => {
    const r = await env.request('GET', `/api/v1/contests/${ids[1]}`, { key: a.privateKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: ids[1], title: 'Campaign 1', viewsCount: 0 });
  });

  it('answers another team’s contest, an unknown id and a malformed id exactly alike', async () => {
    for (const id of [bContest.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1' or '1'='1"]) {
      const r = await env.request('GET', `/api/v1/contests/${encodeURIComponent(id)}`, { key: a.publicKey });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, error: 'Contest not found' });
    }
  });

  it('answers 400 Missing contestId when the id is blank', async () => {
    for (const p of ['/api/v1/contests/%20', '/api/v1/contests/']) {
      const r = await env.request('GET', p, { key: a.publicKey });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: 'Missing contestId' });
    }
  });

  it('shows the effective status: a stored active contest past its endDate reads ended unless evergreen', async () => {
    const past = new Date(env.clock.now().getTime() - 3600_000).toISOString();
    const start = new Date(env.clock.now().getTime() - 7200_000).toISOString();
    const ended = await env.contest(a.teamId, { title: 'Over', isEvergreen: false, startDate: start, endDate: past });
    const evergreen = await env.contest(a.teamId, {
      title: 'Forever',
      isEvergreen: true,
      startDate: start,
      endDate: past,
    });
    const r1 = await env.request('GET', `/api/v1/contests/${ended.id}`, { key: a.publicKey });
    expect(r1.body.data.status).toBe('ended');
    expect(r1.body.data.endDate).toBe(past);
    const r2 = await env.request('GET', `/api/v1/contests/${evergreen.id}`, { key: a.publicKey });
    expect(r2.body.data.status).toBe('active');
    // the clock decides: before the end it is active
    const future = await env.contest(a.teamId, {
      title: 'Soon over',
      isEvergreen: false,
      endDate: new Date(env.clock.now().getTime() + 60_000).toISOString(),
    });
    expect((await env.request('GET', `/api/v1/contests/${future.id}`, { key: a.publicKey })).body.data.status).toBe(
      'active',
    );
    env.clock.advance(120_000);
    expect((await env.request('GET', `/api/v1/contests/${future.id}`, { key: a.publicKey })).body.data.status).toBe(
      'ended',
    );
    env.clock.advance(-120_000);
  });
});

describe('views', () => {
  it('counts one page view per call and feeds viewsCount', async () => {
    const r1 = await env.request('POST', `/api/v1/contests/${ids[2]}/views`, { key: a.publicKey });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ success: true, data: { viewsCount: 1 } });
    await env.request('POST', `/api/v1/contests/${ids[2]}/views`, { key: a.publicKey });
    const g = await env.request('GET', `/api/v1/contests/${ids[2]}`, { key: a.publicKey });
    expect(g.body.data.viewsCount).toBe(2);
  });

  it('does not count views of another team’s contest', async () => {
    const r = await env.request('POST', `/api/v1/contests/${bContest.id}/views`, { key: a.publicKey });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: 'Contest not found' });
    const rows = await query<{ views_count: string | number }>(
      env.db,
      sql`select views_count from contests where id = ${bContest.id}`,
    );
    expect(Number(rows[0]!.views_count)).toBe(0);
  });

  it("without a key: a contest that takes public sign-ups counts its visitor's view, kept with its time for the funnel", async () => {
    const open = await env.contest(a.teamId, { title: 'Keyless views', publicSignup: true });
    env.clock.freeze();
    const r = await env.request('POST', `/api/v1/contests/${open.id}/views`);
    expect([r.status, r.body]).toEqual([200, { success: true, data: { viewsCount: 1 } }]);
    const rows = await query<{ created_at: Date }>(
      env.db,
      sql`select created_at from page_views where contest_id = ${open.id}`,
    );
    // the time of the clock the app was given, not the database's
    expect(rows.map((x) => new Date(x.created_at).toISOString())).toEqual([env.clock.now().toISOString()]);
    env.clock.thaw();
    const funnel = await env.request(
      'GET',
      `/api/v1/contests/${open.id}/funnel?from=${env.clock.now().toISOString().slice(0, 10)}`,
      { key: a.privateKey },
    );
    expect(funnel.body.data.totals.views).toBe(1);
    expect(funnel.body.data.buckets.map((x: { views: number }) => x.views)).toContain(1);
  });

  it('without a key, a contest without public sign-ups answers 401 and counts nothing', async () => {
    const before = await query<{ n: number }>(env.db, sql`select count(*)::int as n from page_views`);
    const r = await env.request('POST', `/api/v1/contests/${ids[3]}/views`);
    expect([r.status, r.body]).toEqual([401, { success: false, error: 'Missing or invalid API key' }]);
    expect(await query<{ n: number }>(env.db, sql`select count(*)::int as n from page_views`)).toEqual(before);
  });

  it('uses the Missing or invalid API key wording', async () => {
    const r = await env.request('POST', `/api/v1/contests/${ids[2]}/views`);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, error: 'Missing or invalid API key' });
  });
});
