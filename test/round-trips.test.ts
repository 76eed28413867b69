/**
 * One database round trip per request. Every statement a request sends while it is being
 * handled is counted (node-postgres, real Postgres: each `Client.query` is one round trip), so
 * the key check folded into the request's statement shows as exactly 1. The email delivery a
 * request leaves behind runs after the answer, on its own handle, and is not counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createBonusAction } from '../src/admin/admin.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';

const counter = new AsyncLocalStorage<{ texts: string[] }>();
const originalQuery = pg.Client.prototype.query;

let env: TestEnv;
let t: TeamFixture;

if (!hasRealPostgres) console.warn('*** round-trips.test.ts: SKIPPED (needs TEST_DATABASE_URL) ***');

/** the statements a request sent, with the background email delivery left out */
async function trips(method: string, path: string, opts: Parameters<TestEnv['request']>[2] = {}) {
  const store = { texts: [] as string[] };
  const res = await counter.run(store, () => env.request(method, path, opts));
  await env.settle();
  // (the outbound-event delivery a request leaves behind runs after the answer too: event_deliveries)
  const own = store.texts.filter((q) => q.includes('ce_key') || !/email_outbox|event_deliveries/.test(q));
  return { res, n: own.length, texts: own };
}

/**
 * A request's round trips, recorded under `name` in `results`, its status checked; the answer's
 * own header (what a deployment can check from outside) must say one round trip too. A request
 * whose statement writes to the outbox, as the email delivery after the answer does, cannot be
 * told apart by the count (`counted: false`): for it the header is the judge.
 */
function recorder(results: Record<string, number>) {
  return async (
    name: string,
    method: string,
    path: string,
    opts: Parameters<TestEnv['request']>[2],
    status: number,
    counted = true,
  ) => {
    const r = await trips(method, path, opts);
    expect(r.res.status, `${name}: ${r.res.text.slice(0, 300)}`).toBe(status);
    if (counted) results[name] = r.n;
    // the time only with a private key; a visitor's or a public key's answer tells its round trips alone
    const timed = opts?.key?.startsWith('sk_') === true;
    expect(r.res.headers.get('server-timing'), name).toMatch(
      timed ? /^db;dur=\d+\.\d;desc="1 round trip"$/ : /^db;desc="1 round trip"$/,
    );
    return r.res;
  };
}

describe.skipIf(!hasRealPostgres)('round trips per request (node-postgres)', () => {
  beforeAll(async () => {
    pg.Client.prototype.query = function patched(this: pg.Client, ...args: unknown[]) {
      const store = counter.getStore();
      const q = args[0] as string | { text?: string };
      if (store) store.texts.push(typeof q === 'string' ? q : (q?.text ?? ''));
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof originalQuery;
    env = await createTestEnv({ backend: 'postgres' });
    env.deps.fetch = async () => new Response(null, { status: 500 }); // the receiver of outbound events
    t = await env.team();
  });
  afterAll(async () => {
    pg.Client.prototype.query = originalQuery;
    await env?.close();
  });

  it('every endpoint answers with one statement, the key check inside it', async () => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: true,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 1 },
    });
    const action = await createBonusAction(env.db, c.id, { action: 'visit', points: 5, confirmationType: 'click' });
    const pub = { key: t.publicKey };
    const priv = { key: t.privateKey };
    const results: Record<string, number> = {};
    const one = recorder(results);
    const ada = await one(
      'entry create',
      'POST',
      `/api/v1/contests/${c.id}/entries`,
      { ...priv, body: { email: 'ada@example.com' } },
      201,
    );
    const adaId = ada.body.data.entryId;
    await one(
      'entry create (referral)',
      'POST',
      `/api/v1/contests/${c.id}/entries`,
      { ...priv, body: { email: 'bob@example.com', referralCode: ada.body.data.referralCode } },
      201,
    );
    await one('contests list', 'GET', '/api/v1/contests', pub, 200);
    await one('contest get', 'GET', `/api/v1/contests/${c.id}`, pub, 200);
    await one('contest view', 'POST', `/api/v1/contests/${c.id}/views`, pub, 200);
    await one('entries list', 'GET', `/api/v1/contests/${c.id}/entries`, pub, 200);
    await one('entries search', 'GET', `/api/v1/contests/${c.id}/entries?search=ada`, pub, 200);
    await one('entry get', 'GET', `/api/v1/entries/${adaId}`, pub, 200);
    await one('entry update', 'PUT', `/api/v1/entries/${adaId}`, { ...priv, body: { name: 'Ada' } }, 200);
    await one(
      'points adjust',
      'POST',
      `/api/v1/entries/${adaId}/points`,
      { ...priv, body: { points: 3, reason: 'bonus' } },
      200,
    );
    await one('bonus actions', 'GET', `/api/v1/entries/${adaId}/bonus-actions`, pub, 200);
    await one('bonus complete', 'POST', `/api/v1/entries/${adaId}/bonus-actions/${action.id}/complete`, pub, 200);
    await one(
      'purchase',
      'POST',
      `/api/v1/contests/${c.id}/purchases`,
      { ...priv, body: { email: 'ada@example.com', orderId: 'o-1', amount: 12.5 } },
      201,
    );
    await one('analytics', 'GET', `/api/v1/contests/${c.id}/analytics`, pub, 200);
    await one('leaderboard', 'GET', `/api/v1/contests/${c.id}/leaderboard`, pub, 200);
    await one(
      'disqualify',
      'POST',
      `/api/v1/entries/${adaId}/disqualify`,
      { ...priv, body: { disqualify: false } },
      200,
    );
    // trust and safety: risk signals inside the create, masked reads, manual verify, review
    await one(
      'entry create (ipAddress, userAgent)',
      'POST',
      `/api/v1/contests/${c.id}/entries`,
      {
        ...priv,
        body: {
          email: 'ada+2@example.com',
          ipAddress: '203.0.113.5',
          userAgent: 'UA',
          referralCode: ada.body.data.referralCode,
        },
      },
      201,
    );
    const manual = await createBonusAction(env.db, c.id, { action: 'follow', points: 5, confirmationType: 'manual' });
    await one(
      'bonus complete (manual, pending)',
      'POST',
      `/api/v1/entries/${adaId}/bonus-actions/${manual.id}/complete`,
      pub,
      200,
    );
    await one(
      'bonus verify',
      'POST',
      `/api/v1/entries/${adaId}/bonus-actions/${manual.id}/verify`,
      { ...priv, body: { approve: true } },
      200,
    );
    await one('entries list ?risk=high', 'GET', `/api/v1/contests/${c.id}/entries?risk=high`, priv, 200);
    const maskedKey = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'masked', 'masked')).key;
    await one(
      'entries search (masked key)',
      'GET',
      `/api/v1/contests/${c.id}/entries?search=ada@example.com`,
      { key: maskedKey },
      200,
    );
    await one('entry get (masked key)', 'GET', `/api/v1/entries/${adaId}`, { key: maskedKey }, 200);
    await one('review', 'POST', `/api/v1/entries/${adaId}/review`, { ...priv, body: { decision: 'approve' } }, 200);
    await one(
      'review again (409)',
      'POST',
      `/api/v1/entries/${adaId}/review`,
      { ...priv, body: { decision: 'approve' } },
      409,
    );
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      ...priv,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: 'Prize', oddsPercent: 100, redeemCode: 'CODE' },
          { name: 'Miss', oddsPercent: 0, isMiss: true },
        ],
      },
    });
    expect(game.status).toBe(201);
    const gameId = game.body.data.id;
    await one('game get', 'GET', `/api/v1/instant-win-games/${gameId}`, pub, 200);
    await one('games list', 'GET', '/api/v1/instant-win-games', pub, 200);
    const p = await one('play', 'POST', `/api/v1/instant-win-games/${gameId}/play`, { ...pub, body: {} }, 200);
    await one(
      'claim',
      'POST',
      `/api/v1/instant-win-games/${gameId}/plays/${p.body.data.playId}/claim`,
      { ...pub, body: { email: 'win@example.com', playCookie: p.body.data.playCookie } },
      200,
    );
    await one(
      'claim again (alreadyClaimed)',
      'POST',
      `/api/v1/instant-win-games/${gameId}/plays/${p.body.data.playId}/claim`,
      { ...pub, body: { email: 'win@example.com', playCookie: p.body.data.playCookie } },
      200,
    );
    await one(
      'claim refused (other device)',
      'POST',
      `/api/v1/instant-win-games/${gameId}/plays/${p.body.data.playId}/claim`,
      { ...pub, body: { email: 'win@example.com', playCookie: 'x'.repeat(32) } },
      403,
    );
    await one('plays list', 'GET', `/api/v1/instant-win-games/${gameId}/plays`, priv, 200);
    await one('receipts list', 'GET', `/api/v1/contests/${c.id}/webhook-receipts`, priv, 200);
    await one('seeds list', 'GET', `/api/v1/instant-win-games/${gameId}/fairness/seeds`, pub, 200);
    await one('seed rotate', 'POST', `/api/v1/instant-win-games/${gameId}/fairness/rotate`, priv, 200);
    await one(
      'play (custom clientSeed)',
      'POST',
      `/api/v1/instant-win-games/${gameId}/play`,
      { ...pub, body: { clientSeed: 'mine' } },
      200,
    );
    await one(
      'draw create',
      'POST',
      `/api/v1/contests/${c.id}/draws`,
      { ...priv, body: { winners: 1, confirmedOnly: false } },
      201,
    );
    const drawList = await one('draws list', 'GET', `/api/v1/contests/${c.id}/draws`, priv, 200);
    const drawId = drawList.body.data[0].id;
    await one('draw get', 'GET', `/api/v1/draws/${drawId}`, pub, 200);
    await one('draw snapshot (one page)', 'GET', `/api/v1/draws/${drawId}/snapshot`, pub, 200);
    await one(
      'draw create refused (no eligible)',
      'POST',
      `/api/v1/contests/${c.id}/draws`,
      { ...priv, body: { minPoints: 1000000 } },
      409,
    );
    // outbound events and getting data out
    const ep = await one(
      'endpoint create',
      'POST',
      '/api/v1/webhook-endpoints',
      { ...priv, body: { url: 'https://hooks.example.test/rt' } },
      201,
    );
    const epId = ep.body.data.id;
    await one('endpoints list', 'GET', '/api/v1/webhook-endpoints', priv, 200);
    await one(
      'endpoint update',
      'PATCH',
      `/api/v1/webhook-endpoints/${epId}`,
      { ...priv, body: { description: 'CRM' } },
      200,
    );
    await one('endpoint test', 'POST', `/api/v1/webhook-endpoints/${epId}/test`, priv, 202);
    await one(
      'entry create (with an endpoint)',
      'POST',
      `/api/v1/contests/${c.id}/entries`,
      { ...priv, body: { email: 'cy@example.com' } },
      201,
    );
    await one('deliveries list', 'GET', `/api/v1/webhook-endpoints/${epId}/deliveries`, priv, 200);
    await one('person export', 'GET', `/api/v1/entries/${adaId}/export`, priv, 200);
    await one('entries export (one page)', 'GET', `/api/v1/contests/${c.id}/entries/export`, priv, 200);
    const dl = await env.request('GET', `/api/v1/webhook-endpoints/${epId}/deliveries`, priv);
    // a manual retry is a claim, the HTTP attempt, then the record of its outcome: two statements
    const retry = await trips('POST', `/api/v1/webhook-endpoints/${epId}/deliveries/${dl.body.data[0].id}/retry`, priv);
    expect(retry.res.status, JSON.stringify(retry.res.body)).toBe(200);
    expect(retry.res.headers.get('server-timing')).toMatch(/desc="2 round trips"$/);
    expect(retry.texts[0]).toContain('ce_key');
    const eraseMe = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...priv,
      body: { email: 'erase@example.com' },
    });
    await one('erase', 'DELETE', `/api/v1/entries/${eraseMe.body.data.entryId}`, priv, 200);
    await one('endpoint delete', 'DELETE', `/api/v1/webhook-endpoints/${epId}`, priv, 200);
    const hook = await one(
      'hook subscribe',
      'POST',
      '/api/v1/hooks',
      { ...priv, body: { url: 'https://hooks.example.test/zap', event: 'entry.confirmed' } },
      201,
    );
    await one('hook unsubscribe', 'DELETE', `/api/v1/hooks/${hook.body.data.id}`, priv, 200);
    // the other tools: every route one statement (the connection test's provider calls come after it)
    env.deps.config.integrations = { key: Buffer.alloc(32, 5).toString('base64') };
    env.deps.fetch = async () => new Response(JSON.stringify({ data: { attributes: { name: 'List' } } }));
    const conn = await one(
      'integration create',
      'POST',
      '/api/v1/integrations',
      {
        ...priv,
        body: { provider: 'klaviyo', credentials: { apiKey: 'pk_0123456789abcdefghijKLMN' }, target: { listId: 'L1' } },
      },
      201,
    );
    const connId = conn.body.data.id;
    await one('integrations list', 'GET', '/api/v1/integrations', priv, 200);
    await one('integration get', 'GET', `/api/v1/integrations/${connId}`, priv, 200);
    await one(
      'integration update',
      'PATCH',
      `/api/v1/integrations/${connId}`,
      { ...priv, body: { enabled: true } },
      200,
    );
    await one('integration test', 'POST', `/api/v1/integrations/${connId}/test`, priv, 200);
    await one('integration backfill', 'POST', `/api/v1/integrations/${connId}/backfill`, priv, 202);
    await one('integration backfill progress', 'GET', `/api/v1/integrations/${connId}/backfill`, priv, 200);
    // a delivery the provider refused, to retry
    await env.db.execute(
      sql`insert into integration_deliveries (integration_id, entry_id, kind, status)
          select ${connId}::uuid, e.id, 'person', 'failed' from entries e where e.contest_id = ${c.id}
            -- a person the backfill above did not owe anew (else the retry answers 409: a newer one waits)
            and not exists (select 1 from integration_deliveries p where p.entry_id = e.id and p.status = 'pending')
          limit 1`,
    );
    const owed = await one('integration deliveries', 'GET', `/api/v1/integrations/${connId}/deliveries`, priv, 200);
    await one(
      'integration delivery retry',
      'POST',
      `/api/v1/integrations/${connId}/deliveries/${owed.body.data[0].id}/retry`,
      priv,
      200,
    );
    await one('integration delete', 'DELETE', `/api/v1/integrations/${connId}`, priv, 200);
    // refusals of the key answer after one statement too, and change nothing
    await one('revoked/unknown key', 'GET', `/api/v1/contests/${c.id}`, { key: `pk_${'A'.repeat(40)}` }, 401);
    await one(
      'public key on a private route',
      'POST',
      `/api/v1/entries/${adaId}/points`,
      { ...pub, body: { points: 1, reason: 'x' } },
      403,
    );
    await one(
      'bad body, valid key',
      'POST',
      `/api/v1/contests/${c.id}/entries`,
      { ...priv, body: { email: 'nope' } },
      400,
    );
    await one('malformed id, valid key', 'GET', '/api/v1/entries/not-a-uuid', pub, 404);
    expect(Object.entries(results).filter(([, n]) => n !== 1)).toEqual([]);
    // the two writes that read the game back after writing it are one batch (on node-postgres a
    // transaction: BEGIN, write, read, COMMIT; over Neon's HTTP path one request)
    const upd = await trips('PUT', `/api/v1/instant-win-games/${gameId}`, { ...priv, body: { title: 'Spin 2' } });
    expect(upd.res.status).toBe(200);
    expect(upd.texts.filter((q) => !/^\s*(begin|commit)\b/i.test(q)).length).toBe(3); // read rules' inputs; write; read back
    // reveal and replace: one batch each (the write, then the draw as it is now)
    const batchOf = async (name: string, path: string, body: unknown) => {
      const r = await trips('POST', path, { ...priv, body });
      expect(r.res.status, `${name}: ${JSON.stringify(r.res.body)}`).toBe(200);
      expect(r.res.headers.get('server-timing'), name).toMatch(/desc="1 round trip"$/);
      expect(r.texts.filter((q) => !/^\s*(begin|commit)\b/i.test(q)).length, name).toBe(2);
      return r.res;
    };
    const revealed = await batchOf('draw reveal', `/api/v1/draws/${drawId}/reveal`, {});
    await batchOf('draw replace', `/api/v1/draws/${drawId}/results/${revealed.body.data.results[0].entryId}/replace`, {
      reason: 'test',
    });
  });

  it('a write that records no event delivery sends exactly one statement, what follows the answer included', async () => {
    const team = await env.team('No endpoints');
    const c = await env.contest(team.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 1 },
    });
    const action = await createBonusAction(env.db, c.id, { action: 'visit', points: 5, confirmationType: 'click' });
    const priv = { key: team.privateKey };
    /** every statement the request caused, the background work after the answer included */
    const all = async (method: string, path: string, opts: Parameters<TestEnv['request']>[2]) => {
      const store = { texts: [] as string[] };
      const res = await counter.run(store, () => env.request(method, path, opts));
      await env.settle();
      return { res, texts: store.texts };
    };
    const writes: Array<[string, string, string, Parameters<TestEnv['request']>[2]]> = [];
    const ada = await all('POST', `/api/v1/contests/${c.id}/entries`, { ...priv, body: { email: 'solo@example.com' } });
    expect(ada.res.status).toBe(201);
    expect(ada.texts.length, ada.texts.join('\n---\n')).toBe(1);
    const adaId = ada.res.body.data.entryId;
    writes.push(
      [
        'entry create (referral)',
        'POST',
        `/api/v1/contests/${c.id}/entries`,
        { ...priv, body: { email: 'solo2@example.com', referralCode: ada.res.body.data.referralCode } },
      ],
      ['points adjust', 'POST', `/api/v1/entries/${adaId}/points`, { ...priv, body: { points: 3, reason: 'bonus' } }],
      [
        'bonus complete',
        'POST',
        `/api/v1/entries/${adaId}/bonus-actions/${action.id}/complete`,
        { key: team.publicKey },
      ],
      [
        'purchase',
        'POST',
        `/api/v1/contests/${c.id}/purchases`,
        { ...priv, body: { email: 'solo@example.com', orderId: 'o-solo', amount: 3 } },
      ],
      ['disqualify', 'POST', `/api/v1/entries/${adaId}/disqualify`, { ...priv, body: { disqualify: true } }],
      ['requalify', 'POST', `/api/v1/entries/${adaId}/disqualify`, { ...priv, body: { disqualify: false } }],
    );
    const counts: Record<string, number> = {};
    for (const [name, method, path, opts] of writes) {
      const r = await all(method, path, opts);
      expect(r.res.status, `${name}: ${r.res.text}`).toBeLessThan(300);
      counts[name] = r.texts.length;
    }
    expect(counts).toEqual(Object.fromEntries(writes.map(([name]) => [name, 1])));

    // the same write for a team with an endpoint starts its delivery pass after the answer
    const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
      ...priv,
      body: { url: 'https://hooks.example.test/solo' },
    });
    expect(ep.status).toBe(201);
    const withEndpoint = await all('POST', `/api/v1/entries/${adaId}/points`, {
      ...priv,
      body: { points: 1, reason: 'again' },
    });
    expect(withEndpoint.res.status).toBe(200);
    expect(withEndpoint.texts.length).toBeGreaterThan(1);
    expect(withEndpoint.texts.slice(1).some((q) => /event_deliveries/.test(q))).toBe(true);
  });

  it("the sign-up and its visitor's routes, without a key too: one statement each, the key or token check inside it", async () => {
    const team = await env.team('Page');
    const c = await env.contest(team.teamId, { requireEmailConfirmation: true });
    const on = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: team.privateKey,
      body: { publicSignup: true },
    });
    expect(on.status, on.text).toBe(200);
    const action = await createBonusAction(env.db, c.id, { action: 'follow', points: 2, confirmationType: 'auto' });
    const results: Record<string, number> = {};
    const one = recorder(results);
    await one('sign-up form (keyless)', 'GET', `/api/v1/contests/${c.id}/signup`, {}, 200);
    const ann = await one(
      'sign-up (keyless)',
      'POST',
      `/api/v1/contests/${c.id}/signup`,
      { body: { email: 'rt-ann@example.com' } },
      201,
    );
    await one(
      'sign-up (public key)',
      'POST',
      `/api/v1/contests/${c.id}/signup`,
      { key: team.publicKey, body: { email: 'rt-bob@example.com' }, headers: { 'x-forwarded-for': '198.51.100.9' } },
      201,
    );
    // the email's link: the confirmation is one statement too (its answer a redirect to the page)
    await env.settle();
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(
      env.sent.find((m) => m.to === 'rt-ann@example.com')!.text,
    )![1]!;
    const confirmed = await one('confirm', 'GET', `/api/confirm/${code}`, {}, 303, false);
    // the visitor's own token comes with the redirect to the page (#ce-entry=)
    const token = /#ce-entry=([^&]+)/.exec(confirmed.headers.get('location') ?? '')![1]!;
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    await one('me', 'GET', '/api/v1/me', bearer, 200);
    await one('me shares', 'POST', '/api/v1/me/shares', { ...bearer, body: { channel: 'x' } }, 201);
    await one(
      'visit (keyless)',
      'POST',
      `/api/v1/contests/${c.id}/visits`,
      { body: { referralCode: ann.body.data.referralCode, channel: 'x' } },
      202,
    );
    await one('hosted page', 'GET', `/c/${c.id}`, {}, 200);
    await one('short link', 'GET', `/r/${ann.body.data.referralCode}?via=x`, {}, 302, false);
    await one('short link (unknown code)', 'GET', '/r/NoSuchCode00', {}, 302, false);
    await one('contest (keyless)', 'GET', `/api/v1/contests/${c.id}`, {}, 200);
    await one('leaderboard (keyless)', 'GET', `/api/v1/contests/${c.id}/leaderboard`, {}, 200);
    await one('rewards (keyless)', 'GET', `/api/v1/contests/${c.id}/rewards`, {}, 200);
    const entryId = ann.body.data.entryId;
    await one('bonus actions (entry token)', 'GET', `/api/v1/entries/${entryId}/bonus-actions`, bearer, 200);
    await one(
      'bonus complete (entry token)',
      'POST',
      `/api/v1/entries/${entryId}/bonus-actions/${action.id}/complete`,
      bearer,
      200,
    );
    await one('funnel', 'GET', `/api/v1/contests/${c.id}/funnel`, { key: team.privateKey }, 200);
    expect(Object.entries(results).filter(([, n]) => n !== 1)).toEqual([]);
  });
});
