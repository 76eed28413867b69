import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { publicCached } from '../http/public-cache.js';
import { apiErrors, intQuery, okJson, security } from '../http/schemas.js';
import { pageParams, queryParams, requireContestId } from '../http/validate.js';
import { getAnalytics, getLeaderboard } from './analytics.js';
import { Analytics, LeaderboardMetric, LeaderboardRow, leaderboardQuery } from './analytics.schema.js';

export function analyticsRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Analytics'];
  const publicKey = requireKey('public');

  r.get(
    '/api/v1/contests/:contestId/analytics',
    describeRoute({
      operationId: 'getContestAnalytics',
      tags,
      summary: 'Contest analytics, computed in real time',
      security: security.publicKey,
      responses: {
        200: okJson("The contest's figures", Analytics),
        ...apiErrors({ access: 'public' }, { 400: ['Missing contestId'], 404: ['Contest not found'] }),
      },
    }),
    publicKey,
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      return ok(c, await getAnalytics(c.var.db(), c.var.auth.team, contestId));
    },
  );

  r.get(
    '/api/v1/contests/:contestId/leaderboard',
    describeRoute({
      operationId: 'getLeaderboard',
      tags,
      summary: 'Leaderboard: confirmed, not disqualified entries; metric points or commission',
      description:
        'Without a key: a contest with `publicSignup: true`, names and emails always masked; any other answers 401.',
      security: security.keyless,
      responses: {
        200: okJson('The top entries, best first', v.array(LeaderboardRow), { metric: LeaderboardMetric }),
        ...apiErrors(
          { access: 'public' },
          { 400: ['Missing contestId', 'limit must be between 1 and 100'], 404: ['Contest not found'] },
        ),
      },
    }),
    requireKey('public', { keyless: 'contest' }),
    queryParams(leaderboardQuery),
    describeRoute({ parameters: [intQuery('limit', 'rows', { min: 1, max: 100, default: 25 })] }),
    publicCached(),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const { limit } = pageParams({ limit: c.req.valid('query').limit }, { defaultLimit: 25, maxLimit: 100 });
      const { metric, rows, publicCacheSeconds } = await getLeaderboard(c.var.db(), c.var.auth.team, contestId, limit);
      c.set('publicCacheSeconds', publicCacheSeconds);
      // names and emails (masked or not): a browser may keep it, a shared cache may not
      c.set('publicCachePersonal', true);
      return ok(c, rows, 200, { metric });
    },
  );

  // empty path segments never match `:contestId`; these make the reference's 400 reachable
  for (const path of ['/api/v1/contests//analytics', '/api/v1/contests//leaderboard']) {
    r.get(path, describeRoute({ hide: true }), publicKey, () => {
      throw Errors.missingContestId();
    });
  }
  return r;
}
