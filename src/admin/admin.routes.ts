/**
 * Admin API (docs/api.md): `Authorization: Bearer <ADMIN_TOKEN>`. Without ADMIN_TOKEN every
 * admin route answers 404, as if it did not exist.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { BonusAction, createBonusActionBody } from '../bonus-actions/bonus-actions.schema.js';
import { createContest, updateContest } from '../contests/contest-settings.js';
import { createSettings, updateSettings } from '../contests/contest-settings.schema.js';
import { AdminContest } from '../contests/contests.schema.js';
import type { Deps } from '../deps.js';
import { Errors } from '../errors.js';
import { clientAddressKey } from '../http/client-address.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { adminErrors, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { jsonBody, pageParams, pageQueryParams, queryParams } from '../http/validate.js';
import { isUuid, timingSafeEqual } from '../lib/crypto.js';
import { type FailureLimiter, memoryFailureLimiter } from '../lib/failure-limiter.js';
import {
  createApiKey,
  createBonusAction,
  createTeam,
  listApiKeys,
  listEmails,
  listTeams,
  revokeApiKey,
  rotateWebhookSecret,
} from './admin.js';
import {
  ApiKey,
  apiKeySchema,
  CreateApiKeyBody,
  CreateTeamBody,
  Email,
  RevokedApiKey,
  Team,
  TeamListItem,
  WebhookSecret,
} from './admin.schema.js';

/** Failed admin attempts allowed per client address and minute; then 429 until the minute ends. */
export const ADMIN_FAILURES_PER_MINUTE = 10;
const failureLimiters = new WeakMap<Deps, FailureLimiter>();
const adminFailures = (deps: Deps) => {
  let l = failureLimiters.get(deps);
  if (!l) {
    l = memoryFailureLimiter(ADMIN_FAILURES_PER_MINUTE, 60, () => deps.clock.now().getTime());
    failureLimiters.set(deps, l);
  }
  return l;
};

const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const deps = c.var.deps;
  const token = deps.config.adminToken;
  if (!token) throw Errors.notFound();
  // a client that failed too often is refused before its token is even compared
  const client = `admin:${clientAddressKey(c)}`;
  const limiter = adminFailures(deps);
  const wait = limiter.refusedFor(client);
  if (wait > 0) throw Errors.tooManyRequests(wait);
  const header = c.req.header('authorization') ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m || !timingSafeEqual(m[1]!, token)) {
    limiter.fail(client);
    throw Errors.adminUnauthorized();
  }
  await next();
});

export function adminRoutes() {
  const r = new Hono<AppEnv>();
  r.use('/api/admin/*', adminAuth);
  const tags = ['Admin'];
  const admin = { tags, security: security.admin };

  r.post(
    '/api/admin/teams',
    describeRoute({
      ...admin,
      operationId: 'createTeam',
      summary: 'Create a team',
      responses: { 201: okJson('The new team', Team), ...adminErrors({ 400: true }) },
    }),
    jsonBody(CreateTeamBody),
    async (c) => ok(c, await createTeam(c.var.db(), c.req.valid('json').name), 201),
  );

  r.get(
    '/api/admin/teams',
    describeRoute({
      ...admin,
      operationId: 'listTeams',
      summary: 'Teams, newest first, with their live keys and contests counted',
      responses: { 200: pageJson('Teams, newest first', TeamListItem), ...adminErrors({ 400: true }) },
    }),
    queryParams(pageQueryParams),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const { page, limit, offset } = pageParams(c.req.valid('query'));
      const { items, total } = await listTeams(c.var.db(), limit, offset);
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.get(
    '/api/admin/teams/:teamId',
    describeRoute({
      ...admin,
      operationId: 'getTeam',
      summary: 'One team, with its live keys, contests and games counted',
      responses: { 200: okJson('The team', TeamListItem), ...adminErrors({ 404: ['Team not found'] }, false) },
    }),
    async (c) => {
      const teamId = c.req.param('teamId');
      const { items } = isUuid(teamId) ? await listTeams(c.var.db(), 1, 0, teamId) : { items: [] };
      if (!items[0]) throw Errors.teamNotFound();
      return ok(c, items[0]);
    },
  );

  r.post(
    '/api/admin/teams/:teamId/api-keys',
    describeRoute({
      ...admin,
      operationId: 'createApiKey',
      summary: 'Create an API key (shown once)',
      responses: {
        201: okJson('The new key, shown this once', ApiKey),
        ...adminErrors({ 400: true, 404: ['Team not found'] }),
      },
    }),
    jsonBody(CreateApiKeyBody),
    async (c) => {
      const body = c.req.valid('json');
      if (body.type === 'private' && body.personalData !== undefined) throw Errors.personalDataPublicOnly();
      const key = await createApiKey(
        c.var.db(),
        c.var.deps.random,
        c.req.param('teamId'),
        body.type,
        body.name ?? null,
        body.personalData as 'full' | 'masked' | undefined,
      );
      return ok(c, key, 201);
    },
  );

  r.get(
    '/api/admin/teams/:teamId/api-keys',
    describeRoute({
      ...admin,
      operationId: 'listApiKeys',
      summary: "The team's API keys, newest first (never the key itself)",
      responses: {
        200: okJson('The keys, newest first (never the key itself)', v.array(apiKeySchema)),
        ...adminErrors({ 404: ['Team not found'] }, false),
      },
    }),
    async (c) => ok(c, await listApiKeys(c.var.db(), c.req.param('teamId'))),
  );

  r.delete(
    '/api/admin/api-keys/:keyId',
    describeRoute({
      ...admin,
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      responses: {
        200: okJson('The key is revoked (at once)', RevokedApiKey),
        ...adminErrors({ 404: ['API key not found'] }, false),
      },
    }),
    async (c) => ok(c, await revokeApiKey(c.var.db(), c.req.param('keyId'), c.var.deps.clock.now())),
  );

  r.post(
    '/api/admin/teams/:teamId/contests',
    describeRoute({
      ...admin,
      operationId: 'createContest',
      summary: 'Create a contest',
      responses: {
        201: okJson('The new contest with its settings', AdminContest),
        ...adminErrors({ 400: true, 404: ['Team not found'], 409: ['Slug already in use'] }),
      },
    }),
    jsonBody(createSettings),
    async (c) => {
      const contest = await createContest(
        c.var.db(),
        c.var.deps.random,
        c.req.param('teamId'),
        c.req.valid('json'),
        c.var.deps.clock.now(),
      );
      return ok(c, contest, 201);
    },
  );

  r.patch(
    '/api/admin/contests/:contestId',
    describeRoute({
      ...admin,
      operationId: 'updateContest',
      summary: 'Update contest settings',
      responses: {
        200: okJson('The contest with its settings', AdminContest),
        ...adminErrors({ 400: true, 404: ['Contest not found'], 409: ['Slug already in use'] }),
      },
    }),
    jsonBody(updateSettings),
    async (c) =>
      ok(c, await updateContest(c.var.db(), c.req.param('contestId'), c.req.valid('json'), c.var.deps.clock.now())),
  );

  r.post(
    '/api/admin/contests/:contestId/bonus-actions',
    describeRoute({
      ...admin,
      operationId: 'createBonusAction',
      summary: 'Add a bonus action to a contest',
      responses: {
        201: okJson('The new bonus action', BonusAction),
        ...adminErrors({ 400: true, 404: ['Contest not found'] }),
      },
    }),
    jsonBody(createBonusActionBody),
    async (c) =>
      ok(
        c,
        await createBonusAction(c.var.db(), c.req.param('contestId'), c.req.valid('json'), c.var.deps.clock.now()),
        201,
      ),
  );

  r.post(
    '/api/admin/contests/:contestId/webhook-secret',
    describeRoute({
      ...admin,
      operationId: 'rotateWebhookSecret',
      summary: 'Make a new webhook secret',
      responses: {
        200: okJson('The new secret', WebhookSecret),
        ...adminErrors({ 404: ['Contest not found'], 413: true }, false),
      },
    }),
    async (c) => ok(c, await rotateWebhookSecret(c.var.db(), c.var.deps.random, c.req.param('contestId'))),
  );

  r.get(
    '/api/admin/teams/:teamId/emails',
    describeRoute({
      ...admin,
      operationId: 'listTeamEmails',
      summary: 'Emails queued or sent for a team, newest first',
      responses: {
        200: pageJson('Emails, newest first', Email),
        ...adminErrors({ 400: true, 404: ['Team not found'] }, false),
      },
    }),
    queryParams(pageQueryParams),
    describeRoute({ parameters: pageQuery({ defaultLimit: 50 }) }),
    async (c) => {
      const { page, limit, offset } = pageParams(c.req.valid('query'), { defaultLimit: 50 });
      const { items, total } = await listEmails(c.var.db(), c.req.param('teamId'), limit, offset);
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  // unknown admin paths: 404 after auth, like everything else
  return r;
}
