/**
 * A contest's bonus actions with the team's keys (what the console's bonus actions and review
 * queue call): list (public), add and change (private), the completions waiting for review;
 * one statement each; bad input is a 400 that changes nothing; another team's contest or action
 * is not found.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Own');
  other = await env.team('Other');
});
afterAll(() => env.close());

const priv = (body?: unknown) => ({ key: t.privateKey, body });
const ONE_TRIP = /desc="1 round trip"$/;
const actionsOf = async (contestId: string) =>
  (
    await query<{ action: string; points: number }>(
      env.db,
      sql`select action, points from bonus_actions where contest_id = ${contestId} order by "order"`,
    )
  ).map((r) => [r.action, r.points]);

describe('bonus actions with the team keys', () => {
  it('adds actions (last by default), lists them in order with either key, changes one', async () => {
    const c = await env.contest(t.teamId);
    const a = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Follow us', points: 5 }),
    );
    expect(a.status, a.text).toBe(201);
    expect(a.headers.get('server-timing')).toMatch(ONE_TRIP);
    expect(a.body.data).toEqual({
      id: a.body.data.id,
      contestId: c.id,
      action: 'Follow us',
      description: '',
      icon: '',
      iconColor: '',
      points: 5,
      confirmationType: 'auto',
      destinationUrl: null,
      order: 0,
    });
    const b = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Photo', points: 20, confirmationType: 'manual', destinationUrl: 'https://shop.test/p' }),
    );
    expect(b.body.data).toMatchObject({ order: 1, confirmationType: 'manual', destinationUrl: 'https://shop.test/p' });
    const first = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Visit', points: 1, order: -1 }),
    );
    expect(first.body.data.order).toBe(-1);
    for (const key of [t.publicKey, t.privateKey]) {
      const list = await env.request('GET', `/api/v1/contests/${c.id}/bonus-actions`, { key });
      expect(list.status).toBe(200);
      expect(list.headers.get('server-timing')).toMatch(ONE_TRIP);
      expect(list.body.data.map((x: { action: string }) => x.action)).toEqual(['Visit', 'Follow us', 'Photo']);
    }
    const changed = await env.request(
      'PATCH',
      `/api/v1/bonus-actions/${a.body.data.id}`,
      priv({ points: 8, description: 'On Instagram', destinationUrl: null }),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.headers.get('server-timing')).toMatch(ONE_TRIP);
    expect(changed.body.data).toMatchObject({
      action: 'Follow us',
      points: 8,
      description: 'On Instagram',
      destinationUrl: null,
      order: 0,
    });
    const empty = await env.contest(t.teamId);
    const none = await env.request('GET', `/api/v1/contests/${empty.id}/bonus-actions`, { key: t.publicKey });
    expect([none.status, none.body]).toEqual([200, { success: true, data: [] }]);
  });

  it('bad input answers 400 with the field named and changes nothing', async () => {
    const c = await env.contest(t.teamId);
    const a = await env.request('POST', `/api/v1/contests/${c.id}/bonus-actions`, priv({ action: 'Keep', points: 3 }));
    const cases: [string, string, unknown, string][] = [
      ['POST', `/api/v1/contests/${c.id}/bonus-actions`, { points: 3 }, 'action is required'],
      ['POST', `/api/v1/contests/${c.id}/bonus-actions`, { action: '  ', points: 3 }, 'action must not be empty'],
      ['POST', `/api/v1/contests/${c.id}/bonus-actions`, { action: 'x', points: -1 }, 'points must be at least 0'],
      [
        'POST',
        `/api/v1/contests/${c.id}/bonus-actions`,
        { action: 'x', points: 1, confirmationType: 'maybe' },
        'confirmationType must be one of auto, manual, click',
      ],
      [
        'POST',
        `/api/v1/contests/${c.id}/bonus-actions`,
        { action: 'x', points: 1, destinationUrl: 'javascript:alert(1)' },
        'destinationUrl must be an http(s) URL',
      ],
      [
        'PATCH',
        `/api/v1/bonus-actions/${a.body.data.id}`,
        {},
        'At least one of action, description, icon, iconColor, points, confirmationType, destinationUrl, order is required',
      ],
      ['PATCH', `/api/v1/bonus-actions/${a.body.data.id}`, { points: 1.5 }, 'points must be an integer'],
      ['PATCH', `/api/v1/bonus-actions/${a.body.data.id}`, { action: '' }, 'action must not be empty'],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await env.request(method, path, priv(body));
      expect([method, body, r.status, r.body]).toEqual([method, body, 400, { success: false, error: message }]);
    }
    expect(await actionsOf(c.id)).toEqual([['Keep', 3]]);
  });

  it("another team's contest or action is not found; a public key cannot write", async () => {
    const theirs = await env.contest(other.teamId);
    const theirAction = await env.request('POST', `/api/v1/contests/${theirs.id}/bonus-actions`, {
      key: other.privateKey,
      body: { action: 'Theirs', points: 1 },
    });
    expect(theirAction.status).toBe(201);
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const list = await env.request('GET', `/api/v1/contests/${id}/bonus-actions`, { key: t.publicKey });
      expect([list.status, list.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
      const add = await env.request(
        'POST',
        `/api/v1/contests/${id}/bonus-actions`,
        priv({ action: 'Mine', points: 1 }),
      );
      expect([add.status, add.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
      const pending = await env.request('GET', `/api/v1/contests/${id}/bonus-completions`, priv());
      expect([pending.status, pending.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
    for (const id of [theirAction.body.data.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const r = await env.request('PATCH', `/api/v1/bonus-actions/${id}`, priv({ points: 99 }));
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Bonus action not found' }]);
    }
    expect(await actionsOf(theirs.id)).toEqual([['Theirs', 1]]);
    const c = await env.contest(t.teamId);
    const pub = await env.request('POST', `/api/v1/contests/${c.id}/bonus-actions`, {
      key: t.publicKey,
      body: { action: 'x', points: 1 },
    });
    expect([pub.status, pub.body]).toEqual([
      403,
      { success: false, error: 'This endpoint requires a private API key' },
    ]);
    const pubList = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions`, { key: t.publicKey });
    expect(pubList.status).toBe(403);
    expect(await actionsOf(c.id)).toEqual([]);
  });
});

describe('bonus completions to review', () => {
  it('lists pending manual completions newest first with the person and proof; approving one takes it off the queue', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const photo = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Photo', points: 20, confirmationType: 'manual' }),
    );
    const auto = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Visit', points: 1 }),
    );
    const ids: string[] = [];
    for (const email of ['ann@example.com', 'bob@example.com', 'cy@example.com']) {
      const e = await env.request(
        'POST',
        `/api/v1/contests/${c.id}/entries`,
        priv({ email, name: email.split('@')[0] }),
      );
      ids.push(e.body.data.entryId);
      env.clock.advance(1_000);
      const done = await env.request(
        'POST',
        `/api/v1/entries/${e.body.data.entryId}/bonus-actions/${photo.body.data.id}/complete`,
        {
          key: t.publicKey,
          body: { proof: `https://photos.test/${email}` },
        },
      );
      expect(done.status, done.text).toBe(200);
      await env.request('POST', `/api/v1/entries/${e.body.data.entryId}/bonus-actions/${auto.body.data.id}/complete`, {
        key: t.publicKey,
        body: {},
      });
    }
    const q = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions?limit=2`, priv());
    expect(q.status, q.text).toBe(200);
    expect(q.headers.get('server-timing')).toMatch(ONE_TRIP);
    expect(q.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(q.body.data[0]).toEqual({
      id: q.body.data[0].id,
      entryId: ids[2],
      email: 'cy@example.com',
      name: 'cy',
      bonusActionId: photo.body.data.id,
      action: 'Photo',
      status: 'pending',
      proof: 'https://photos.test/cy@example.com',
      answer: null,
      pointsAwarded: 0,
      completedAt: q.body.data[0].completedAt,
    });
    expect(q.body.data[1].entryId).toBe(ids[1]);
    const verified = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions?status=verified`, priv());
    expect(verified.body.data.map((x: { action: string }) => x.action)).toEqual(['Visit', 'Visit', 'Visit']);

    const approve = await env.request(
      'POST',
      `/api/v1/entries/${ids[2]}/bonus-actions/${photo.body.data.id}/verify`,
      priv({ approve: true }),
    );
    expect(approve.status).toBe(200);
    const reject = await env.request(
      'POST',
      `/api/v1/entries/${ids[0]}/bonus-actions/${photo.body.data.id}/verify`,
      priv({ approve: false }),
    );
    expect(reject.status).toBe(200);
    const left = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions`, priv());
    expect(left.body.data.map((x: { entryId: string }) => x.entryId)).toEqual([ids[1]]);
    const rejected = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions?status=rejected`, priv());
    expect(rejected.body.data.map((x: { entryId: string }) => x.entryId)).toEqual([ids[0]]);

    const bad = await env.request('GET', `/api/v1/contests/${c.id}/bonus-completions?status=done`, priv());
    expect([bad.status, bad.body]).toEqual([
      400,
      { success: false, error: 'status must be pending, verified or rejected' },
    ]);
  });
});

describe('renaming, reordering and removing a bonus action', () => {
  it('renames and reorders; a removed action leaves the lists and cannot be completed, the points it gave stay', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const mk = async (action: string, points: number) =>
      (await env.request('POST', `/api/v1/contests/${c.id}/bonus-actions`, priv({ action, points }))).body.data as {
        id: string;
      };
    const a = await mk('Follow us', 5);
    const b = await mk('Share', 10);
    const renamed = await env.request(
      'PATCH',
      `/api/v1/bonus-actions/${a.id}`,
      priv({ action: 'Follow us on X', order: 5 }),
    );
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({ action: 'Follow us on X', order: 5 });
    expect(await actionsOf(c.id)).toEqual([
      ['Share', 10],
      ['Follow us on X', 5],
    ]);

    const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, priv({ email: 'doer@example.com' }));
    const entryId = e.body.data.entryId as string;
    const done = await env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${b.id}/complete`, priv({}));
    expect(done.body.data.pointsAdded).toBe(10);

    const del = await env.request('DELETE', `/api/v1/bonus-actions/${b.id}`, priv());
    expect([del.status, del.body.data]).toEqual([200, { id: b.id, deleted: true }]);
    const listed = await env.request('GET', `/api/v1/contests/${c.id}/bonus-actions`, { key: t.publicKey });
    expect(listed.body.data.map((x: { action: string }) => x.action)).toEqual(['Follow us on X']);
    const mine = await env.request('GET', `/api/v1/entries/${entryId}/bonus-actions`, { key: t.publicKey });
    expect(mine.body.data.actions.map((x: { action: string }) => x.action)).toEqual(['Follow us on X']);
    const again = await env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${b.id}/complete`, priv({}));
    expect([again.status, again.body.error]).toEqual([404, 'Entry or bonus action not found']);
    const entry = await env.request('GET', `/api/v1/entries/${entryId}`, priv());
    expect(entry.body.data.points).toBe(10);
    for (const [method, body] of [
      ['DELETE', undefined],
      ['PATCH', { action: 'x' }],
    ] as const) {
      const gone = await env.request(method, `/api/v1/bonus-actions/${b.id}`, priv(body));
      expect([gone.status, gone.body.error]).toEqual([404, 'Bonus action not found']);
    }
    const foreign = await env.request('DELETE', `/api/v1/bonus-actions/${a.id}`, { key: other.privateKey });
    expect(foreign.status).toBe(404);
  });

  it('a "click" action needs its link, on create and on change; refused, nothing changes', async () => {
    const c = await env.contest(t.teamId);
    const bad = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Visit', points: 1, confirmationType: 'click' }),
    );
    expect([bad.status, bad.body.error]).toEqual([400, 'A click action needs a destinationUrl']);
    const ok = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Visit', points: 1, confirmationType: 'click', destinationUrl: 'https://example.com/' }),
    );
    expect(ok.status).toBe(201);
    const plain = await env.request(
      'POST',
      `/api/v1/contests/${c.id}/bonus-actions`,
      priv({ action: 'Plain', points: 1 }),
    );
    for (const [id, body] of [
      [ok.body.data.id, { destinationUrl: null }],
      [plain.body.data.id, { confirmationType: 'click' }],
    ] as const) {
      const r = await env.request('PATCH', `/api/v1/bonus-actions/${id}`, priv(body));
      expect([r.status, r.body.error]).toEqual([400, 'A click action needs a destinationUrl']);
    }
    const rows = await query<{ confirmation_type: string; destination_url: string | null }>(
      env.db,
      sql`select confirmation_type, destination_url from bonus_actions where contest_id = ${c.id} order by "order"`,
    );
    expect(rows).toEqual([
      { confirmation_type: 'click', destination_url: 'https://example.com/' },
      { confirmation_type: 'auto', destination_url: null },
    ]);
  });
});
