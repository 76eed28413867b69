/**
 * A contest's bonus actions as its team manages them, and the completions to review. The list is
 * public (a contest page shows its actions); adding and changing them, and the completions with
 * the people who made them, need the private key.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { publicCached } from '../http/public-cache.js';
import { apiErrors, Deleted, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { jsonBody, pageParams, queryParams, requireContestId } from '../http/validate.js';
import {
  BonusAction,
  Completion,
  completionsQuery,
  createBonusActionBody,
  updateBonusActionBody,
} from './bonus-actions.schema.js';
import {
  createContestBonusAction,
  deleteContestBonusAction,
  listBonusCompletions,
  listContestBonusActions,
  updateContestBonusAction,
} from './manage.js';

export function contestBonusActionRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Bonus actions'];
  const privateKey = requireKey('private');

  r.get(
    '/api/v1/contests/:contestId/bonus-actions',
    describeRoute({
      operationId: 'listContestBonusActions',
      tags,
      summary: "A contest's bonus actions, in display order",
      security: security.publicKey,
      responses: {
        200: okJson('The bonus actions', v.array(BonusAction)),
        ...apiErrors({ access: 'public' }, { 404: ['Contest not found'] }),
      },
    }),
    requireKey('public'),
    publicCached(),
    async (c) => {
      const { actions, publicCacheSeconds } = await listContestBonusActions(
        c.var.db(),
        c.var.auth.team,
        requireContestId(c.req.param('contestId')),
      );
      c.set('publicCacheSeconds', publicCacheSeconds);
      return ok(c, actions);
    },
  );

  r.post(
    '/api/v1/contests/:contestId/bonus-actions',
    describeRoute({
      operationId: 'addContestBonusAction',
      tags,
      summary: "Add a bonus action to a contest of the key's team (without order: last)",
      security: security.privateKey,
      responses: {
        201: okJson('The new bonus action', BonusAction),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    jsonBody(createBonusActionBody),
    async (c) =>
      ok(
        c,
        await createContestBonusAction(
          c.var.db(),
          c.var.auth.team,
          requireContestId(c.req.param('contestId')),
          c.req.valid('json'),
          c.var.deps.clock.now(),
        ),
        201,
      ),
  );

  r.patch(
    '/api/v1/bonus-actions/:bonusActionId',
    describeRoute({
      operationId: 'updateBonusAction',
      tags,
      summary: 'Change a bonus action (points already awarded stay as they were)',
      security: security.privateKey,
      responses: {
        200: okJson('The bonus action', BonusAction),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: ['A click action needs a destinationUrl', 'a message naming the field'],
            404: ['Bonus action not found'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(updateBonusActionBody),
    async (c) =>
      ok(
        c,
        await updateContestBonusAction(c.var.db(), c.var.auth.team, c.req.param('bonusActionId'), c.req.valid('json')),
      ),
  );

  r.delete(
    '/api/v1/bonus-actions/:bonusActionId',
    describeRoute({
      operationId: 'deleteBonusAction',
      tags,
      summary: 'Remove a bonus action: gone from the lists and cannot be completed; the points it gave stay',
      security: security.privateKey,
      responses: {
        200: okJson('Removed', Deleted),
        ...apiErrors({ access: 'private' }, { 404: ['Bonus action not found'] }),
      },
    }),
    privateKey,
    async (c) =>
      ok(
        c,
        await deleteContestBonusAction(
          c.var.db(),
          c.var.auth.team,
          c.req.param('bonusActionId'),
          c.var.deps.clock.now(),
        ),
      ),
  );

  r.get(
    '/api/v1/contests/:contestId/bonus-completions',
    describeRoute({
      operationId: 'listBonusCompletions',
      tags,
      summary: "A contest's bonus completions of one status, newest first (pending: the review queue)",
      security: security.privateKey,
      responses: {
        200: pageJson('Completions, newest first', Completion),
        ...apiErrors({ access: 'private' }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    queryParams(completionsQuery),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listBonusCompletions(
        c.var.db(),
        c.var.auth.team,
        requireContestId(c.req.param('contestId')),
        {
          status: q.status ?? 'pending',
          limit,
          offset,
        },
      );
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );
  return r;
}
