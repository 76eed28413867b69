/** The admin API, API keys and contest secrets (docs/api.md). */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, type TestEnv, wheelGameBody } from '../../test/support/harness.js';
import { query } from '../db/client.js';
import { sha256Hex } from '../lib/crypto.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const adm = (method: string, path: string, body?: unknown) => env.request(method, path, { headers: auth, body });

async function newTeam(name = 'Acme') {
  const r = await adm('POST', '/api/admin/teams', { name });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; name: string };
}

describe('admin auth', () => {
  it('answers 401 Unauthorized for a missing or wrong token', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer nope' },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
    ] as Record<string, string>[]) {
      const r = await env.request('POST', '/api/admin/teams', { headers, body: { name: 'x' } });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ success: false, error: 'Unauthorized' });
    }
    const n = await query<{ n: number }>(env.db, sql`select count(*)::int as n from teams where name = 'x'`);
    expect(n[0]!.n).toBe(0);
  });

  it('limits failed attempts per client address: 10 a minute, then 429 with Retry-After even for the right token', async () => {
    const from = (ip: string, token: string) =>
      env.request('GET', '/api/admin/teams', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip } });
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++) statuses.push((await from('198.51.100.7', `guess-${i}-0123456789abcdef`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    const refused = await from('198.51.100.7', ADMIN_TOKEN);
    expect([refused.status, refused.body]).toEqual([429, { success: false, error: 'Too many requests' }]);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // another address is not held back by this one
    expect((await from('198.51.100.8', ADMIN_TOKEN)).status).toBe(200);
    // once the minute is over, the right token works again from the first address
    env.clock.advance(61_000);
    expect((await from('198.51.100.7', ADMIN_TOKEN)).status).toBe(200);
  });

  it('answers 404 on every admin route when ADMIN_TOKEN is unset', async () => {
    const off = await createTestEnv({ adminToken: null, backend: 'pglite' });
    try {
      for (const [m, p] of [
        ['POST', '/api/admin/teams'],
        ['POST', '/api/admin/teams/x/api-keys'],
        ['DELETE', '/api/admin/api-keys/x'],
        ['POST', '/api/admin/teams/x/contests'],
        ['PATCH', '/api/admin/contests/x'],
        ['POST', '/api/admin/contests/x/bonus-actions'],
        ['POST', '/api/admin/contests/x/webhook-secret'],
        ['GET', '/api/admin/teams/x/emails'],
      ]) {
        const r = await off.request(m!, p!, {
          headers: { authorization: 'Bearer anything' },
          body: m === 'GET' || m === 'DELETE' ? undefined : {},
        });
        expect([m, p, r.status, r.body]).toEqual([m, p, 404, { success: false, error: 'Not found' }]);
      }
    } finally {
      await off.close();
    }
  });
});

describe('teams and API keys', () => {
  it('creates a team', async () => {
    const team = await newTeam('  Acme Inc  ');
    expect(team).toEqual({ id: expect.any(String), name: 'Acme Inc' });
  });

  it('creates keys shown once, stores only their SHA-256, and revokes them', async () => {
    const team = await newTeam();
    const r = await adm('POST', `/api/admin/teams/${team.id}/api-keys`, { type: 'private', name: 'server' });
    expect(r.status).toBe(201);
    const k = r.body.data;
    expect(k).toEqual({
      id: expect.any(String),
      type: 'private',
      name: 'server',
      key: expect.stringMatching(/^sk_[A-Za-z0-9]{40}$/),
      prefix: k.key.slice(0, 11),
      personalData: null,
    });
    const pub = await adm('POST', `/api/admin/teams/${team.id}/api-keys`, { type: 'public' });
    expect(pub.body.data.key).toMatch(/^pk_[A-Za-z0-9]{40}$/);
    expect(pub.body.data.name).toBeNull();

    const rows = await query<Record<string, unknown>>(env.db, sql`select * from api_keys where id = ${k.id}`);
    expect(rows[0]!.key_hash).toBe(await sha256Hex(k.key));
    expect(JSON.stringify(rows)).not.toContain(k.key);

    // the key works, and records when it was last used
    const ok = await env.request('GET', '/api/v1/contests', { key: k.key });
    expect(ok.status).toBe(200);
    const used = await query<{ last_used_at: Date | null }>(
      env.db,
      sql`select last_used_at from api_keys where id = ${k.id}`,
    );
    expect(used[0]!.last_used_at).not.toBeNull();

    const del = await adm('DELETE', `/api/admin/api-keys/${k.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { id: k.id, revoked: true } });
    const after = await env.request('GET', '/api/v1/contests', { key: k.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ success: false, error: 'Invalid API key' });
    // revoking again is harmless; unknown keys are 404
    expect((await adm('DELETE', `/api/admin/api-keys/${k.id}`)).status).toBe(200);
    expect((await adm('DELETE', '/api/admin/api-keys/00000000-0000-4000-8000-000000000000')).body).toEqual({
      success: false,
      error: 'API key not found',
    });
    expect((await adm('DELETE', '/api/admin/api-keys/nope')).status).toBe(404);
  });

  it('refuses bad key requests', async () => {
    const team = await newTeam();
    const bad = await adm('POST', `/api/admin/teams/${team.id}/api-keys`, { type: 'secret' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('type must be public or private');
    const none = await adm('POST', '/api/admin/teams/00000000-0000-4000-8000-000000000000/api-keys', {
      type: 'public',
    });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ success: false, error: 'Team not found' });
    expect((await adm('POST', '/api/admin/teams/xyz/api-keys', { type: 'public' })).status).toBe(404);
  });
});

describe('contests', () => {
  it('creates a contest with the documented defaults and shows settings but never secrets', async () => {
    const team = await newTeam();
    const r = await adm('POST', `/api/admin/teams/${team.id}/contests`, {
      title: 'Summer Giveaway!',
      shopifySecret: 'shpss_abc',
      stripeSecret: 'whsec_stripe',
    });
    expect(r.status).toBe(201);
    const c = r.body.data;
    expect(c).toMatchObject({
      title: 'Summer Giveaway!',
      description: null,
      status: 'draft',
      slug: 'summer-giveaway',
      mode: 'giveaway',
      isEvergreen: false,
      startDate: null,
      endDate: null,
      entriesCount: 0,
      viewsCount: 0,
      toolType: null,
      campaignType: 'viral',
      requireEmailConfirmation: true,
      referral: { advocatePoints: 0, friendPoints: 0 },
      purchaseTracking: { enabled: false, pointsPerPurchase: 0, pointsPerCurrencyUnit: 0 },
      externalTracking: { enabled: false },
      affiliate: { commissionPercent: 0 },
      secrets: { shopifySecretSet: true, stripeSecretSet: true, webhookSecretSet: false },
    });
    expect(JSON.stringify(r.body)).not.toContain('shpss_abc');
    expect(JSON.stringify(r.body)).not.toContain('whsec_stripe');
  });

  it('makes default slugs unique and refuses a taken explicit slug with 409', async () => {
    const team = await newTeam();
    const a = await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Same Title' });
    const b = await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Same Title' });
    expect(a.body.data.slug).toBe('same-title');
    expect(b.body.data.slug).toMatch(/^same-title-[a-z0-9]{6}$/);
    const c = await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Other', slug: 'same-title' });
    expect(c.status).toBe(409);
    expect(c.body).toEqual({ success: false, error: 'Slug already in use' });
    const d = await adm('PATCH', `/api/admin/contests/${b.body.data.id}`, { slug: 'same-title' });
    expect(d.status).toBe(409);
  });

  it('updates any subset of the settings', async () => {
    const team = await newTeam();
    const created = (await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Patch me' })).body.data;
    const r = await adm('PATCH', `/api/admin/contests/${created.id}`, {
      status: 'active',
      mode: 'leaderboard',
      campaignType: 'affiliate',
      affiliate: { commissionPercent: 12.5 },
      referral: { advocatePoints: 10 },
      purchaseTracking: { enabled: true, pointsPerCurrencyUnit: 1.5 },
      startDate: '2026-01-01T00:00:00.000Z',
      endDate: '2030-01-01T00:00:00Z',
      unknownField: 'ignored',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      title: 'Patch me',
      status: 'active',
      mode: 'leaderboard',
      campaignType: 'affiliate',
      affiliate: { commissionPercent: 12.5 },
      referral: { advocatePoints: 10, friendPoints: 0 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 0, pointsPerCurrencyUnit: 1.5 },
      startDate: '2026-01-01T00:00:00.000Z',
      endDate: '2030-01-01T00:00:00.000Z',
    });
    expect(r.body.data).not.toHaveProperty('unknownField');
  });

  it('refuses bad settings with a message naming the field and changes nothing', async () => {
    const team = await newTeam();
    const created = (await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Strict' })).body.data;
    for (const [body, msg] of [
      [{ mode: 'lottery' }, 'mode must be one of giveaway, leaderboard, waitlist'],
      [{ status: 'archived' }, 'status must be one of draft, active, ended, paused'],
      [{ title: '' }, 'title must not be empty'],
      [{ title: 'x'.repeat(201) }, 'title must be at most 200 characters'],
      [{ slug: 'Not A Slug' }, 'slug must be lowercase letters, digits and single dashes'],
      [{ startDate: 'yesterday' }, 'startDate must be an ISO 8601 date'],
      [{ referral: { advocatePoints: -1 } }, 'referral.advocatePoints must be at least 0'],
      [{ referral: { friendPoints: 1.5 } }, 'referral.friendPoints must be an integer'],
      [{ affiliate: { commissionPercent: 101 } }, 'affiliate.commissionPercent must be between 0 and 100'],
      [{ startDate: '2030-01-02T00:00:00Z', endDate: '2030-01-01T00:00:00Z' }, 'endDate must be after startDate'],
      [{ toolType: 'instant_win' }, 'toolType must be content_gate or null (games are made with the instant-win API)'],
    ] as const) {
      const r = await adm('PATCH', `/api/admin/contests/${created.id}`, body);
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error: msg }]);
    }
    const after = (await adm('PATCH', `/api/admin/contests/${created.id}`, {})).body.data;
    expect(after).toMatchObject({ title: 'Strict', mode: 'giveaway', status: 'draft', startDate: null, endDate: null });
    expect((await adm('POST', `/api/admin/teams/${team.id}/contests`, {})).body).toEqual({
      success: false,
      error: 'title is required',
    });
    expect(
      (await adm('PATCH', '/api/admin/contests/00000000-0000-4000-8000-000000000000', { title: 'x' })).body,
    ).toEqual({ success: false, error: 'Contest not found' });
    expect(
      (await adm('POST', '/api/admin/teams/00000000-0000-4000-8000-000000000000/contests', { title: 'x' })).body,
    ).toEqual({ success: false, error: 'Team not found' });
  });
});

describe('bonus actions, webhook secrets, emails', () => {
  it('adds bonus actions in order', async () => {
    const team = await newTeam();
    const c = (await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Bonus' })).body.data;
    const r = await adm('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
      action: 'follow_instagram',
      description: 'Follow us',
      icon: 'instagram',
      iconColor: '#E1306C',
      points: 5,
      confirmationType: 'click',
      destinationUrl: 'https://instagram.com/acme',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      contestId: c.id,
      action: 'follow_instagram',
      description: 'Follow us',
      icon: 'instagram',
      iconColor: '#E1306C',
      points: 5,
      confirmationType: 'click',
      destinationUrl: 'https://instagram.com/acme',
      order: 0,
    });
    const second = await adm('POST', `/api/admin/contests/${c.id}/bonus-actions`, { action: 'share', points: 1 });
    expect(second.body.data).toMatchObject({
      order: 1,
      confirmationType: 'auto',
      destinationUrl: null,
      description: '',
    });
    const bad = await adm('POST', `/api/admin/contests/${c.id}/bonus-actions`, { action: 'x', points: -5 });
    expect(bad.body).toEqual({ success: false, error: 'points must be at least 0' });
    const badUrl = await adm('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
      action: 'x',
      points: 1,
      destinationUrl: 'javascript:alert(1)',
    });
    expect(badUrl.body).toEqual({ success: false, error: 'destinationUrl must be an http(s) URL' });
    const none = await adm('POST', '/api/admin/contests/00000000-0000-4000-8000-000000000000/bonus-actions', {
      action: 'x',
      points: 1,
    });
    expect(none.body).toEqual({ success: false, error: 'Contest not found' });
  });

  it('makes a new webhook secret that replaces the old one', async () => {
    const team = await newTeam();
    const c = (await adm('POST', `/api/admin/teams/${team.id}/contests`, { title: 'Hooks' })).body.data;
    const s1 = (await adm('POST', `/api/admin/contests/${c.id}/webhook-secret`)).body.data.secret as string;
    const s2 = (await adm('POST', `/api/admin/contests/${c.id}/webhook-secret`)).body.data.secret as string;
    for (const s of [s1, s2]) {
      expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    }
    expect(s1).not.toBe(s2);
    const stored = await query<{ webhook_secret: string }>(
      env.db,
      sql`select webhook_secret from contests where id = ${c.id}`,
    );
    expect(stored[0]!.webhook_secret).toBe(s2);
    const after = (await adm('PATCH', `/api/admin/contests/${c.id}`, {})).body.data;
    expect(after.secrets.webhookSecretSet).toBe(true);
    expect(JSON.stringify(after)).not.toContain(s2);
  });

  it('lists a team’s emails newest first, paginated', async () => {
    const team = await newTeam();
    const empty = await adm('GET', `/api/admin/teams/${team.id}/emails`);
    expect(empty.body).toEqual({
      success: true,
      data: [],
      pagination: { page: 1, limit: 50, total: 0, totalPages: 0 },
    });
    await query(
      env.db,
      sql`insert into email_outbox (team_id, "to", kind, subject, text, created_at) values
          (${team.id}, 'a@example.com', 'confirmation', 'First', 'one', '2026-01-01T00:00:00Z'),
          (${team.id}, 'b@example.com', 'prize', 'Second', 'two', '2026-01-02T00:00:00Z')`,
    );
    const r = await adm('GET', `/api/admin/teams/${team.id}/emails?limit=1`);
    expect(r.body.data).toEqual([
      {
        id: expect.any(String),
        to: 'b@example.com',
        kind: 'prize',
        subject: 'Second',
        text: 'two',
        status: 'pending',
        createdAt: '2026-01-02T00:00:00.000Z',
      },
    ]);
    expect(r.body.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect((await adm('GET', '/api/admin/teams/00000000-0000-4000-8000-000000000000/emails')).status).toBe(404);
  });
});

describe('teams list', () => {
  it('lists teams newest first with live keys and contests counted, paginated', async () => {
    const fresh = await createTestEnv({ backend: 'pglite' });
    try {
      const h = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const a = await fresh.team('Alpha');
      const b = await fresh.team('Beta');
      await fresh.contest(a.teamId);
      await fresh.contest(a.teamId, { slug: 'second' } as never);
      // a game is counted as a game, not as a contest
      const game = await fresh.request('POST', '/api/v1/instant-win-games', {
        key: a.privateKey,
        body: wheelGameBody(),
      });
      expect(game.status, game.text).toBe(201);
      const keys = await fresh.request('GET', `/api/admin/teams/${a.teamId}/api-keys`, { headers: h });
      expect(
        (await fresh.request('DELETE', `/api/admin/api-keys/${keys.body.data[0].id}`, { headers: h })).status,
      ).toBe(200);
      const r = await fresh.request('GET', '/api/admin/teams?limit=1', { headers: h });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        success: true,
        data: [
          {
            id: b.teamId,
            name: 'Beta',
            createdAt: expect.any(String),
            activeKeysCount: 2,
            contestsCount: 0,
            gamesCount: 0,
          },
        ],
        pagination: { page: 1, limit: 1, total: 2, totalPages: 2 },
      });
      const p2 = await fresh.request('GET', '/api/admin/teams?limit=1&page=2', { headers: h });
      expect(p2.body.data).toEqual([
        {
          id: a.teamId,
          name: 'Alpha',
          createdAt: expect.any(String),
          activeKeysCount: 1,
          contestsCount: 2,
          gamesCount: 1,
        },
      ]);
      const one = await fresh.request('GET', `/api/admin/teams/${a.teamId}`, { headers: h });
      expect(one.body.data).toEqual(p2.body.data[0]);
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const missing = await fresh.request('GET', `/api/admin/teams/${id}`, { headers: h });
        expect([missing.status, missing.body.error]).toEqual([404, 'Team not found']);
      }
      const past = await fresh.request('GET', '/api/admin/teams?page=9', { headers: h });
      expect([past.status, past.body.data, past.body.pagination.total]).toEqual([200, [], 2]);
      for (const q of ['limit=0', 'limit=101', 'page=0', 'page=x']) {
        const bad = await fresh.request('GET', `/api/admin/teams?${q}`, { headers: h });
        expect([q, bad.status, bad.body.success]).toEqual([q, 400, false]);
      }
      // a team's own private key is not the admin token
      const asKey = await fresh.request('GET', '/api/admin/teams', {
        headers: { authorization: `Bearer ${a.privateKey}` },
      });
      expect([asKey.status, asKey.body]).toEqual([401, { success: false, error: 'Unauthorized' }]);
    } finally {
      await fresh.close();
    }
  });
});
