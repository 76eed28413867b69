/**
 * Admin API (contract §3): `Authorization: Bearer <ADMIN_TOKEN>`. Without ADMIN_TOKEN every
 * admin route answers 404, as if it did not exist.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import {
  createApiKey,
  createBonusAction,
  createContest,
  createTeam,
  listApiKeys,
  listEmails,
  listTeams,
  revokeApiKey,
  rotateWebhookSecret,
  updateContest,
} from '../domain/admin.js';
import type { AppEnv } from '../http/context.js';
import { apiKeySchema } from './trust-schemas.js';
import { ok, pagination } from '../http/envelope.js';
import { Errors } from '../errors.js';
import { jsonBody, pageParams, pageQuerySchema, queryParams, trimmedString } from '../http/validate.js';
import { timingSafeEqual } from '../lib/crypto.js';
import { AdminContest, ApiKey, BonusAction, Email, RevokedApiKey, Team, TeamListItem, WebhookSecret } from '../schemas/admin.js';
import { adminErrors, okJson, pageJson, pageQuery, security } from '../schemas/common.js';

const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = c.var.deps.config.adminToken;
  if (!token) throw Errors.notFound();
  const header = c.req.header('authorization') ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m || !timingSafeEqual(m[1]!, token)) throw Errors.adminUnauthorized();
  await next();
});

const nonNegInt = (field: string) =>
  v.pipe(v.number(`${field} must be a number`), v.integer(`${field} must be an integer`), v.minValue(0, `${field} must be at least 0`), v.maxValue(1_000_000_000, `${field} is too large`));

const riskLimit = (field: string) =>
  v.pipe(v.number(`${field} must be a number`), v.integer(`${field} must be an integer`), v.minValue(1, `${field} must be between 1 and 1000`), v.maxValue(1000, `${field} must be between 1 and 1000`));

const isoDate = (field: string) =>
  v.pipe(
    v.string(`${field} must be an ISO 8601 date`),
    v.isoTimestamp(`${field} must be an ISO 8601 date`),
  );

const settingsEntries = {
  title: v.pipe(trimmedString('title', 200), v.minLength(1, 'title must not be empty')),
  description: v.nullable(trimmedString('description', 5000)),
  mode: v.picklist(['giveaway', 'leaderboard', 'waitlist'], 'mode must be one of giveaway, leaderboard, waitlist'),
  status: v.picklist(['draft', 'active', 'ended', 'paused'], 'status must be one of draft, active, ended, paused'),
  slug: v.pipe(
    v.string('Invalid slug'),
    v.maxLength(100, 'slug must be at most 100 characters'),
    v.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'slug must be lowercase letters, digits and single dashes'),
  ),
  startDate: v.nullable(isoDate('startDate')),
  endDate: v.nullable(isoDate('endDate')),
  isEvergreen: v.boolean('isEvergreen must be a boolean'),
  campaignType: v.picklist(['viral', 'referral', 'affiliate'], 'campaignType must be one of viral, referral, affiliate'),
  requireEmailConfirmation: v.boolean('requireEmailConfirmation must be a boolean'),
  referral: v.object({
    advocatePoints: v.optional(nonNegInt('referral.advocatePoints')),
    friendPoints: v.optional(nonNegInt('referral.friendPoints')),
    creditOn: v.optional(v.picklist(['create', 'confirm'], 'referral.creditOn must be create or confirm')),
  }),
  risk: v.object({
    mode: v.optional(v.picklist(['flag', 'hold', 'block'], 'risk.mode must be one of flag, hold, block')),
    maxEntriesPerIpPerHour: v.optional(riskLimit('risk.maxEntriesPerIpPerHour')),
    maxReferralsPerHour: v.optional(riskLimit('risk.maxReferralsPerHour')),
  }),
  purchaseTracking: v.object({
    enabled: v.optional(v.boolean('purchaseTracking.enabled must be a boolean')),
    pointsPerPurchase: v.optional(nonNegInt('purchaseTracking.pointsPerPurchase')),
    pointsPerCurrencyUnit: v.optional(
      v.pipe(
        v.number('purchaseTracking.pointsPerCurrencyUnit must be a number'),
        v.finite('purchaseTracking.pointsPerCurrencyUnit must be a number'),
        v.minValue(0, 'purchaseTracking.pointsPerCurrencyUnit must be at least 0'),
        v.maxValue(1_000_000, 'purchaseTracking.pointsPerCurrencyUnit is too large'),
      ),
    ),
  }),
  externalTracking: v.object({ enabled: v.optional(v.boolean('externalTracking.enabled must be a boolean')) }),
  affiliate: v.object({
    commissionPercent: v.optional(
      v.pipe(
        v.number('affiliate.commissionPercent must be a number'),
        v.finite('affiliate.commissionPercent must be a number'),
        v.minValue(0, 'affiliate.commissionPercent must be between 0 and 100'),
        v.maxValue(100, 'affiliate.commissionPercent must be between 0 and 100'),
      ),
    ),
  }),
  shopifySecret: v.nullable(v.pipe(v.string('Invalid shopifySecret'), v.minLength(1), v.maxLength(500))),
  stripeSecret: v.nullable(v.pipe(v.string('Invalid stripeSecret'), v.minLength(1), v.maxLength(500))),
  toolType: v.nullable(v.picklist(['content_gate'], 'toolType must be content_gate or null (games are made with the instant-win API)')),
};

type Optionalize<T extends Record<string, v.GenericSchema>> = { [K in keyof T]: v.OptionalSchema<T[K], undefined> };
const optionalAll = <T extends Record<string, v.GenericSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, s]) => [k, v.optional(s)])) as Optionalize<T>;

const updateSettings = v.object(optionalAll(settingsEntries));
const createSettings = v.object({ ...optionalAll(settingsEntries), title: settingsEntries.title });

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
    jsonBody(v.object({ name: v.pipe(trimmedString('name', 200), v.minLength(1, 'name must not be empty')) })),
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
    queryParams(v.object(pageQuerySchema)),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const { page, limit, offset } = pageParams(c.req.valid('query'));
      const { items, total } = await listTeams(c.var.db(), limit, offset);
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.post(
    '/api/admin/teams/:teamId/api-keys',
    describeRoute({
      ...admin,
      operationId: 'createApiKey',
      summary: 'Create an API key (shown once)',
      responses: { 201: okJson('The new key, shown this once', ApiKey), ...adminErrors({ 400: true, 404: ['Team not found'] }) },
    }),
    jsonBody(
      v.pipe(
      v.object({
        type: v.picklist(['public', 'private'], 'type must be public or private'),
        name: v.optional(v.nullable(trimmedString('name', 200))),
        // any value on a private key: 400 personalData applies to public keys only (checked first)
        personalData: v.optional(
          v.pipe(v.unknown(), v.description('"full" (default) or "masked": what the key sees of entries\' personal data; public keys only')),
        ),
      }),
      v.check(
        (b) => b.type === 'private' || b.personalData === undefined || b.personalData === 'full' || b.personalData === 'masked',
        'personalData must be full or masked',
      ),
      ),
    ),
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
      responses: { 200: okJson('The keys, newest first (never the key itself)', v.array(apiKeySchema)), ...adminErrors({ 404: ['Team not found'] }, false) },
    }),
    async (c) => ok(c, await listApiKeys(c.var.db(), c.req.param('teamId'))),
  );

  r.delete(
    '/api/admin/api-keys/:keyId',
    describeRoute({
      ...admin,
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      responses: { 200: okJson('The key is revoked (at once)', RevokedApiKey), ...adminErrors({ 404: ['API key not found'] }, false) },
    }),
    async (c) =>
    ok(c, await revokeApiKey(c.var.db(), c.req.param('keyId'), c.var.deps.clock.now())),
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
      const contest = await createContest(c.var.db(), c.var.deps.random, c.req.param('teamId'), c.req.valid('json'), c.var.deps.clock.now());
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
    async (c) => ok(c, await updateContest(c.var.db(), c.req.param('contestId'), c.req.valid('json'), c.var.deps.clock.now())),
  );

  r.post(
    '/api/admin/contests/:contestId/bonus-actions',
    describeRoute({
      ...admin,
      operationId: 'createBonusAction',
      summary: 'Add a bonus action to a contest',
      responses: { 201: okJson('The new bonus action', BonusAction), ...adminErrors({ 400: true, 404: ['Contest not found'] }) },
    }),
    jsonBody(
      v.object({
        action: v.pipe(trimmedString('action', 100), v.minLength(1, 'action must not be empty')),
        description: v.optional(trimmedString('description', 2000)),
        icon: v.optional(trimmedString('icon', 200)),
        iconColor: v.optional(trimmedString('iconColor', 50)),
        points: nonNegInt('points'),
        confirmationType: v.optional(v.picklist(['auto', 'manual', 'click'], 'confirmationType must be one of auto, manual, click')),
        destinationUrl: v.optional(v.nullable(v.pipe(v.string('Invalid destinationUrl'), v.maxLength(2000), v.url('Invalid destinationUrl'), v.regex(/^https?:\/\//i, 'destinationUrl must be an http(s) URL')))),
        order: v.optional(v.pipe(v.number('order must be a number'), v.integer('order must be an integer'), v.minValue(-1_000_000), v.maxValue(1_000_000))),
      }),
    ),
    async (c) => ok(c, await createBonusAction(c.var.db(), c.req.param('contestId'), c.req.valid('json')), 201),
  );

  r.post(
    '/api/admin/contests/:contestId/webhook-secret',
    describeRoute({
      ...admin,
      operationId: 'rotateWebhookSecret',
      summary: 'Make a new webhook secret',
      responses: { 200: okJson('The new secret', WebhookSecret), ...adminErrors({ 404: ['Contest not found'], 413: true }, false) },
    }),
    async (c) =>
    ok(c, await rotateWebhookSecret(c.var.db(), c.var.deps.random, c.req.param('contestId'))),
  );

  r.get(
    '/api/admin/teams/:teamId/emails',
    describeRoute({
      ...admin,
      operationId: 'listTeamEmails',
      summary: 'Emails queued or sent for a team, newest first',
      responses: { 200: pageJson('Emails, newest first', Email), ...adminErrors({ 400: true, 404: ['Team not found'] }, false) },
    }),
    queryParams(v.object(pageQuerySchema)),
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
