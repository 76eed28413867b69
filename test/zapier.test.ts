/**
 * The Zapier app (integrations/zapier/), run by the platform's own app tester
 * (zapier-platform-core's createAppTester) against `npm start`, and its definition held to the
 * platform's schema offline (the handler's `validate` command, what `zapier validate` runs: the
 * definition compiled and held to zapier-platform-schema). The hooks' target
 * is a local receiver standing in for Zapier's hook URL: an event the server posts there is fed to
 * the trigger's perform as Zapier would. Nothing leaves the machine (the app tester sends no logs
 * without a token; LOGGING_ENDPOINT points at loopback all the same).
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './browser/support/console-scenario.js';
import { type Server as AppServer, startServer } from './browser/support/dev-server.js';

const require = createRequire(import.meta.url);
process.env.LOGGING_ENDPOINT = 'http://127.0.0.1:9/zapier-logs';
delete process.env.LOGGING_TOKEN;
const zapier = require('zapier-platform-core');
const App = require('../integrations/zapier/index.js');
const appTester = zapier.createAppTester(App);

let server: AppServer;
let origin: string;
let receiver: Server;
let hookUrl: string;
const posted: any[] = [];
let authData: { baseUrl: string; apiKey: string };
let contestId: string;
let publicKey: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let s = '';
    req.on('data', (d) => (s += d));
    req.on('end', () => {
      posted.push(JSON.parse(s));
      res.writeHead(200);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/standard/1/abc`;
  server = await startServer('src/node.ts', { PGLITE_DIR: 'memory://', ALLOW_HTTP_WEBHOOKS: '1' });
  origin = server.origin;
  const team = await api(origin, 'POST', '/api/admin/teams', { body: { name: 'Zap team' } });
  const teamId = team.body.data.id as string;
  const key = async (type: string) =>
    (await api(origin, 'POST', `/api/admin/teams/${teamId}/api-keys`, { body: { type } })).body.data.key as string;
  authData = { baseUrl: `${origin}/`, apiKey: await key('private') };
  publicKey = await key('public');
  const c = await api(origin, 'POST', '/api/v1/contests', {
    key: authData.apiKey,
    body: { title: 'Zap contest', status: 'active', requireEmailConfirmation: false },
  });
  contestId = c.body.data.id;
  const tracked = await api(origin, 'PATCH', `/api/v1/contests/${contestId}`, {
    key: authData.apiKey,
    body: { purchaseTracking: { enabled: true, pointsPerPurchase: 5 } },
  });
  expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await new Promise((r) => receiver?.close(r));
});

describe('the Zapier app', () => {
  it("passes the platform's schema validation, offline (and a broken definition would not)", async () => {
    const validate = async (app: unknown) => (await zapier.createAppHandler(app)({ command: 'validate' })).results;
    expect(await validate(App)).toEqual([]);
    const hook = App.triggers.new_entry;
    const broken = {
      ...App,
      triggers: {
        ...App.triggers,
        new_entry: { ...hook, noun: '', operation: { ...hook.operation, type: 'webhook' } },
      },
    };
    expect((await validate(broken)).map((e: { property: string }) => e.property)).toEqual(
      expect.arrayContaining(['instance.triggers.new_entry.noun', 'instance.triggers.new_entry.operation.type']),
    );
    expect(App.platformVersion).toBe(zapier.version);
    expect(Object.keys(App.triggers).sort()).toEqual(
      [
        'bonus_action',
        'contest',
        'entry_confirmed',
        'game',
        'new_entry',
        'prize_claimed',
        'reward_unlocked',
        'winner_drawn',
      ].sort(),
    );
    expect(Object.keys(App.creates).sort()).toEqual(
      ['add_points', 'complete_bonus_action', 'create_entry', 'record_purchase'].sort(),
    );
    expect(Object.keys(App.searches)).toEqual(['find_entry']);
  });

  it("authentication: the deployment's address and a private key, tested by a call; a bad or public key refused in words", async () => {
    const key = await appTester(App.authentication.test, { authData });
    expect(key).toMatchObject({ teamName: 'Zap team', type: 'private' });
    await expect(appTester(App.authentication.test, { authData: { ...authData, apiKey: 'sk_nope' } })).rejects.toThrow(
      /Missing or invalid API key/,
    );
    await expect(appTester(App.authentication.test, { authData: { ...authData, apiKey: publicKey } })).rejects.toThrow(
      /public key/,
    );
  });

  it('a REST-hook trigger: subscribed with the API, an event delivered to the hook and performed, unsubscribed', async () => {
    const trigger = App.triggers.new_entry.operation;
    const hook = await appTester(trigger.performSubscribe, { authData, targetUrl: hookUrl, inputData: {} });
    expect(hook).toMatchObject({ url: hookUrl, event: 'entry.created' });
    const eps = await api(origin, 'GET', '/api/v1/webhook-endpoints', { key: authData.apiKey });
    expect(eps.body.data.map((e: { id: string; events: string[] }) => [e.id, e.events])).toEqual([
      [hook.id, ['entry.created']],
    ]);
    const made = await api(origin, 'POST', `/api/v1/contests/${contestId}/entries`, {
      key: authData.apiKey,
      body: { email: 'zoe@example.com', name: 'Zoe' },
    });
    expect(made.status).toBe(201);
    await expect.poll(() => posted.length).toBe(1);
    const items = await appTester(trigger.perform, { authData, cleanedRequest: posted[0], inputData: {} });
    expect(items).toEqual([
      expect.objectContaining({
        id: posted[0].id,
        type: 'entry.created',
        contestId,
        entryId: made.body.data.entryId,
        email: 'zoe@example.com',
        name: 'Zoe',
      }),
    ]);
    // a Zap on another contest lets it pass by
    expect(
      await appTester(trigger.perform, {
        authData,
        cleanedRequest: posted[0],
        inputData: { contestId: '00000000-0000-4000-8000-000000000000' },
      }),
    ).toEqual([]);
    // the sample list, from the API
    const list = await appTester(trigger.performList, { authData, inputData: { contestId } });
    // the sample has the fields the event has
    expect(list).toEqual([
      expect.objectContaining({ contestId, entryId: made.body.data.entryId, email: 'zoe@example.com', name: 'Zoe' }),
    ]);
    const eventKeys = Object.keys(items[0]).filter((k) => !['referredBy'].includes(k));
    for (const k of eventKeys) expect(Object.keys(list[0]), k).toContain(k);
    const gone = await appTester(trigger.performUnsubscribe, { authData, subscribeData: hook, inputData: {} });
    expect(gone).toEqual({ id: hook.id, deleted: true });
    expect((await api(origin, 'GET', '/api/v1/webhook-endpoints', { key: authData.apiKey })).body.data).toEqual([]);
  });

  it('actions: create an entry, add points, complete a bonus action, record a purchase; the search finds by email', async () => {
    const created = await appTester(App.creates.create_entry.operation.perform, {
      authData,
      inputData: { contestId, email: 'Yan@Example.com', name: 'Yan' },
    });
    expect(created).toMatchObject({ alreadyExists: false, email: 'yan@example.com' });
    const found = await appTester(App.searches.find_entry.operation.perform, {
      authData,
      inputData: { contestId, email: 'yan@example.com' },
    });
    expect(found.map((e: { id: string }) => e.id)).toEqual([created.id]);
    const points = await appTester(App.creates.add_points.operation.perform, {
      authData,
      inputData: { entryId: created.id, points: '7', reason: 'Zapier' },
    });
    expect(points).toMatchObject({ previousTotal: 0, newTotal: 7, adjustment: 7 });
    const action = await api(origin, 'POST', `/api/v1/contests/${contestId}/bonus-actions`, {
      key: authData.apiKey,
      body: { action: 'Follow us', points: 3 },
    });
    expect(action.status, JSON.stringify(action.body)).toBe(201);
    const choices = await appTester(App.triggers.bonus_action.operation.perform, {
      authData,
      inputData: { contestId },
    });
    expect(choices).toEqual([{ id: action.body.data.id, name: 'Follow us' }]);
    const done = await appTester(App.creates.complete_bonus_action.operation.perform, {
      authData,
      inputData: { contestId, entryId: created.id, bonusActionId: action.body.data.id },
    });
    expect(done).toMatchObject({ alreadyCompleted: false, pointsAdded: 3, newTotalPoints: 10 });
    const bought = await appTester(App.creates.record_purchase.operation.perform, {
      authData,
      inputData: { contestId, email: 'yan@example.com', orderId: 'zap-1', amount: '12.5' },
    });
    expect(bought).toMatchObject({ id: 'zap-1', alreadyExists: false, pointsAwarded: 5 });
    const entry = await api(origin, 'GET', `/api/v1/entries/${created.id}`, { key: authData.apiKey });
    expect(entry.body.data.points).toBe(15);
    const contests = await appTester(App.triggers.contest.operation.perform, { authData, inputData: {} });
    expect(contests).toEqual([{ id: contestId, title: 'Zap contest' }]);
  });

  it('the sample lists of rewards, winners and prizes come from the API', async () => {
    const reward = await api(origin, 'POST', `/api/v1/contests/${contestId}/rewards`, {
      key: authData.apiKey,
      body: { name: 'Badge', pointsRequired: 1, code: 'BADGE1' },
    });
    expect(reward.status, JSON.stringify(reward.body)).toBe(201);
    const yan = (
      await appTester(App.searches.find_entry.operation.perform, {
        authData,
        inputData: { contestId, email: 'yan@example.com' },
      })
    )[0];
    await api(origin, 'POST', `/api/v1/entries/${yan.id}/points`, {
      key: authData.apiKey,
      body: { points: 1, reason: 'x' },
    });
    const unlocks = await appTester(App.triggers.reward_unlocked.operation.performList, { authData, inputData: {} });
    expect(unlocks).toEqual([
      expect.objectContaining({ type: 'reward.unlocked', rewardName: 'Badge', entryId: yan.id }),
    ]);
    const draw = await api(origin, 'POST', `/api/v1/contests/${contestId}/draws`, {
      key: authData.apiKey,
      body: { winners: 1, label: 'Grand prize' },
    });
    expect(draw.status, JSON.stringify(draw.body)).toBe(201);
    const revealed = await api(origin, 'POST', `/api/v1/draws/${draw.body.data.id}/reveal`, {
      key: authData.apiKey,
      body: {},
    });
    expect(revealed.status).toBe(200);
    const winners = await appTester(App.triggers.winner_drawn.operation.performList, {
      authData,
      inputData: { contestId },
    });
    expect(winners).toEqual([
      expect.objectContaining({
        drawId: draw.body.data.id,
        label: 'Grand prize',
        position: 1,
        entryId: revealed.body.data.results[0].entryId,
      }),
    ]);
    // each winner of a revealed draw's event is one item
    const split = await appTester(App.triggers.winner_drawn.operation.perform, {
      authData,
      inputData: {},
      cleanedRequest: {
        id: 'evt-1',
        type: 'draw.revealed',
        contestId,
        data: { ...revealed.body.data, drawId: draw.body.data.id },
      },
    });
    expect(split).toEqual([
      expect.objectContaining({ id: `evt-1:${revealed.body.data.results[0].entryId}`, position: 1 }),
    ]);
    expect(await appTester(App.triggers.prize_claimed.operation.performList, { authData, inputData: {} })).toEqual([]);
  });

  it("a refused step fails with the API's own sentence", async () => {
    await expect(
      appTester(App.creates.create_entry.operation.perform, {
        authData,
        inputData: { contestId, email: 'not an email' },
      }),
    ).rejects.toThrow(/email/i);
    await expect(
      appTester(App.creates.add_points.operation.perform, {
        authData,
        inputData: { entryId: '00000000-0000-4000-8000-000000000000', points: '1', reason: 'x' },
      }),
    ).rejects.toThrow(/Entry not found/);
  });
});
