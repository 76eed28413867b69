/**
 * A typed client for the Contest Engine API with openapi-fetch.
 *
 * The types come from the server's own OpenAPI document:
 *
 *   npx openapi-typescript http://localhost:8787/api/v1/openapi.json -o contest-api.d.ts
 *
 * Then every path, parameter, body and answer below is checked by TypeScript: a typo in a
 * field, or a change in the API, is a compile error.
 *
 * Run it against a server (npm start prints the keys and a demo contest):
 *
 *   BASE_URL=http://localhost:8787 PRIVATE_KEY=sk_... PUBLIC_KEY=pk_... CONTEST_ID=... GAME_ID=... \
 *     npx tsx client.ts
 */
import createClient from 'openapi-fetch';
import type { paths } from './contest-api.js';

export interface ExampleOptions {
  baseUrl: string;
  /** server side only: creating entries takes a private key */
  privateKey: string;
  /** safe in a web page: reading the leaderboard, playing and claiming */
  publicKey: string;
  contestId: string;
  gameId: string;
  email: string;
  /** optional fetch (tests pass one that checks every answer) */
  fetch?: typeof fetch;
}

export async function runExample(o: ExampleOptions) {
  const server = createClient<paths>({ baseUrl: o.baseUrl, headers: { 'x-api-key': o.privateKey }, fetch: o.fetch });
  const browser = createClient<paths>({ baseUrl: o.baseUrl, headers: { 'x-api-key': o.publicKey }, fetch: o.fetch });

  // 1. someone joins the contest (201 created, or 200 when the email entered before)
  const created = await server.POST('/api/v1/contests/{contestId}/entries', {
    params: { path: { contestId: o.contestId } },
    body: { email: o.email, name: 'Ann Example' },
  });
  if (created.error) throw new Error(`create entry: ${created.error.error}`);
  const entry = created.data.data;
  const shareLink = `https://shop.example/?ref=${entry.referralCode}`;

  // 2. the leaderboard, top 10
  const board = await browser.GET('/api/v1/contests/{contestId}/leaderboard', {
    params: { path: { contestId: o.contestId }, query: { limit: 10 } },
  });
  if (board.error) throw new Error(`leaderboard: ${board.error.error}`);
  const top = board.data.data.map((row) => `${row.rank}. ${row.name ?? row.email ?? row.id}: ${row.points}`);

  // 3. play the instant-win game, and claim the prize if it is a win
  const played = await browser.POST('/api/v1/instant-win-games/{gameId}/play', {
    params: { path: { gameId: o.gameId } },
    body: {},
  });
  if (played.error) throw new Error(`play: ${played.error.error}`);
  const { playId, playCookie, result } = played.data.data;
  let prize: { name: string; couponCode: string | null; redeemUrl: string | null } | null = null;
  if (!result.isMiss) {
    const claimed = await browser.POST('/api/v1/instant-win-games/{gameId}/plays/{playId}/claim', {
      params: { path: { gameId: o.gameId, playId } },
      body: { email: o.email, playCookie },
    });
    if (claimed.error) throw new Error(`claim: ${claimed.error.error}`);
    const c = claimed.data.data;
    prize = { name: c.prizeName, couponCode: c.couponCode, redeemUrl: c.redeemUrl };
  }

  return {
    entryId: entry.entryId,
    alreadyExists: entry.alreadyExists,
    shareLink,
    metric: board.data.metric,
    top,
    result: result.name,
    prize,
  };
}

// run directly: npx tsx client.ts
if (import.meta.url === `file://${process.argv[1]}`) {
  const need = (k: string) =>
    process.env[k] ??
    (() => {
      throw new Error(`set ${k}`);
    })();
  const out = await runExample({
    baseUrl: process.env.BASE_URL ?? 'http://localhost:8787',
    privateKey: need('PRIVATE_KEY'),
    publicKey: need('PUBLIC_KEY'),
    contestId: need('CONTEST_ID'),
    gameId: need('GAME_ID'),
    email: process.env.EMAIL ?? 'ann@example.com',
  });
  console.log(JSON.stringify(out, null, 2));
}
