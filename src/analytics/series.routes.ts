/**
 * Time series of a contest and of an instant-win game (private key): counts per UTC hour or day
 * over a range, every bucket present. One statement each (src/analytics/series.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type * as v from 'valibot';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { queryParams, requireContestId } from '../http/validate.js';
import { contestFunnel } from './funnel.js';
import { Funnel } from './funnel.schema.js';
import { contestSeries, gameSeries, SERIES_MAX_BUCKETS, type SeriesRange, seriesRange } from './series.js';
import { ContestSeries, GameSeries, seriesQuery } from './series.schema.js';

function rangeOf(c: AppContext, q: v.InferOutput<typeof seriesQuery>, interval: 'hour' | 'day' = 'hour'): SeriesRange {
  return seriesRange(
    q.interval ?? interval,
    c.var.deps.clock.now(),
    q.from ? new Date(q.from) : undefined,
    q.to ? new Date(q.to) : undefined,
  );
}

const rangeJson = (r: SeriesRange) => ({ interval: r.interval, from: r.from.toISOString(), to: r.to.toISOString() });
const bad400 = [
  'interval must be hour or day',
  'from must not be after to',
  `from and to span N hours; at most ${SERIES_MAX_BUCKETS} buckets, so use interval=day or a shorter range`,
];

export function seriesRoutes() {
  const r = new Hono<AppEnv>();
  const privateKey = requireKey('private');

  r.get(
    '/api/v1/contests/:contestId/series',
    describeRoute({
      operationId: 'getContestSeries',
      tags: ['Analytics'],
      summary: 'Entries, confirmations, referrals and bonus completions per hour or day over a range (UTC)',
      security: security.privateKey,
      responses: {
        200: okJson('Every bucket of the range, oldest first', ContestSeries),
        ...apiErrors({ access: 'private' }, { 400: bad400, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    queryParams(seriesQuery),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const range = rangeOf(c, c.req.valid('query'));
      const buckets = await contestSeries(c.var.db(), c.var.auth.team, contestId, range, c.var.deps.clock.now());
      return ok(c, { ...rangeJson(range), buckets });
    },
  );

  r.get(
    '/api/v1/contests/:contestId/funnel',
    describeRoute({
      operationId: 'getContestFunnel',
      tags: ['Analytics'],
      summary:
        'The funnel over a range (UTC, default the last 30 days by day): sign-ups, confirmed, referred sign-ups, the viral coefficient and its trend, sign-ups by source, top referrers',
      security: security.privateKey,
      responses: {
        200: okJson('The range in total, per bucket (oldest first), by source, and its top referrers', Funnel),
        ...apiErrors({ access: 'private' }, { 400: bad400, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    queryParams(seriesQuery),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const range = rangeOf(c, c.req.valid('query'), 'day');
      const funnel = await contestFunnel(c.var.db(), c.var.auth.team, contestId, range, c.var.deps.clock.now());
      return ok(c, { ...rangeJson(range), ...funnel });
    },
  );

  r.get(
    '/api/v1/instant-win-games/:gameId/series',
    describeRoute({
      operationId: 'getGameSeries',
      tags: ['Instant win'],
      summary: 'Plays, wins and draws per tier, per hour or day over a range (UTC)',
      security: security.privateKey,
      responses: {
        200: okJson('Every bucket of the range, oldest first', GameSeries),
        ...apiErrors({ access: 'private' }, { 400: bad400, 404: ['Game not found'] }),
      },
    }),
    privateKey,
    queryParams(seriesQuery),
    async (c) => {
      const range = rangeOf(c, c.req.valid('query'));
      const buckets = await gameSeries(
        c.var.db(),
        c.var.auth.team,
        c.req.param('gameId'),
        range,
        c.var.deps.clock.now(),
      );
      return ok(c, { ...rangeJson(range), buckets });
    },
  );
  return r;
}
