import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { endpoint, env, fresh, received, setAnswer, verify } from '../../test/support/fixtures/events.js';
import { createBonusAction } from '../admin/admin.js';
import { query } from '../db/client.js';
import { teamById } from '../db/team.js';
import { setDisqualified } from '../entries/entries.js';
import { runScheduledJobs } from '../jobs.js';
import { deliverDueEvents, deliveryContext, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './deliver.js';

describe('events', () => {
  it('every change records its event in the same statement, delivered signed (standardwebhooks verifies it) right after the answer', async () => {
    const team = await fresh();
    const ep = await endpoint({}, team);
    const c = await env.contest(team.teamId, {
      requireEmailConfirmation: true,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 1 },
    });
    const key = { key: team.privateKey };
    const ann = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key,
      body: { email: 'ann@example.com', name: 'Ann' },
    });
    const annId = ann.body.data.entryId;
    const bob = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key,
      body: { email: 'bob@example.com', referralCode: ann.body.data.referralCode },
    });
    const bobId = bob.body.data.entryId;
    await env.settle();
    const link = env.sent.find((m) => m.to === 'ann@example.com')!.text.match(/\/api\/confirm\/(\S+)/)![1]!;
    expect((await env.request('GET', `/api/confirm/${link}`, { headers: { accept: 'application/json' } })).status).toBe(
      200,
    );
    await env.request('POST', `/api/v1/entries/${annId}/disqualify`, { ...key, body: { disqualify: true } });
    await env.request('POST', `/api/v1/entries/${annId}/disqualify`, { ...key, body: { disqualify: false } });
    await env.request('POST', `/api/v1/entries/${annId}/points`, { ...key, body: { points: 7, reason: 'goodwill' } });
    const action = await createBonusAction(env.db, c.id, { action: 'visit', points: 3, confirmationType: 'click' });
    expect(
      (
        await env.request('POST', `/api/v1/entries/${annId}/bonus-actions/${action.id}/complete`, {
          key: team.publicKey,
          body: {},
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
          ...key,
          body: { email: 'ann@example.com', orderId: 'o-1', amount: 12.5 },
        })
      ).status,
    ).toBe(201);
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      ...key,
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
    const gameId = game.body.data.id;
    const play = await env.request('POST', `/api/v1/instant-win-games/${gameId}/play`, {
      key: team.publicKey,
      body: {},
    });
    const playId = play.body.data.playId;
    await env.request('POST', `/api/v1/instant-win-games/${gameId}/plays/${playId}/claim`, {
      key: team.publicKey,
      body: { email: 'win@example.com', playCookie: play.body.data.playCookie },
    });
    const test = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, key);
    expect(test.status).toBe(202);
    expect(Object.keys(test.body.data)).toEqual(['eventId']);
    expect((await env.request('DELETE', `/api/v1/entries/${bobId}`, key)).status).toBe(200);
    await env.settle();

    for (const r of received) {
      expect(verify(ep.secret, r)).toEqual(r.json);
      expect(r.headers['webhook-id']).toBe(r.json.id);
      expect(r.headers['content-type']).toBe('application/json');
      expect(Object.keys(r.json).sort()).toEqual(['contestId', 'createdAt', 'data', 'id', 'type']);
    }
    const byType = (type: string) => received.filter((r) => r.json.type === type).map((r) => r.json);
    expect(byType('entry.created').map((e) => e.data.entryId)).toEqual([annId, bobId]);
    expect(byType('entry.created')[0]).toMatchObject({
      contestId: c.id,
      data: { entryId: annId, email: 'ann@example.com', name: 'Ann', emailConfirmed: false },
    });
    expect(byType('referral.credited')[0].data).toMatchObject({
      advocateEntryId: annId,
      friendEntryId: bobId,
      advocatePoints: 10,
      friendPoints: 5,
    });
    expect(byType('entry.confirmed')[0].data).toMatchObject({ entryId: annId, emailConfirmed: true });
    expect(byType('entry.disqualified')[0].data).toMatchObject({ entryId: annId, disqualified: true });
    expect(byType('entry.requalified')[0].data).toMatchObject({ entryId: annId, disqualified: false });
    expect(byType('points.adjusted')[0].data).toMatchObject({ entryId: annId, adjustment: 7, reason: 'goodwill' });
    expect(byType('bonus_action.completed')[0].data).toMatchObject({
      entryId: annId,
      bonusActionId: action.id,
      pointsAwarded: 3,
    });
    expect(byType('purchase.recorded')[0].data).toMatchObject({ entryId: annId, orderId: 'o-1', amount: 12.5 });
    expect(byType('instant_win.won')[0]).toMatchObject({
      contestId: gameId,
      data: { gameId, playId, prizeName: 'Prize' },
    });
    expect(byType('instant_win.claimed')[0].data).toMatchObject({ gameId, playId, email: 'win@example.com' });
    expect(byType('webhook.test')[0]).toMatchObject({
      id: test.body.data.eventId,
      contestId: null,
      data: { endpointId: ep.id },
    });
    expect(byType('entry.erased')[0]).toMatchObject({ contestId: c.id, data: { entryId: bobId } });
    expect(Object.keys(byType('entry.erased')[0].data)).toEqual(['entryId']);
    // each delivered once, logged as delivered
    const log = await env.request('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=100`, key);
    expect(log.body.pagination.total).toBe(received.length);
    expect(new Set(received.map((r) => r.json.id)).size).toBe(received.length);
    for (const d of log.body.data) {
      expect(d).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
      });
      expect(Object.keys(d).sort()).toEqual([
        'attempts',
        'createdAt',
        'deliveredAt',
        'eventId',
        'id',
        'lastError',
        'lastStatusCode',
        'nextAttemptAt',
        'status',
        'type',
      ]);
    }
  });

  it('a rotated secret signs at once; the old one also signs until it expires, then not; another team cannot rotate', async () => {
    const team = await fresh();
    const ep = await endpoint({}, team);
    const key = { key: team.privateKey };
    const rot = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, {
      ...key,
      body: { previousSecretValidHours: 2 },
    });
    expect(rot.status, rot.text).toBe(200);
    expect(rot.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
    const next = rot.body.data as { secret: string; previousSecretExpiresAt: string };
    expect(next.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(next.secret).not.toBe(ep.secret);
    expect(new Date(next.previousSecretExpiresAt).getTime() - env.clock.now().getTime()).toBeGreaterThan(
      2 * 3_600_000 - 5_000,
    );
    expect(rot.body.data).toMatchObject({ id: ep.id, enabled: true });
    // the secret is never shown again
    const list = await env.request('GET', '/api/v1/webhook-endpoints', key);
    expect(list.text).not.toContain(next.secret);

    expect((await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, key)).status).toBe(202);
    await env.settle();
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(next.secret, received[0]!)).toEqual(received[0]!.json);
    expect(verify(ep.secret, received[0]!)).toEqual(received[0]!.json);

    // once those hours are over (moved here in the database: the receiver checks timestamps against real time) the old secret signs no more
    await query(
      env.db,
      sql`update webhook_endpoints set previous_secret_until = ${new Date(env.clock.now().getTime() - 1_000).toISOString()}::timestamptz where id = ${ep.id}`,
    );
    received.length = 0;
    expect((await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, key)).status).toBe(202);
    await env.settle();
    expect(received[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(next.secret, received[0]!)).toEqual(received[0]!.json);
    expect(() => verify(ep.secret, received[0]!)).toThrow();

    // 0 hours: the old one stops at once
    const now0 = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, {
      ...key,
      body: { previousSecretValidHours: 0 },
    });
    expect(now0.body.data.previousSecretExpiresAt).toBeNull();
    received.length = 0;
    await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, key);
    await env.settle();
    expect(() => verify(next.secret, received[0]!)).toThrow();
    expect(verify(now0.body.data.secret, received[0]!)).toEqual(received[0]!.json);

    for (const [body, message] of [
      [{ previousSecretValidHours: 73 }, 'previousSecretValidHours must be a whole number from 0 to 72'],
      [{ previousSecretValidHours: 1.5 }, 'previousSecretValidHours must be a whole number from 0 to 72'],
      [{ previousSecretValidHours: '24' }, 'previousSecretValidHours must be a whole number from 0 to 72'],
    ] as const) {
      const r = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, { ...key, body });
      expect([r.status, r.body]).toEqual([400, { success: false, error: message }]);
    }
    const other = await env.team();
    const theirs = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, {
      key: other.privateKey,
      body: {},
    });
    expect([theirs.status, theirs.body]).toEqual([404, { success: false, error: 'Webhook endpoint not found' }]);
    const pub = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, {
      key: team.publicKey,
      body: {},
    });
    expect(pub.status).toBe(403);
    const stored = await query<{ secret: string }>(
      env.db,
      sql`select secret from webhook_endpoints where id = ${ep.id}`,
    );
    expect(stored[0]!.secret).toBe(now0.body.data.secret);
  });

  it('one event goes to every enabled endpoint subscribed to it, with the same webhook-id; others get nothing', async () => {
    const team = await fresh();
    const all = await endpoint({ url: 'https://hooks.example.test/all' }, team);
    const confirmedOnly = await endpoint(
      { url: 'https://hooks.example.test/confirmed', events: ['entry.confirmed'] },
      team,
    );
    const disabled = await endpoint({ url: 'https://hooks.example.test/disabled' }, team);
    await env.request('PATCH', `/api/v1/webhook-endpoints/${disabled.id}`, {
      key: team.privateKey,
      body: { enabled: false },
    });
    const second = await endpoint({ url: 'https://hooks.example.test/second', events: ['entry.created'] }, team);
    const other = await fresh().then(async (o) => ({
      team: o,
      ep: await endpoint({ url: 'https://hooks.example.test/other' }, o),
    }));
    received.length = 0;
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
    await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'x@example.com' },
    });
    await env.settle();
    expect(received.map((r) => r.url).sort()).toEqual([
      'https://hooks.example.test/all',
      'https://hooks.example.test/second',
    ]);
    expect(received[0]!.headers['webhook-id']).toBe(received[1]!.headers['webhook-id']);
    expect(verify(all.secret, received.find((r) => r.url.endsWith('/all'))!)).toBeTruthy();
    expect(verify(second.secret, received.find((r) => r.url.endsWith('/second'))!)).toBeTruthy();
    expect(() => verify(confirmedOnly.secret, received[0]!)).toThrow();
    void other;
  });

  it('a change that rolls back records and sends nothing', async () => {
    const team = await fresh();
    await endpoint({}, team);
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
    const entry = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'rb@example.com' },
    });
    await env.settle();
    received.length = 0;
    const before = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from events where team_id = ${team.teamId}`,
    );
    await expect(
      env.db.transaction(async (tx) => {
        await setDisqualified(tx as never, teamById(team.teamId), entry.body.data.entryId, true, env.clock.now());
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await deliverDueEvents(env.db, deliveryContext(env.deps), env.clock);
    const after = await query<{ n: string }>(
      env.db,
      sql`select count(*) as n from events where team_id = ${team.teamId}`,
    );
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
    expect(received).toEqual([]);
  });

  it('an event committed by a process that never started its delivery is delivered by the cron', async () => {
    const team = await fresh();
    await endpoint({ url: 'https://hooks.example.test/cron' }, team);
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
    const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'cron@example.com' },
    });
    await env.settle();
    received.length = 0;
    // the change and its event commit, and nothing starts a delivery (as if the process died right after the commit)
    await setDisqualified(env.db, teamById(team.teamId), e.body.data.entryId, true, env.clock.now());
    expect(received).toEqual([]);
    await runScheduledJobs(env.deps);
    expect(received.map((r) => [r.url, r.json.type])).toEqual([
      ['https://hooks.example.test/cron', 'entry.disqualified'],
    ]);
  });

  it('failures are retried with backoff (first retry >= 30 s), 9 attempts over more than 24 h, then failed; manual retry', async () => {
    const team = await fresh();
    const ep = await endpoint({ url: 'https://hooks.example.test/retries' }, team);
    const mine = () => received.filter((r) => r.url === 'https://hooks.example.test/retries');
    setAnswer(() => 500);
    const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
    env.clock.freeze();
    try {
      const start = env.clock.now().getTime();
      await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: 'r@example.com' },
      });
      await env.settle();
      expect(mine()).toHaveLength(1);
      const log = async () =>
        (await env.request('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`, { key: team.privateKey })).body
          .data[0];
      let d = await log();
      expect(d).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        deliveredAt: null,
      });
      const next = Date.parse(d.nextAttemptAt) - start;
      expect(next).toBeGreaterThanOrEqual(30_000);
      expect(next).toBeLessThanOrEqual(36_000);
      // not before its time
      env.clock.advance(29_000);
      await runScheduledJobs(env.deps);
      expect(mine()).toHaveLength(1);
      const times = [start];
      for (let i = 2; i <= MAX_ATTEMPTS; i++) {
        d = await log();
        env.clock.set(new Date(Date.parse(d.nextAttemptAt)));
        await runScheduledJobs(env.deps);
        expect(mine(), `attempt ${i}`).toHaveLength(i);
        times.push(env.clock.now().getTime());
      }
      d = await log();
      expect(d).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
      expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(8);
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(24 * 3600_000);
      for (let i = 1; i < times.length; i++)
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i - 1]!);
      // every attempt carried the same webhook-id, each validly signed at its own timestamp
      expect(new Set(mine().map((r) => r.headers['webhook-id'])).size).toBe(1);
      env.clock.advance(3 * 86_400_000);
      await runScheduledJobs(env.deps);
      expect(mine()).toHaveLength(MAX_ATTEMPTS);

      // manual retry: attempts at once and answers the delivery after it
      setAnswer(() => 204);
      const retried = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, {
        key: team.privateKey,
      });
      expect(retried.status).toBe(200);
      expect(retried.body.data).toMatchObject({
        id: d.id,
        status: 'delivered',
        attempts: MAX_ATTEMPTS + 1,
        lastStatusCode: 204,
        lastError: null,
      });
      const again = await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/retry`, {
        key: team.privateKey,
      });
      expect([again.status, again.body.error]).toEqual([409, 'Delivery already delivered']);
      const unknown = await env.request(
        'POST',
        `/api/v1/webhook-endpoints/${ep.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`,
        { key: team.privateKey },
      );
      expect([unknown.status, unknown.body.error]).toEqual([404, 'Delivery not found']);
      const noEp = await env.request(
        'POST',
        `/api/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/deliveries/${d.id}/retry`,
        { key: team.privateKey },
      );
      expect([noEp.status, noEp.body.error]).toEqual([404, 'Webhook endpoint not found']);
      const filtered = await env.request('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?status=failed`, {
        key: team.privateKey,
      });
      expect(filtered.body.data).toEqual([]);
      const badStatus = await env.request('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?status=nope`, {
        key: team.privateKey,
      });
      expect([badStatus.status, badStatus.body.error]).toEqual([400, 'Invalid status']);
    } finally {
      env.clock.thaw();
    }
  });

  it('deliveries and events older than 30 days are deleted by the cron', async () => {
    const team = await fresh();
    const ep = await endpoint({}, team);
    await env.request('POST', `/api/v1/webhook-endpoints/${ep.id}/test`, { key: team.privateKey });
    await env.settle();
    env.clock.advance(29 * 86_400_000);
    await runScheduledJobs(env.deps);
    const count = async () =>
      Number(
        (
          await query<{ n: string }>(
            env.db,
            sql`select count(*) as n from event_deliveries where endpoint_id = ${ep.id}`,
          )
        )[0]!.n,
      );
    expect(await count()).toBe(1);
    env.clock.advance(2 * 86_400_000);
    await runScheduledJobs(env.deps);
    expect(await count()).toBe(0);
    env.clock.advance(-31 * 86_400_000);
  });
});
