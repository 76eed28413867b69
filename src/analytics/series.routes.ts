/**
 * Time series of a contest and of an instant-win game (private key): counts per UTC hour or day
 * over a range, every bucket present. One statement each (src/analytics/series.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { contestSeries, gameSeries, SERIES_MAX_BUCKETS, type SeriesRange, seriesRange } from './series.js';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { queryParams } from '../http/validate.js';
import { requireContestId } from '../http/validate.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { ContestSeries, GameSeries } from './series.schema.js';
import { contestFunnel } from './funnel.js';
import { Funnel } from './funnel.schema.js';

const DATE_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** a real calendar day (Date.parse takes 2026-02-30 as March 2) */
const realDay = (s: string) => {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
};
const when = (name: 'from' | 'to', what: string) =>
  v.optional(
    v.pipe(
      v.string(`${name} must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)`),
      v.check(
        (s) => DATE_RE.test(s) && realDay(s) && !Number.isNaN(Date.parse(s)),
        `${name} must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)`,
      ),
      v.description(what),
    ),
  );

const seriesQuery = v.object({
  interval: v.optional(
    v.pipe(
      v.picklist(['hour', 'day'], 'interval must be hour or day'),
      v.description('bucket size, in UTC (default hour)'),
    ),
  ),
  from: when('from', 'the first bucket is the one holding this instant (default: 47 hours or 29 days before to)'),
  to: when('to', 'the last bucket is the one holding this instant (default: now)'),
});

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
