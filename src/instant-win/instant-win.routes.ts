/**
 * Instant-win games (docs/instant-win.md): CRUD, play, claim, plays log.
 * Thin handlers: the rules live beside them in src/instant-win/.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { ipHashSalt } from '../db/secrets.js';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { publicCached } from '../http/public-cache.js';
import { apiErrors, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { jsonBody, pageParams, queryParams } from '../http/validate.js';
import { isUuid, randomUuid, sha256Hex } from '../lib/crypto.js';
import { hashIp } from '../lib/ip-hash.js';
import { claimPlay } from './claim.js';
import { listSeeds, rotateSeed } from './fairness.js';
import { Seed, SeedRotation } from './fairness.schema.js';
import { createGame, deleteGame, getGame, listGames, updateGame } from './games.js';
import { createGameSchema, updateGameSchema } from './games.schema.js';
import { hashCookie, newPlayCookie } from './hashing.js';
import {
  Claim,
  ClaimBody,
  DeletedGame,
  DeleteGameQuery,
  Game,
  GameListQuery,
  Play,
  PlayBody,
  PlayListQuery,
  PlayResult,
} from './instant-win.schema.js';
import { playGame } from './play.js';
import { listPlays } from './plays.js';

const BASE = '/api/v1/instant-win-games';
const tags = ['Instant win'];
/** The caller's IP address as a salted hash (null when the runtime does not know it), once per request. */
const ipHashes = new WeakMap<Context, Promise<string | null>>();
function callerIpHash(c: Context<AppEnv>): Promise<string | null> {
  let h = ipHashes.get(c);
  if (!h) {
    const ip = c.var.deps.clientIp(c);
    h = ip ? ipHashSalt(c.var.deps).then((salt) => hashIp(salt, ip)) : Promise.resolve(null);
    ipHashes.set(c, h);
  }
  return h;
}

/** Play and claim: 30 requests a minute per IP address per game (429 with Retry-After). */
const playRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const gameId = c.req.param('gameId') ?? '';
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const ipHash = await callerIpHash(c);
  const { success, retryAfterSeconds } = await c.var.deps.rateLimiter.limit(
    `iw:${gameId.toLowerCase()}:${ipHash ?? 'unknown'}`,
  );
  if (!success) throw Errors.tooManyRequests(Math.max(1, Math.ceil(retryAfterSeconds)));
  await next();
});

export function instantWinRoutes() {
  const r = new Hono<AppEnv>();
  const publicKey = requireKey('public');
  const privateKey = requireKey('private');
  const view = (c: Context<AppEnv>) => ({ secrets: c.var.auth.type === 'private' });

  r.get(
    BASE,
    describeRoute({
      operationId: 'listInstantWinGames',
      tags,
      summary: 'List instant-win games (slug filter accepts retired presets)',
      security: security.publicKey,
      responses: {
        200: pageJson('Games, newest first (fulfilment fields only for a private key)', Game),
        ...apiErrors({ access: 'public' }, { 400: true }),
      },
    }),
    publicKey,
    queryParams(GameListQuery),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const now = c.var.deps.clock.now();
      const { items, total } = await listGames(
        c.var.db(),
        c.var.auth.team,
        { slug: q.slug, limit, offset },
        now,
        view(c),
      );
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.get(
    `${BASE}/:gameId`,
    describeRoute({
      operationId: 'getInstantWinGame',
      tags,
      summary: 'Get a game: config, tiers, odds, inventory, code counts, stats',
      security: security.publicKey,
      responses: {
        200: okJson('The game (redeemCode, redeemUrl and code pools only for a private key)', Game),
        ...apiErrors({ access: 'public' }, { 404: ['Game not found'] }),
      },
    }),
    publicKey,
    publicCached(),
    async (c) => {
      const game = await getGame(c.var.db(), c.var.auth.team, c.req.param('gameId'), c.var.deps.clock.now(), view(c));
      c.set('publicCacheSeconds', game.publicCacheSeconds);
      return ok(c, game);
    },
  );

  r.post(
    BASE,
    describeRoute({
      operationId: 'createInstantWinGame',
      tags,
      summary: 'Create a game',
      security: security.privateKey,
      responses: {
        201: okJson('The new game, as a private key sees it', Game),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: 'Invalid input: `Unknown slug`, `At least two tiers are required`, `Tier odds must sum to 100`, `Each prize tier needs a redeemCode or redeemUrl`, or a message naming the field',
          },
        ),
      },
    }),
    privateKey,
    jsonBody(createGameSchema),
    async (c) => {
      const d = c.var.deps;
      return ok(c, await createGame(c.var.db(), d.random, c.var.auth.team, c.req.valid('json'), d.clock.now()), 201);
    },
  );

  r.put(
    `${BASE}/:gameId`,
    describeRoute({
      operationId: 'updateInstantWinGame',
      tags,
      summary: 'Update title, description, tiers, publish mode, status (mechanic, layout, entryLimit are kept)',
      security: security.privateKey,
      responses: {
        200: okJson('The updated game, as a private key sees it', Game),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: 'Invalid input: `At least two tiers are required`, `Tier odds must sum to 100`, `Each prize tier needs a redeemCode or redeemUrl`, or a message naming the field',
            404: ['Game not found'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(updateGameSchema),
    async (c) => {
      const d = c.var.deps;
      const game = await updateGame(
        c.var.db(),
        d.random,
        c.var.auth.team,
        c.req.param('gameId'),
        c.req.valid('json'),
        d.clock.now(),
      );
      return ok(c, game);
    },
  );

  r.delete(
    `${BASE}/:gameId`,
    describeRoute({
      operationId: 'deleteInstantWinGame',
      tags,
      summary: 'Delete a game (force=true when it has claimed plays)',
      security: security.privateKey,
      responses: {
        200: okJson('The game is deleted', DeletedGame),
        ...apiErrors(
          { access: 'private' },
          {
            400: ['force must be true or false'],
            404: ['Game not found'],
            409: ['Game has claimed entries; pass force=true to delete'],
          },
        ),
      },
    }),
    privateKey,
    queryParams(DeleteGameQuery),
    async (c) => {
      const force = c.req.valid('query').force === 'true';
      return ok(c, await deleteGame(c.var.db(), c.var.auth.team, c.req.param('gameId'), force));
    },
  );

  r.post(
    `${BASE}/:gameId/play`,
    describeRoute({
      operationId: 'playInstantWinGame',
      tags,
      summary: 'Play: the provably fair draw; a win is reserved for 24 hours',
      security: security.publicKey,
      responses: {
        200: okJson('The result of the draw (a miss, or a prize reserved for 24 hours to claim)', PlayResult),
        ...apiErrors(
          { access: 'public', body: true },
          {
            400: [
              'Invalid playCookie',
              'clientSeed must be 1 to 64 printable ASCII characters',
              'Invalid request body',
            ],
            403: ['You have already played', 'You have already played today'],
            404: ['Game not found'],
            409: ['Game is not active'],
            429: true,
          },
        ),
      },
    }),
    publicKey,
    playRateLimit,
    jsonBody(PlayBody),
    async (c) => {
      const d = c.var.deps;
      const body = c.req.valid('json');
      const playCookie = body.playCookie ?? newPlayCookie(d.random);
      const outcome = await playGame(c.var.db(), {
        team: c.var.auth.team,
        gameId: c.req.param('gameId'),
        playId: randomUuid(d.random),
        cookieHash: await hashCookie(playCookie),
        clientSeed: body.clientSeed ?? (await sha256Hex(playCookie)),
        ipHash: await callerIpHash(c),
        now: d.clock.now(),
      });
      return ok(c, {
        playId: outcome.playId,
        playCookie,
        alreadyPlayed: false,
        result: outcome.result,
        fairness: outcome.fairness,
      });
    },
  );

  r.post(
    `${BASE}/:gameId/fairness/rotate`,
    describeRoute({
      operationId: 'rotateInstantWinSeed',
      tags,
      summary: 'Reveal the current server seed and commit a new one',
      security: security.privateKey,
      responses: {
        200: okJson('The revealed seed and the newly committed one', SeedRotation),
        ...apiErrors({ access: 'private' }, { 404: ['Game not found'] }),
      },
    }),
    privateKey,
    async (c) =>
      ok(
        c,
        await rotateSeed(c.var.db(), c.var.deps.random, c.var.auth.team, c.req.param('gameId'), c.var.deps.clock.now()),
      ),
  );

  r.get(
    `${BASE}/:gameId/fairness/seeds`,
    describeRoute({
      operationId: 'listInstantWinSeeds',
      tags,
      summary: 'Every server seed of a game, newest first (revealed ones with their seed)',
      security: security.publicKey,
      responses: {
        200: okJson('The seeds, newest first, not paginated', v.array(Seed)),
        ...apiErrors({ access: 'public' }, { 404: ['Game not found'] }),
      },
    }),
    publicKey,
    async (c) => ok(c, await listSeeds(c.var.db(), c.var.auth.team, c.req.param('gameId'))),
  );

  r.post(
    `${BASE}/:gameId/plays/:playId/claim`,
    describeRoute({
      operationId: 'claimInstantWinPrize',
      tags,
      summary: 'Claim a win with an email: entry, prize email, coupon code',
      security: security.publicKey,
      responses: {
        200: okJson('The prize (claimed now, or claimed before by the same email: alreadyClaimed)', Claim),
        ...apiErrors(
          { access: 'public', body: true },
          {
            400: [
              'Invalid email',
              'playCookie is required',
              'Invalid playCookie',
              'This play did not win a prize',
              'Invalid request body',
            ],
            403: ['This play belongs to another device', 'Entry is disqualified'],
            404: ['Game not found', 'Play not found'],
            409: ['This prize has already been claimed', 'Game is not active'],
            410: ['This prize reservation has expired'],
            429: true,
          },
        ),
      },
    }),
    publicKey,
    playRateLimit,
    // a missing email answers the same `Invalid email` as a wrong one (docs/instant-win.md)
    jsonBody(ClaimBody),
    async (c) => {
      const d = c.var.deps;
      const body = c.req.valid('json');
      const result = await claimPlay(c.var.db(), d.random, {
        team: c.var.auth.team,
        gameId: c.req.param('gameId'),
        playId: c.req.param('playId'),
        email: body.email,
        cookieHash: body.playCookie ? await hashCookie(body.playCookie) : null,
        now: d.clock.now(),
        ipHash: await callerIpHash(c),
      });
      if (result.emailQueued) triggerEmailDelivery(c);
      const { emailQueued: _, ...data } = result;
      return ok(c, data);
    },
  );

  r.get(
    `${BASE}/:gameId/plays`,
    describeRoute({
      operationId: 'listInstantWinPlays',
      tags,
      summary: 'Plays log of a game, newest first',
      security: security.privateKey,
      responses: {
        200: pageJson('Plays, newest first', Play),
        ...apiErrors({ access: 'private' }, { 400: true, 404: ['Game not found'] }),
      },
    }),
    privateKey,
    queryParams(PlayListQuery),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listPlays(
        c.var.db(),
        c.var.auth.team,
        c.req.param('gameId'),
        { status: q.status, limit, offset },
        c.var.deps.clock.now(),
      );
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  return r;
}
