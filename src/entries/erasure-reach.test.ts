/**
 * Erasure reaches every copy we hold: after DELETE /api/v1/entries/:id, no table of the database,
 * no answer, no export, no retried delivery and no pending delivery contains the person's email,
 * name, phone or custom field value. The person is created on every path that copies personal
 * data somewhere (signup webhook with its kept answer, confirmation email, referral both ways,
 * bonus action, purchase, points, disqualify/requalify, an instant-win claim, a revealed draw
 * that picked it), with events going to two endpoints: one that takes them (delivered) and one
 * that fails (pending, retried later).
 */
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';
import { deliverDueEvents, deliveryContext } from '../events/deliver.js';

interface Received {
  url: string;
  body: string;
  at: number;
}

let env: TestEnv;
let t: TeamFixture;
const received: Received[] = [];
let failing = true;

beforeAll(async () => {
  env = await createTestEnv();
  env.deps.fetch = async (input, init) => {
    const url = String(input);
    received.push({ url, body: String(init?.body ?? ''), at: Date.now() });
    const status = url.endsWith('/down') && failing ? 500 : 200;
    return new Response('ok', { status });
  };
  t = await env.team('Erasure team');
});
afterAll(() => env.close());

const PERSON = {
  email: 'zelda.erasable.7q3@example.com',
  name: 'Zelda Erasable-Qx',
  phone: '+15550007319',
  custom: 'favourite-colour-vermilion-77',
};
const VALUES = Object.values(PERSON);
const req = (method: string, path: string, body?: unknown) => env.request(method, path, { key: t.privateKey, body });

/** every user table, every row cast to text: where does any of the values still stand? */
async function hitsInDatabase(): Promise<string[]> {
  const tables = await query<{ name: string }>(
    env.db,
    sql`select quote_ident(table_name) as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const hits: string[] = [];
  for (const { name } of tables) {
    for (const v of VALUES) {
      const rows = await query<{ n: number }>(
        env.db,
        sql`select count(*)::int as n from ${sql.raw(name)} x where x::text ilike ${`%${v}%`}`,
      );
      if (rows[0]!.n > 0) hits.push(`${name}: ${v} (${rows[0]!.n})`);
    }
  }
  return hits;
}

const containsPerson = (text: string) => VALUES.filter((v) => text.toLowerCase().includes(v.toLowerCase()));

describe('erasure reaches every copy', () => {
  it('after the erasure no table, answer, export, retry or pending delivery holds the email, name, phone or custom field', async () => {
    const up = await req('POST', '/api/v1/webhook-endpoints', { url: 'https://hooks.example.test/up' });
    const down = await req('POST', '/api/v1/webhook-endpoints', { url: 'https://hooks.example.test/down' });
    expect(up.status).toBe(201);
    expect(down.status).toBe(201);

    const contest = await env.contest(t.teamId, {
      requireEmailConfirmation: true,
      externalTracking: { enabled: true },
      purchaseTracking: { enabled: true, pointsPerPurchase: 3 },
      referral: { advocatePoints: 5, friendPoints: 2 },
    } as never);
    const secret = (
      await env.request('POST', `/api/admin/contests/${contest.id}/webhook-secret`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).body.data.secret as string;

    // an advocate, then the person through the signup webhook with the advocate's code (its answer is kept)
    const adv = await req('POST', `/api/v1/contests/${contest.id}/entries`, {
      email: 'advocate.keep@example.com',
      name: 'Advocate Keep',
    });
    expect(adv.status).toBe(201);
    const raw = JSON.stringify({
      email: PERSON.email,
      name: PERSON.name,
      phone: PERSON.phone,
      referralCode: adv.body.data.referralCode,
      customFieldData: { colour: PERSON.custom },
    });
    const at = new Date();
    const signup = await env.request('POST', `/api/webhooks/signup/${contest.id}`, {
      rawBody: raw,
      headers: {
        'webhook-id': 'msg_erasure_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('msg_erasure_1', at, raw),
      },
    });
    expect(signup.status, signup.text).toBe(201);
    const personId = signup.body.data.entryId as string;
    const personCode = (await req('GET', `/api/v1/entries/${personId}`)).body.data.referralCode as string;

    // the person refers a friend, completes a bonus action, buys, gets points, is disqualified and requalified
    const friend = await req('POST', `/api/v1/contests/${contest.id}/entries`, {
      email: 'friend.keep@example.com',
      name: 'Friend Keep',
      referralCode: personCode,
    });
    expect(friend.status).toBe(201);
    const action = await createBonusAction(env.db, contest.id, {
      action: 'follow',
      description: 'Follow us',
      icon: 'x',
      iconColor: '#000',
      points: 4,
      confirmationType: 'auto',
    } as never);
    expect((await req('POST', `/api/v1/entries/${personId}/bonus-actions/${action!.id}/complete`, {})).status).toBe(
      200,
    );
    expect(
      (
        await req('POST', `/api/v1/contests/${contest.id}/purchases`, {
          email: PERSON.email,
          orderId: 'order-erasure-1',
          amount: 12.5,
        })
      ).status,
    ).toBe(201);
    expect((await req('POST', `/api/v1/entries/${personId}/points`, { points: 7, reason: 'goodwill' })).status).toBe(
      200,
    );
    expect((await req('POST', `/api/v1/entries/${personId}/disqualify`, { disqualify: true })).status).toBe(200);
    expect((await req('POST', `/api/v1/entries/${personId}/disqualify`, { disqualify: false })).status).toBe(200);

    // a draw over the contest picks everybody (3 entries, 3 winners): the person is among the winners
    const draw = await req('POST', `/api/v1/contests/${contest.id}/draws`, {
      winners: 3,
      label: 'all of them',
      confirmedOnly: false,
    });
    expect(draw.status, draw.text).toBe(201);
    const revealed = await req('POST', `/api/v1/draws/${draw.body.data.id}/reveal`, {
      publicRandomness: 'erasure-test',
    });
    expect(revealed.status, revealed.text).toBe(200);
    expect(revealed.body.data.results.map((r: { email: string }) => r.email)).toContain(PERSON.email);

    // an instant-win game of the team: the person plays and claims with the same email
    const game = await req('POST', '/api/v1/instant-win-games', {
      slug: 'spin-to-win',
      title: 'Erasure wheel',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'landing',
      tiers: [
        { name: 'Prize', oddsPercent: 100, redeemCode: 'CODE1' },
        { name: 'Miss', oddsPercent: 0, isMiss: true },
      ],
    });
    expect(game.status, game.text).toBe(201);
    const play = await env.request('POST', `/api/v1/instant-win-games/${game.body.data.id}/play`, {
      key: t.publicKey,
      body: {},
    });
    expect(play.status, play.text).toBe(200);
    const claim = await env.request(
      'POST',
      `/api/v1/instant-win-games/${game.body.data.id}/plays/${play.body.data.playId}/claim`,
      {
        key: t.publicKey,
        body: { email: PERSON.email, playCookie: play.body.data.playCookie },
      },
    );
    expect(claim.status, claim.text).toBe(200);
    await env.settle();

    // before: the values are everywhere, and the failing endpoint holds pending deliveries naming the person
    expect((await hitsInDatabase()).length).toBeGreaterThan(5);
    const pendingBefore = await req(
      'GET',
      `/api/v1/webhook-endpoints/${down.body.data.id}/deliveries?status=pending&limit=100`,
    );
    expect(pendingBefore.body.data.length).toBeGreaterThan(5);
    const delivered = await req(
      'GET',
      `/api/v1/webhook-endpoints/${up.body.data.id}/deliveries?status=delivered&limit=100`,
    );
    const createdDelivery = delivered.body.data.find((d: { type: string }) => d.type === 'entry.created');
    expect(createdDelivery).toBeTruthy();

    // the person's entries: the contest's and the one the claim made in the game
    const gameEntry = (
      await query<{ id: string }>(
        env.db,
        sql`select id from entries where contest_id = ${game.body.data.id} and email = ${PERSON.email}`,
      )
    )[0]!.id;
    const erasedAt = Date.now();
    for (const id of [personId, gameEntry]) {
      const r = await req('DELETE', `/api/v1/entries/${id}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ success: true, data: { entryId: id, erased: true } });
    }
    await env.settle();

    // no table holds any of the values
    expect(await hitsInDatabase()).toEqual([]);

    // the kept events keep their ids and totals: the draw still names the winner's entry id, the claim its play
    const events = await query<{ type: string; data: Record<string, unknown> }>(
      env.db,
      sql`select type, data from events where team_id = ${t.teamId}`,
    );
    const created = events.find((e) => e.type === 'entry.created' && e.data.entryId === personId)!;
    expect(created.data).toMatchObject({
      entryId: personId,
      email: null,
      name: null,
      phone: null,
      points: expect.any(Number),
    });
    const drawEvent = events.find((e) => e.type === 'draw.revealed')!;
    const winner = (drawEvent.data.results as Array<Record<string, unknown>>).find((r) => r.entryId === personId)!;
    expect(winner).toMatchObject({ entryId: personId, email: null, name: null, weight: 1 });
    // other people in the same event are untouched
    expect((drawEvent.data.results as Array<Record<string, unknown>>).map((r) => r.email)).toContain(
      'advocate.keep@example.com',
    );
    const claimed = events.find((e) => e.type === 'instant_win.claimed')!;
    expect(claimed.data).toMatchObject({ playId: play.body.data.playId, email: null, prizeName: 'Prize' });

    // a retry of an already delivered event sends the scrubbed body
    const retry = await req(
      'POST',
      `/api/v1/webhook-endpoints/${up.body.data.id}/deliveries/${createdDelivery.id}/retry`,
    );
    expect(retry.status, retry.text).toBe(409); // delivered: the documented answer; nothing is sent again
    // pending deliveries (the failing endpoint) go out scrubbed: retried by hand, or later by the deliverer
    failing = false;
    const pendingCreated = pendingBefore.body.data.find((d: { type: string }) => d.type === 'entry.created');
    const retried = await req(
      'POST',
      `/api/v1/webhook-endpoints/${down.body.data.id}/deliveries/${pendingCreated.id}/retry`,
    );
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data.status).toBe('delivered');
    env.clock.advance(2 * 60 * 60 * 1000);
    await deliverDueEvents(env.db, deliveryContext(env.deps), env.clock);
    const after = received.filter((r) => r.at >= erasedAt);
    expect(after.filter((r) => r.url.endsWith('/down')).length).toBeGreaterThan(5);
    for (const r of after) expect(containsPerson(r.body), r.body).toEqual([]);
    // and the receivers are told to forget the person
    expect(
      after.filter((r) => JSON.parse(r.body).type === 'entry.erased').map((r) => JSON.parse(r.body).data),
    ).toContainEqual({ entryId: personId });

    // answers and exports
    const answers = [
      await req('GET', `/api/v1/contests/${contest.id}/entries?limit=100`),
      await req('GET', `/api/v1/contests/${contest.id}/leaderboard`),
      await req('GET', `/api/v1/contests/${contest.id}/entries/export`),
      await req('GET', `/api/v1/draws/${draw.body.data.id}`),
      await req('GET', `/api/v1/instant-win-games/${game.body.data.id}/plays`),
      await req('GET', `/api/v1/contests/${contest.id}/webhook-receipts`),
      await req('GET', `/api/v1/webhook-endpoints/${down.body.data.id}/deliveries?limit=100`),
      await env.request('GET', `/api/admin/teams/${t.teamId}/emails`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    ];
    for (const a of answers) {
      expect(a.status, a.text).toBe(200);
      expect(containsPerson(a.text), a.text).toEqual([]);
    }
    expect((await req('GET', `/api/v1/entries/${personId}`)).status).toBe(404);
    expect((await req('GET', `/api/v1/entries/${personId}/export`)).status).toBe(404);
  });
});
