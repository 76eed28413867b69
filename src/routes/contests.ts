import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { contestJson, getContest, listContests, recordView, TOOL_TYPES } from '../domain/contests.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { Errors } from '../http/errors.js';
import { pageParams, pageQuerySchema, queryParams } from '../http/validate.js';

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
    describeRoute({ tags: ['Contests'], summary: 'List contests (campaigns, or tools with toolType)' }),
    publicKey,
    queryParams(listQuery),
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
    describeRoute({ tags: ['Contests'], summary: 'Get a contest with viewsCount' }),
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
    describeRoute({ tags: ['Contests'], summary: 'Count one page view' }),
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
