/**
 * Instant-win games (reference §4 "Instant win games", contract §6): CRUD, play, claim, plays log.
 * Thin handlers: the rules live in src/domain/instant-win/.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { claimPlay } from '../domain/instant-win/claim.js';
import { drawNumber } from '../domain/instant-win/draw.js';
import { createGame, deleteGame, getGame, listGames, updateGame } from '../domain/instant-win/games.js';
import { hashCookie, hashIp, newPlayCookie, PLAY_COOKIE_RE } from '../domain/instant-win/hashing.js';
import { createGameSchema, updateGameSchema } from '../domain/instant-win/input.js';
import { playGame } from '../domain/instant-win/play.js';
import { listPlays } from '../domain/instant-win/plays.js';
import { PLAY_STATUSES, PRESETS, RETIRED_PRESETS } from '../domain/instant-win/presets.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { Errors } from '../http/errors.js';
import { emailSchema, jsonBody, pageParams, pageQuerySchema, queryParams } from '../http/validate.js';
import { isUuid, randomUuid } from '../lib/crypto.js';

const BASE = '/api/v1/instant-win-games';
const tags = ['Instant win'];
const LIST_SLUGS: readonly string[] = [...PRESETS, ...RETIRED_PRESETS];

const playCookieSchema = v.optional(
  v.nullable(
    v.pipe(
      v.string('Invalid playCookie'),
      v.regex(PLAY_COOKIE_RE, 'Invalid playCookie'),
      v.description('the device cookie from an earlier play (16-128 characters: letters, digits, _ and -)'),
    ),
  ),
);

/** The caller's IP address as a salted hash (null when the runtime does not know it), once per request. */
const ipHashes = new WeakMap<Context, Promise<string | null>>();
function callerIpHash(c: Context<AppEnv>): Promise<string | null> {
  let h = ipHashes.get(c);
  if (!h) {
    const ip = c.var.deps.clientIp(c);
    h = ip ? hashIp(c.var.deps.config.ipHashSalt, ip) : Promise.resolve(null);
    ipHashes.set(c, h);
  }
  return h;
}

/** Play and claim: 30 requests a minute per IP address per game (429 with Retry-After). */
const playRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const gameId = c.req.param('gameId') ?? '';
  if (!isUuid(gameId)) throw Errors.gameNotFound();
  const ipHash = await callerIpHash(c);
  const { success, retryAfterSeconds } = await c.var.deps.rateLimiter.limit(`iw:${gameId.toLowerCase()}:${ipHash ?? 'unknown'}`);
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
    describeRoute({ tags, summary: 'List instant-win games (slug filter accepts retired presets)' }),
    publicKey,
    queryParams(
      v.object({
        slug: v.optional(v.pipe(v.string(), v.picklist(LIST_SLUGS, 'Unknown slug'), v.description('preset filter'))),
        ...pageQuerySchema,
      }),
    ),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const now = c.var.deps.clock.now();
      const { items, total } = await listGames(c.var.db(), c.var.auth.team, { slug: q.slug, limit, offset }, now, view(c));
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.get(
    `${BASE}/:gameId`,
    describeRoute({ tags, summary: 'Get a game: config, tiers, odds, inventory, code counts, stats' }),
    publicKey,
    async (c) => ok(c, await getGame(c.var.db(), c.var.auth.team, c.req.param('gameId'), c.var.deps.clock.now(), view(c))),
  );

  r.post(
    BASE,
    describeRoute({ tags, summary: 'Create a game' }),
    privateKey,
    jsonBody(createGameSchema),
    async (c) => {
      const d = c.var.deps;
      return ok(c, await createGame(c.var.db(), d.random, c.var.auth.team, c.req.valid('json'), d.clock.now()), 201);
    },
  );

  r.put(
    `${BASE}/:gameId`,
    describeRoute({ tags, summary: 'Update title, description, tiers, publish mode, status (mechanic, layout, entryLimit are kept)' }),
    privateKey,
    jsonBody(updateGameSchema),
    async (c) => {
      const d = c.var.deps;
      const game = await updateGame(c.var.db(), d.random, c.var.auth.team, c.req.param('gameId'), c.req.valid('json'), d.clock.now());
      return ok(c, game);
    },
  );

  r.delete(
    `${BASE}/:gameId`,
    describeRoute({ tags, summary: 'Delete a game (force=true when it has claimed plays)' }),
    privateKey,
    queryParams(v.object({ force: v.optional(v.picklist(['true', 'false'], 'force must be true or false')) })),
    async (c) => {
      const force = c.req.valid('query').force === 'true';
      return ok(c, await deleteGame(c.var.db(), c.var.auth.team, c.req.param('gameId'), force));
    },
  );

  r.post(
    `${BASE}/:gameId/play`,
    describeRoute({ tags, summary: 'Play: the weighted draw; a win is reserved for 24 hours' }),
    publicKey,
    playRateLimit,
    jsonBody(v.object({ playCookie: playCookieSchema })),
    async (c) => {
      const d = c.var.deps;
      const playCookie = c.req.valid('json').playCookie ?? newPlayCookie(d.random);
      const outcome = await playGame(c.var.db(), {
        team: c.var.auth.team,
        gameId: c.req.param('gameId'),
        playId: randomUuid(d.random),
        r: drawNumber(d.random),
        cookieHash: await hashCookie(playCookie),
        ipHash: await callerIpHash(c),
        now: d.clock.now(),
      });
      return ok(c, { playId: outcome.playId, playCookie, alreadyPlayed: false, result: outcome.result });
    },
  );

  r.post(
    `${BASE}/:gameId/plays/:playId/claim`,
    describeRoute({ tags, summary: 'Claim a win with an email: entry, prize email, coupon code' }),
    publicKey,
    playRateLimit,
    // a missing email answers the same `Invalid email` as a wrong one (contract §6)
    jsonBody(v.object({ email: emailSchema, playCookie: playCookieSchema }, 'Invalid email')),
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
    describeRoute({ tags, summary: 'Plays log of a game, newest first' }),
    privateKey,
    queryParams(
      v.object({
        status: v.optional(v.picklist(PLAY_STATUSES, `status must be one of ${PLAY_STATUSES.join(', ')}`)),
        ...pageQuerySchema,
      }),
    ),
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
