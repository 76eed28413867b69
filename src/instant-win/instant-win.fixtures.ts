/**
 * Instant-win games (docs/instant-win.md): CRUD with every validation message, the draw and its stock,
 * entry limits, claims and all their refusals, expiry with the injected clock, the sweep, tier
 * edits that keep inventory right, delete, the plays log and the rate limit.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect } from 'vitest';
import { clientSeedFor, nextNonce } from '../../test/support/fairness.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query, queryOne } from '../db/client.js';
import { drawTier } from './draw.js';
import { hashCookie } from './hashing.js';

export const neverLimit = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };
export let env: TestEnv;
export let a: TeamFixture;
export let b: TeamFixture;
export let ipSeq = 0;
export const nextIp = () => `198.51.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: neverLimit });
  a = await env.team('A');
  b = await env.team('B');
});
/** Claims trigger prize-email delivery in the background: let it finish before the database goes. */
export async function emailsSettled(e: TestEnv) {
  for (let i = 0; i < 200; i++) {
    const row = await queryOne<{ n: number }>(
      e.db,
      sql`select count(*)::int as n from email_outbox where status = 'pending'`,
    );
    if (!row?.n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 100));
}
afterAll(async () => {
  await emailsSettled(env);
  await env.close();
});

export const BASE = '/api/v1/instant-win-games';
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';
export const HOUR = 3600_000;

export const prize = (o: Record<string, unknown> = {}) => ({
  name: '10% off',
  oddsPercent: 50,
  redeemCode: 'SAVE10',
  ...o,
});
export const miss = (o: Record<string, unknown> = {}) => ({ name: 'Try again', oddsPercent: 50, isMiss: true, ...o });
export const gameBody = (o: Record<string, unknown> = {}) => ({
  slug: 'spin-to-win',
  title: 'Spin the wheel',
  mechanic: 'wheel',
  layout: 'default',
  entryLimit: 'none',
  publishAs: 'landing',
  tiers: [prize(), miss()],
  ...o,
});

export async function newGame(o: Record<string, unknown> = {}, team = a) {
  const r = await env.request('POST', BASE, { key: team.privateKey, body: gameBody(o) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; tiers: { id: string; name: string }[] } & Record<string, any>;
}
export const getGame = async (id: string, key = a.privateKey) =>
  (await env.request('GET', `${BASE}/${id}`, { key })).body.data;

/**
 * A play. With `r`, the play's provably fair number is made to land within `tol` of r and in the
 * tier r draws: the test reads the game's current seed and picks a clientSeed that gives such a
 * number (the number itself comes from the seed, as in production).
 */
export async function play(
  gameId: string,
  o: { cookie?: string; ip?: string; key?: string; r?: number; tol?: number } = {},
) {
  const body: Record<string, unknown> = o.cookie ? { playCookie: o.cookie } : {};
  if (o.r !== undefined) {
    const target = o.r;
    const tol = o.tol ?? 0.4;
    const tiers = await query<{ id: string; odds_percent: number }>(
      env.db,
      sql`select id, odds_percent from instant_win_tiers where game_id = ${gameId} and archived_at is null order by position, id`,
    );
    const odds = tiers.map((t) => ({ id: t.id, oddsPercent: Number(t.odds_percent) }));
    const want = drawTier(target, odds)?.id;
    const nonce = await nextNonce(env.db, gameId, o.cookie ? await hashCookie(o.cookie) : null);
    body.clientSeed = await clientSeedFor(
      env.db,
      gameId,
      nonce,
      (r) => Math.abs(r - target) <= tol && drawTier(r, odds)?.id === want,
    );
  }
  return env.request('POST', `${BASE}/${gameId}/play`, {
    key: o.key ?? a.publicKey,
    body,
    headers: { 'x-forwarded-for': o.ip ?? nextIp() },
  });
}
export function claim(gameId: string, playId: string, body: Record<string, unknown>, key = a.publicKey) {
  return env.request('POST', `${BASE}/${gameId}/plays/${playId}/claim`, {
    key,
    body,
    headers: { 'x-forwarded-for': nextIp() },
  });
}
export async function win(gameId: string, r = 1) {
  const p = await play(gameId, { r });
  expect(p.status).toBe(200);
  expect(p.body.data.result.isMiss).toBe(false);
  return p.body.data as { playId: string; playCookie: string; result: { id: string; name: string } };
}

export const count = async (table: string, where = sql`true`) =>
  (await queryOne<{ n: number }>(env.db, sql`select count(*)::int as n from ${sql.raw(table)} where ${where}`))!.n;
export const tierRow = async (id: string) =>
  (await queryOne<{ quantity: number | null; remaining: number | null; handed_out: number }>(
    env.db,
    sql`select quantity, remaining, handed_out from instant_win_tiers where id = ${id}`,
  ))!;
/** Everything a refused request must leave unchanged. */
export async function snapshot() {
  return query(
    env.db,
    sql`select (select count(*)::int from contests) as contests, (select count(*)::int from instant_win_tiers) as tiers,
               (select count(*)::int from instant_win_codes) as codes, (select count(*)::int from instant_win_codes where play_id is null) as free_codes,
               (select count(*)::int from instant_win_plays) as plays, (select coalesce(sum(remaining), 0)::int from instant_win_tiers) as remaining,
               (select count(*)::int from instant_win_plays where status = 'claimed') as claimed,
               (select count(*)::int from entries) as entries, (select count(*)::int from email_outbox) as emails`,
  );
}
