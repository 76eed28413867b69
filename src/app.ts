/**
 * createApp(deps): the one Hono app, for Node and Workers alike.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/context.js';
import { dbTiming, deliveryScope } from './db/client.js';
import { kickEventDelivery } from './domain/events/deliver.js';
import { fail } from './http/envelope.js';
import { keyError } from './http/auth.js';
import { ApiError, Errors } from './errors.js';
import { describeError } from './lib/describe-error.js';
import { toHex } from './lib/crypto.js';
import { adminRoutes } from './routes/admin.js';
import { analyticsRoutes } from './routes/analytics.js';
import { seriesRoutes } from './routes/series.js';
import { contestBonusActionRoutes } from './routes/contest-bonus-actions.js';
import { bonusActionRoutes } from './routes/bonus-actions.js';
import { confirmRoutes } from './routes/confirm.js';
import { consoleRoutes } from './routes/console.js';
import { contestRoutes } from './routes/contests.js';
import { docsRoutes } from './routes/docs.js';
import { drawRoutes } from './routes/draws.js';
import { entryRoutes } from './routes/entries.js';
import { healthRoutes } from './routes/health.js';
import { instantWinRoutes } from './routes/instant-win.js';
import { keyRoutes } from './routes/keys.js';
import { purchaseRoutes } from './routes/purchases.js';
import { webhookRoutes } from './routes/webhooks.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { privacyRoutes } from './routes/privacy.js';
import { widgetRoutes } from './routes/widget.js';

export const MAX_BODY_BYTES = 64 * 1024;
export const PLATFORM_MAX_BODY_BYTES = 1024 * 1024;
const REQUEST_ID_RE = /^[\w.-]{1,128}$/;

export function createApp(deps: Deps) {
  const app = new Hono<AppEnv>();

  // request id + access log + per-request database handle (made on first use)
  app.use('*', async (c, next) => {
    const started = Date.now();
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID_RE.test(incoming) ? incoming : `req_${toHex(deps.random.bytes(12))}`;
    c.set('requestId', requestId);
    c.set('deps', deps);
    let handle: ReturnType<Deps['database']['acquire']> | undefined;
    let txHandle: ReturnType<Deps['database']['acquire']> | undefined;
    c.set('db', () => (handle ??= deps.database.acquire()).db);
    c.set('txDb', () => {
      if (!deps.database.acquireInteractive) return c.var.db();
      return (txHandle ??= deps.database.acquireInteractive()).db;
    });
    const timing = { trips: 0, ms: 0 };
    const deliveries = { recorded: false };
    try {
      await deliveryScope.run(deliveries, () => dbTiming.run(timing, next));
      // a statement of this request wrote outbound event deliveries: send them after the answer
      // (a write that wrote none, e.g. for a team without endpoints, costs no second statement)
      if (deliveries.recorded) kickEventDelivery(deps, c);
    } finally {
      c.header('x-request-id', requestId);
      // the database's share of this answer: round trips (statements or batches) and their time
      c.header('server-timing', `db;dur=${timing.ms.toFixed(1)};desc="${timing.trips} round trip${timing.trips === 1 ? '' : 's'}"`);
      if (handle) deps.background(c, handle.release());
      if (txHandle) deps.background(c, txHandle.release());
      deps.logger.info('request', {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Date.now() - started,
        dbTrips: timing.trips,
        dbMs: Math.round(timing.ms * 10) / 10,
      });
    }
  });

  app.use(
    '/api/v1/*',
    cors({
      origin: '*',
      allowHeaders: ['x-api-key', 'content-type'],
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      exposeHeaders: ['x-request-id', 'retry-after', 'server-timing'],
      maxAge: 86400,
    }),
  );

  // 64 KiB for everything, except the store/payment platforms' own payloads: a large Shopify
  // order can pass 64 KiB, and a 413 there makes the platform retry, then drop the subscription
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw Errors.bodyTooLarge();
      },
    });
  const apiLimit = limit(MAX_BODY_BYTES);
  const platformLimit = limit(PLATFORM_MAX_BODY_BYTES);
  app.use('*', (c, next) => (c.req.path.startsWith('/api/webhooks/referral/') ? platformLimit : apiLimit)(c, next));

  app.route('/', healthRoutes());
  app.route('/', keyRoutes());
  app.route('/', contestRoutes());
  app.route('/', entryRoutes());
  app.route('/', bonusActionRoutes());
  app.route('/', contestBonusActionRoutes());
  app.route('/', analyticsRoutes());
  app.route('/', seriesRoutes());
  app.route('/', purchaseRoutes());
  app.route('/', instantWinRoutes());
  app.route('/', webhookRoutes());
  app.route('/', webhookEndpointRoutes());
  app.route('/', privacyRoutes());
  app.route('/', confirmRoutes());
  app.route('/', adminRoutes());
  app.route('/', widgetRoutes());
  app.route('/', drawRoutes());
  app.route('/', consoleRoutes());
  app.route('/', docsRoutes(app));

  app.notFound((c) => fail(c, 404, 'Not found'));

  app.onError((err, c) => {
    const refused = keyError(c, err);
    if (refused) return fail(c, refused.status, refused.message, refused.headers);
    if (err instanceof ApiError) return fail(c, err.status, err.message, err.headers);
    if (err instanceof HTTPException) {
      if (err.status === 413) return fail(c, 413, 'Request body too large');
      if (err.status === 400) return fail(c, 400, 'Invalid request body');
    }
    deps.logger.error('unhandled error', {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      // never the statement's parameters (emails, names...): the statement, SQLSTATE and message
      ...describeError(err),
    });
    return fail(c, 500, 'Internal server error');
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
