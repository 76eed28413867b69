import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { publicCached } from '../http/public-cache.js';
import { apiErrors, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { jsonBody, pageParams, queryParams, requireContestId } from '../http/validate.js';
import { createTeamContest, getTeamContest, updateTeamContest } from './contest-settings.js';
import { createSettings, updateSettings } from './contest-settings.schema.js';
import { contestJson, getContest, listContests, recordView } from './contests.js';
import { AdminContest, Contest, ContestWithViews, contestListQuery, ViewCount } from './contests.schema.js';

export function contestRoutes() {
  const r = new Hono<AppEnv>();
  const publicKey = requireKey('public', { unauthorized: Errors.invalidKey });

  r.get(
    '/api/v1/contests',
    describeRoute({
      operationId: 'listContests',
      tags: ['Contests'],
      summary: 'List contests (campaigns, or tools with toolType)',
      security: security.publicKey,
      responses: {
        200: pageJson("The team's contests, newest first", Contest),
        ...apiErrors({ access: 'public', unauthorized: 'Invalid API key' }, { 400: true }),
      },
    }),
    publicKey,
    queryParams(contestListQuery),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { rows, total } = await listContests(c.var.db(), c.var.auth.team, {
        toolType: q.toolType ?? null,
        limit,
        offset,
      });
      const now = c.var.deps.clock.now();
      return ok(
        c,
        rows.map((row) => contestJson(row, now)),
        200,
        { pagination: pagination(page, limit, total) },
      );
    },
  );

  // the reference's `400 Missing contestId` for a contest get without an id
  r.get('/api/v1/contests/', describeRoute({ hide: true }), publicKey, () => {
    throw Errors.missingContestId();
  });

  r.get(
    '/api/v1/contests/:contestId',
    describeRoute({
      operationId: 'getContest',
      tags: ['Contests'],
      summary: 'Get a contest with viewsCount',
      description: "Without a key: a contest with `publicSignup: true` (its page's visitors); any other answers 401.",
      security: security.keyless,
      responses: {
        200: okJson('The contest', ContestWithViews),
        ...apiErrors(
          { access: 'public', unauthorized: 'Invalid API key' },
          { 400: ['Missing contestId'], 404: ['Contest not found'] },
        ),
      },
    }),
    requireKey('public', { unauthorized: Errors.invalidKey, keyless: 'contest' }),
    publicCached(),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const row = await getContest(c.var.db(), c.var.auth.team, contestId);
      if (!row) throw Errors.contestNotFound();
      c.set('publicCacheSeconds', row.public_cache_seconds ?? 0);
      return ok(c, contestJson(row, c.var.deps.clock.now(), { withViews: true }));
    },
  );

  // a team's own contests, with the private key: what the console's contest forms call
  const privateKey = requireKey('private');
  r.post(
    '/api/v1/contests',
    describeRoute({
      operationId: 'createTeamContest',
      tags: ['Contests'],
      summary: "Create a contest of the key's team, with its settings",
      security: security.privateKey,
      responses: {
        201: okJson('The new contest with its settings', AdminContest),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 409: ['Slug already in use'] }),
      },
    }),
    privateKey,
    jsonBody(createSettings),
    async (c) =>
      ok(
        c,
        await createTeamContest(
          c.var.db(),
          c.var.deps.random,
          c.var.auth.team,
          c.req.valid('json'),
          c.var.deps.clock.now(),
        ),
        201,
      ),
  );

  r.get(
    '/api/v1/contests/:contestId/settings',
    describeRoute({
      operationId: 'getContestSettings',
      tags: ['Contests'],
      summary: 'A contest with every setting (secrets only as set or not)',
      security: security.privateKey,
      responses: {
        200: okJson('The contest with its settings', AdminContest),
        ...apiErrors({ access: 'private' }, { 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    async (c) =>
      ok(c, await getTeamContest(c.var.db(), c.var.auth.team, c.req.param('contestId'), c.var.deps.clock.now())),
  );

  r.patch(
    '/api/v1/contests/:contestId',
    describeRoute({
      operationId: 'updateTeamContest',
      tags: ['Contests'],
      summary: "Change any of a contest's settings",
      security: security.privateKey,
      responses: {
        200: okJson('The contest with its settings', AdminContest),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: true, 404: ['Contest not found'], 409: ['Slug already in use'] },
        ),
      },
    }),
    privateKey,
    jsonBody(updateSettings),
    async (c) =>
      ok(
        c,
        await updateTeamContest(
          c.var.db(),
          c.var.auth.team,
          c.req.param('contestId'),
          c.req.valid('json'),
          c.var.deps.clock.now(),
        ),
      ),
  );

  r.post(
    '/api/v1/contests/:contestId/views',
    describeRoute({
      operationId: 'recordContestView',
      tags: ['Contests'],
      summary: 'Count one page view',
      description:
        'The sign-up widget sends it once per browser, contest and day (the hosted page through its widget). ' +
        "Each view is kept with its hour for the funnel's first step (`totals.views`). " +
        'Without a key: a contest with `publicSignup: true`, limited per client address.',
      security: security.keyless,
      responses: {
        200: okJson('The new view count', ViewCount),
        ...apiErrors({ access: 'public' }, { 400: ['Missing contestId'], 404: ['Contest not found'], 413: true }),
      },
    }),
    requireKey('public', { keyless: 'contest' }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const viewsCount = await recordView(c.var.db(), c.var.auth.team, contestId, c.var.deps.clock.now());
      if (viewsCount === undefined) throw Errors.contestNotFound();
      return ok(c, { viewsCount });
    },
  );
  return r;
}
