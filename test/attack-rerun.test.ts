/**
 * The attack of the trust-and-safety issue, run again with nothing but a copied public key:
 * 1. a masked key reading the entries list and search for a minute: how many real emails leak;
 * 2. a public key completing manual bonus actions for every entry: how many points it adds;
 * 3. behind TRUST_PROXY=1, plays with a new spoofed left-most X-Forwarded-For each time: how
 *    many get through the per-IP limit.
 * The numbers are printed ([attack] lines) and asserted.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createBonusAction } from '../src/admin/admin.js';
import { queryOne } from '../src/db/client.js';
import { forwardedClientIp } from '../src/deps.js';
import { createTestEnv, type TeamFixture, type TestEnv, wheelGameBody } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
let masked: string;
let contestId: string;
const N = 120;
const emails = Array.from({ length: N }, (_, i) => `person${i}.real@example.com`);
const REAL_IP = '198.51.100.7';
// the proxy appends the address it saw; whatever the client wrote stays on the left
const viaProxy = (spoofed: string) => ({ 'x-forwarded-for': `${spoofed}, ${REAL_IP}` });

beforeAll(async () => {
  env = await createTestEnv();
  // Node behind one trusted proxy (src/node.ts with TRUST_PROXY=1)
  env.deps.clientIp = (c) => forwardedClientIp(c.req.header('x-forwarded-for'), 1) ?? '127.0.0.1';
  env.clock.freeze();
  t = await env.team('Shop');
  masked = (await createApiKey(env.db, env.deps.random, t.teamId, 'public', 'page', 'masked')).key;
  contestId = (await env.contest(t.teamId, { requireEmailConfirmation: false })).id;
  for (const email of emails) {
    const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
      key: t.privateKey,
      body: { email, name: 'Real Person' },
    });
    expect(r.status).toBe(201);
  }
});
afterAll(() => env?.close());

describe('attack re-run with a copied public key', () => {
  // 700 requests one after the other: 22 s on an idle 2-core machine, past 30 s with both cores
  // busy (CI under load): the time is given for a loaded machine, several times the idle one
  it('masked key: no real email readable; requests capped per (key, IP) whatever the spoofed header', {
    timeout: 180_000,
  }, async () => {
    let ok = 0;
    let limited = 0;
    const leaked = new Set<string>();
    const paths = [
      `/api/v1/contests/${contestId}/entries?limit=100`,
      `/api/v1/contests/${contestId}/entries?limit=100&page=2`,
      `/api/v1/contests/${contestId}/entries?search=person`,
      `/api/v1/contests/${contestId}/entries?search=real`,
      `/api/v1/contests/${contestId}/leaderboard`,
    ];
    for (let i = 0; i < 700; i++) {
      const r = await env.request('GET', paths[i % paths.length]!, {
        key: masked,
        headers: viaProxy(`10.${i % 250}.0.${i % 200}`),
      });
      if (r.status === 429) {
        limited++;
        continue;
      }
      expect(r.status).toBe(200);
      ok++;
      for (const e of emails) if (r.text.includes(e)) leaked.add(e);
    }
    console.log(
      `[attack] masked key, one minute: ${ok} requests answered, ${limited} refused (429), real emails read: ${leaked.size}`,
    );
    expect(leaked.size).toBe(0);
    expect(ok).toBe(600);
    // a whole-email guess still tells whether that address entered (one guess per request)
    const guess = await env.request('GET', `/api/v1/contests/${contestId}/entries?search=${emails[0]}`, {
      key: masked,
      headers: viaProxy('10.9.9.9'),
    });
    expect(guess.status).toBe(429);
  });

  it('public key: manual bonus actions self-served for every entry add 0 points until a private key verifies', async () => {
    env.clock.advance(61_000);
    const actions = await Promise.all(
      ['Follow', 'Share', 'Review'].map((a) =>
        createBonusAction(env.db, contestId, { action: a, points: 30, confirmationType: 'manual' }),
      ),
    );
    const before = await queryOne<{ s: number }>(
      env.db,
      sql`select coalesce(sum(points), 0)::int as s from entries where contest_id = ${contestId}`,
    );
    const ids = (
      await env.request('GET', `/api/v1/contests/${contestId}/entries?limit=100`, { key: t.privateKey })
    ).body.data.map((e: { id: string }) => e.id);
    let accepted = 0;
    for (const id of ids.slice(0, 60)) {
      for (const a of actions) {
        const r = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${a.id}/complete`, {
          key: t.publicKey,
          body: {},
          headers: viaProxy('10.0.0.1'),
        });
        if (r.status === 200) accepted++;
      }
    }
    const after = await queryOne<{ s: number; pending: number }>(
      env.db,
      sql`select coalesce(sum(points), 0)::int as s,
            (select count(*)::int from bonus_completions where contest_id = ${contestId} and status = 'pending') as pending
          from entries where contest_id = ${contestId}`,
    );
    console.log(
      `[attack] public key: ${accepted} manual completions accepted, points added: ${after!.s - before!.s}, pending review: ${after!.pending}`,
    );
    expect(after!.s - before!.s).toBe(0);
    expect(after!.pending).toBe(accepted);
  });

  it('TRUST_PROXY=1: a new spoofed left-most address per play gets 30 plays a minute in all, not 30 per spoofed address', async () => {
    env.clock.advance(61_000);
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: wheelGameBody(50, 'C'),
    });
    let plays = 0;
    const spoofed = 200;
    for (let i = 0; i < spoofed; i++) {
      const r = await env.request('POST', `/api/v1/instant-win-games/${game.body.data.id}/play`, {
        key: t.publicKey,
        body: {},
        headers: viaProxy(`203.0.113.${i % 250}`),
      });
      if (r.status === 200) plays++;
    }
    console.log(
      `[attack] TRUST_PROXY=1, ${spoofed} spoofed addresses: ${plays} plays accepted in the minute (${(plays / spoofed).toFixed(2)} per spoofed address)`,
    );
    expect(plays).toBe(30);
  });
});
