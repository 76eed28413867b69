/**
 * A team's contests with its private key (what the console's contest forms call): create, read
 * every setting, change any of them; one statement each; the same settings and messages as the
 * admin API; another team's contest is not found; a public key is refused.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

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
const count = async () => (await query<{ n: number }>(env.db, sql`select count(*)::int as n from contests`))[0]!.n;

describe('team contests with the private key', () => {
  it('creates a contest with its settings, reads it back, changes settings', async () => {
    const r = await env.request(
      'POST',
      '/api/v1/contests',
      priv({
        title: 'Spring giveaway',
        mode: 'giveaway',
        status: 'active',
        requireEmailConfirmation: false,
        referral: { advocatePoints: 10, friendPoints: 5, creditOn: 'confirm' },
        risk: { mode: 'hold', maxEntriesPerIpPerHour: 5 },
        purchaseTracking: { enabled: true, pointsPerPurchase: 2 },
        startDate: '2026-12-01T00:00:00.000Z',
        endDate: '2026-12-31T00:00:00.000Z',
        shopifySecret: 'shpss_secret',
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      title: 'Spring giveaway',
      slug: 'spring-giveaway',
      mode: 'giveaway',
      status: 'active',
      teamId: t.teamId,
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5, creditOn: 'confirm' },
      risk: { mode: 'hold', maxEntriesPerIpPerHour: 5, maxReferralsPerHour: 20 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 2 },
      secrets: { shopifySecretSet: true, stripeSecretSet: false },
      entriesCount: 0,
    });
    expect(r.text).not.toContain('shpss_secret');
    const id = r.body.data.id as string;
    const got = await env.request('GET', `/api/v1/contests/${id}/settings`, priv());
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(r.body.data);
    const changed = await env.request(
      'PATCH',
      `/api/v1/contests/${id}`,
      priv({ status: 'paused', risk: { mode: 'block' }, referral: { advocatePoints: 3 } }),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({
      status: 'paused',
      risk: { mode: 'block' },
      referral: { advocatePoints: 3, friendPoints: 5 },
    });
    // the v1 list shows it to the team
    const list = await env.request('GET', '/api/v1/contests', { key: t.publicKey });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);
    // a second contest with the same title gets its own slug; an explicit taken slug is a 409
    const again = await env.request('POST', '/api/v1/contests', priv({ title: 'Spring giveaway' }));
    expect(again.body.data.slug).toMatch(/^spring-giveaway-[a-z0-9]{6}$/);
    const taken = await env.request('POST', '/api/v1/contests', priv({ title: 'X', slug: 'spring-giveaway' }));
    expect([taken.status, taken.body]).toEqual([409, { success: false, error: 'Slug already in use' }]);
  });

  it('every write and read answers with one round trip', async () => {
    const r = await env.request('POST', '/api/v1/contests', priv({ title: 'Round trip' }));
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
    const p = await env.request('PATCH', `/api/v1/contests/${r.body.data.id}`, priv({ title: 'Round trip 2' }));
    expect(p.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
    const g = await env.request('GET', `/api/v1/contests/${r.body.data.id}/settings`, priv());
    expect(g.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
  });

  it("another team's contest answers 404 Contest not found and is not changed", async () => {
    const theirs = await env.contest(other.teamId, { title: 'Theirs' } as never);
    for (const [method, path, body] of [
      ['GET', `/api/v1/contests/${theirs.id}/settings`, undefined],
      ['PATCH', `/api/v1/contests/${theirs.id}`, { title: 'Mine now' }],
      ['PATCH', '/api/v1/contests/not-a-uuid', { title: 'x' }],
    ] as const) {
      const r = await env.request(method, path, priv(body));
      expect([path, r.status, r.body]).toEqual([path, 404, { success: false, error: 'Contest not found' }]);
    }
    const row = await query<{ title: string }>(env.db, sql`select title from contests where id = ${theirs.id}`);
    expect(row[0]!.title).toBe('Theirs');
  });

  it("bad input answers 400 with the admin API's messages and creates nothing; a public key is refused", async () => {
    const before = await count();
    for (const [body, message] of [
      [{}, 'Invalid title'],
      [{ title: '' }, 'title must not be empty'],
      [{ title: 'x', mode: 'lottery' }, 'mode must be one of giveaway, leaderboard, waitlist'],
      [{ title: 'x', referral: { advocatePoints: -1 } }, 'referral.advocatePoints must be at least 0'],
      [{ title: 'x', risk: { mode: 'ban' } }, 'risk.mode must be one of flag, hold, block'],
      [{ title: 'x', startDate: 'tomorrow' }, 'startDate must be an ISO 8601 date'],
      [
        { title: 'x', startDate: '2026-12-31T00:00:00.000Z', endDate: '2026-12-01T00:00:00.000Z' },
        'endDate must be after startDate',
      ],
    ] as const) {
      const r = await env.request('POST', '/api/v1/contests', priv(body));
      expect([JSON.stringify(body), r.status, r.body.success]).toEqual([JSON.stringify(body), 400, false]);
      if (message !== 'Invalid title') expect(r.body.error).toBe(message);
    }
    expect(await count()).toBe(before);
    const pub = await env.request('POST', '/api/v1/contests', { key: t.publicKey, body: { title: 'x' } });
    expect([pub.status, pub.body]).toEqual([
      403,
      { success: false, error: 'This endpoint requires a private API key' },
    ]);
    const adminToken = await env.request('POST', '/api/v1/contests', {
      headers: { 'x-api-key': ADMIN_TOKEN },
      body: { title: 'x' },
    });
    expect(adminToken.status).toBe(401);
    expect(await count()).toBe(before);
  });
});
