/**
 * The entries list's filters and sort (what the console's entries table and review queue use):
 * confirmed, disqualified, referred, review=pending, sort=newest|oldest|points; bad values answer
 * 400 naming the parameter; a masked key sees the same rows, masked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createApiKey } from '../admin/admin.js';

let env: TestEnv;
let t: TeamFixture;
let contestId: string;
const ids: Record<string, string> = {};
const codes: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
  contestId = (
    await env.contest(t.teamId, {
      requireEmailConfirmation: true,
      referral: { advocatePoints: 10, friendPoints: 5 },
    } as never)
  ).id;
  const make = async (name: string, body: Record<string, unknown>) => {
    const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body });
    expect(r.status, r.text).toBe(201);
    ids[name] = r.body.data.entryId;
    codes[name] = r.body.data.referralCode;
    env.clock.advance(1000);
    return r.body.data;
  };
  const ann = await make('ann', { email: 'ann@example.com' });
  await make('bob', { email: 'bob@example.com', referralCode: ann.referralCode });
  await make('alias', { email: 'ann+1@example.com', referralCode: ann.referralCode }); // high: email_alias, self_referral
  await make('cy', { email: 'cy@example.com' });
  await make('dee', { email: 'dee@example.com' });
  await env.request('POST', `/api/v1/entries/${ids.cy}/disqualify`, { key: t.privateKey, body: { disqualify: true } });
  await env.request('POST', `/api/v1/entries/${ids.dee}/points`, {
    key: t.privateKey,
    body: { points: 50, reason: 'top' },
  });
  // bob confirms: read the confirmation token from the email the entry was sent
  const mail = env.sent.find((m) => m.to === 'bob@example.com') ?? null;
  await env.settle();
  const sent = mail ?? env.sent.find((m) => m.to === 'bob@example.com')!;
  const token = /\/api\/confirm\/([A-Za-z0-9_-]+)/.exec(sent.text)![1]!;
  expect((await env.request('GET', `/api/confirm/${token}`)).status).toBeLessThan(400);
});
afterAll(() => env.close());

const list = async (query: string, key = t.privateKey) => {
  const r = await env.request('GET', `/api/v1/contests/${contestId}/entries?${query}`, { key });
  expect(r.status, r.text).toBe(200);
  return {
    names: (r.body.data as Array<{ id: string }>).map((e) => Object.keys(ids).find((k) => ids[k] === e.id)),
    total: r.body.pagination.total as number,
  };
};

describe('entries list filters and sort', () => {
  it('filters by confirmed, disqualified, referred and the review queue, with exact totals', async () => {
    expect(await list('confirmed=true')).toEqual({ names: ['bob'], total: 1 });
    expect(await list('confirmed=false')).toEqual({ names: ['dee', 'cy', 'alias', 'ann'], total: 4 });
    expect(await list('confirmed=false&sort=oldest')).toEqual({ names: ['ann', 'alias', 'cy', 'dee'], total: 4 });
    expect(await list('confirmed=false&disqualified=false&limit=2')).toEqual({ names: ['dee', 'alias'], total: 3 });
    expect(await list('disqualified=true')).toEqual({ names: ['cy'], total: 1 });
    expect(await list('referred=true')).toEqual({ names: ['alias', 'bob'], total: 2 });
    expect(await list('referred=false&disqualified=false')).toEqual({ names: ['dee', 'ann'], total: 2 });
    expect(await list('review=pending')).toEqual({ names: ['alias'], total: 1 });
    // the queue shrinks as entries are reviewed
    expect(
      (
        await env.request('POST', `/api/v1/entries/${ids.alias}/review`, {
          key: t.privateKey,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    expect(await list('review=pending')).toEqual({ names: [], total: 0 });
    expect(await list('search=ann&referred=true')).toEqual({ names: ['alias'], total: 1 });
  });

  it('finds an entry by its referral code (exactly) and lists whom an entry referred', async () => {
    expect(await list(`search=${codes.cy}`)).toEqual({ names: ['cy'], total: 1 });
    // codes are case-sensitive (base62): another case is another code
    expect(await list(`search=${codes.cy!.slice(0, -1)}`)).toEqual({ names: [], total: 0 });
    expect(await list(`referredBy=${ids.ann}`)).toEqual({ names: ['alias', 'bob'], total: 2 });
    expect(await list(`referredBy=${ids.ann}&confirmed=true`)).toEqual({ names: ['bob'], total: 1 });
    expect(await list(`referredBy=${ids.dee}`)).toEqual({ names: [], total: 0 });
    // a masked key may look a code up too (codes are shared in links), masked
    const masked = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'page', 'masked')).key;
    const r = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=${codes.bob}`, { key: masked });
    expect(r.body.data.map((e: { email: string }) => e.email)).toEqual(['b***@example.com']);
  });

  it('sorts newest first (default), oldest first, or by points', async () => {
    expect((await list('')).names).toEqual(['dee', 'cy', 'alias', 'bob', 'ann']);
    expect((await list('sort=oldest')).names).toEqual(['ann', 'bob', 'alias', 'cy', 'dee']);
    expect((await list('sort=points')).names.slice(0, 2)).toEqual(['dee', 'ann']);
    expect((await list('sort=oldest&limit=2&page=2')).names).toEqual(['alias', 'cy']);
  });

  it('a masked key sees the same rows, masked', async () => {
    const masked = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'page', 'masked')).key;
    const r = await env.request('GET', `/api/v1/contests/${contestId}/entries?referred=true`, { key: masked });
    expect(r.body.data.map((e: { email: string }) => e.email)).toEqual(['a***@example.com', 'b***@example.com']);
  });

  it('bad values answer 400 naming the parameter', async () => {
    for (const [q, message] of [
      ['confirmed=yes', 'confirmed must be true or false'],
      ['disqualified=1', 'disqualified must be true or false'],
      ['referred=', 'referred must be true or false'],
      ['review=done', 'review must be pending'],
      ['referredBy=ann', 'referredBy must be an entry id'],
      ['sort=random', 'sort must be newest, oldest or points'],
    ]) {
      const r = await env.request('GET', `/api/v1/contests/${contestId}/entries?${q}`, { key: t.privateKey });
      expect([q, r.status, r.body]).toEqual([q, 400, { success: false, error: message }]);
    }
  });

  it('a single flag’s total (from the running totals) equals its rows, erased entries left out', async () => {
    const check = async () => {
      for (const q of ['', 'confirmed=true', 'confirmed=false', 'disqualified=true', 'disqualified=false']) {
        const page = await list(`${q}&limit=100`);
        expect([q, page.total]).toEqual([q, page.names.length]);
      }
    };
    await check();
    expect((await list('confirmed=true')).total).toBe(1);
    expect((await list('disqualified=false')).total).toBe(4);
    // erasing the confirmed entry and the disqualified one takes them out of every total
    for (const name of ['bob', 'cy']) {
      const r = await env.request('DELETE', `/api/v1/entries/${ids[name]}`, { key: t.privateKey });
      expect(r.status, r.text).toBe(200);
    }
    await check();
    expect((await list('confirmed=true')).total).toBe(0);
    expect((await list('disqualified=true')).total).toBe(0);
    expect((await list('confirmed=false')).total).toBe(3);
  });
});
