import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { contestJson, getContest, listContests, recordView, TOOL_TYPES } from '../domain/contests.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { Errors } from '../errors.js';
import { pageParams, pageQuerySchema, queryParams } from '../http/validate.js';
import { apiErrors, okJson, pageJson, pageQuery, security } from '../schemas/common.js';
import { Contest, ContestWithViews, ViewCount } from '../schemas/contests.js';

/** `:contestId` that is empty or blank: the reference's `400 Missing contestId`. */
export function requireContestId(raw: string | undefined): string {
  const id = raw?.trim();
  if (!id) throw Errors.missingContestId();
  return id;
}

const listQuery = v.object({
  toolType: v.optional(
    v.picklist(TOOL_TYPES, `toolType must be one of ${TOOL_TYPES.join(', ')}`),
  ),
  ...pageQuerySchema,
});

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
        200: pageJson('The team\'s contests, newest first', Contest),
        ...apiErrors({ access: 'public', unauthorized: 'Invalid API key' }, { 400: true }),
      },
    }),
    publicKey,
    queryParams(listQuery),
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
      return ok(c, rows.map((row) => contestJson(row, now)), 200, { pagination: pagination(page, limit, total) });
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
      security: security.publicKey,
      responses: {
        200: okJson('The contest', ContestWithViews),
        ...apiErrors({ access: 'public', unauthorized: 'Invalid API key' }, { 400: ['Missing contestId'], 404: ['Contest not found'] }),
      },
    }),
    publicKey,
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const row = await getContest(c.var.db(), c.var.auth.team, contestId);
      if (!row) throw Errors.contestNotFound();
      return ok(c, contestJson(row, c.var.deps.clock.now(), { withViews: true }));
    },
  );

  r.post(
    '/api/v1/contests/:contestId/views',
    describeRoute({
      operationId: 'recordContestView',
      tags: ['Contests'],
      summary: 'Count one page view',
      security: security.publicKey,
      responses: {
        200: okJson('The new view count', ViewCount),
        ...apiErrors({ access: 'public' }, { 400: ['Missing contestId'], 404: ['Contest not found'], 413: true }),
      },
    }),
    requireKey('public'),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const viewsCount = await recordView(c.var.db(), c.var.auth.team, contestId);
      if (viewsCount === undefined) throw Errors.contestNotFound();
      return ok(c, { viewsCount });
    },
  );
  return r;
}
