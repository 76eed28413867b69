/**
 * createApp(deps): the one Hono app, for Node and Workers alike.
 */
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { matchedRoutes } from 'hono/route';
import { adminRoutes } from './admin/admin.routes.js';
import { keyRoutes } from './admin/keys.routes.js';
import { analyticsRoutes } from './analytics/analytics.routes.js';
import { seriesRoutes } from './analytics/series.routes.js';
import { bonusActionRoutes } from './bonus-actions/bonus-actions.routes.js';
import { contestBonusActionRoutes } from './bonus-actions/manage.routes.js';
import { consoleRoutes } from './console/console.routes.js';
import { contestRoutes } from './contests/contests.routes.js';
import { dbTiming, deliveryScope } from './db/client.js';
import type { Deps } from './deps.js';
import { drawRoutes } from './draws/draws.routes.js';
import { emailTextRoutes } from './email-texts/email-texts.routes.js';
import { confirmRoutes } from './entries/confirm.routes.js';
import { privacyRoutes } from './entries/data-out.routes.js';
import { entryRoutes } from './entries/entries.routes.js';
import { ApiError } from './errors.js';
import { kickEventDelivery } from './events/deliver.js';
import { webhookEndpointRoutes } from './events/endpoints.routes.js';
import { hookRoutes } from './events/hooks.routes.js';
import { keyError } from './http/auth.js';
import { bodySizeLimit } from './http/body-limit.js';
import type { AppEnv } from './http/context.js';
import { triggerEmailDelivery } from './http/email-trigger.js';
import { fail } from './http/envelope.js';
import { instantWinRoutes } from './instant-win/instant-win.routes.js';
import { widgetRoutes } from './instant-win/widget.routes.js';
import { integrationRoutes } from './integrations/integrations.routes.js';
import { toHex } from './lib/crypto.js';
import { describeError } from './lib/describe-error.js';
import { docsRoutes } from './meta/docs.routes.js';
import { healthRoutes } from './meta/health.routes.js';
import { purchaseRoutes } from './purchases/purchases.routes.js';
import { rewardRoutes } from './rewards/rewards.routes.js';
import { admitRoutes } from './signups/admit.routes.js';
import { hostedPageRoutes } from './signups/page.routes.js';
import { signupRoutes } from './signups/signups.routes.js';
import { signupWidgetRoutes } from './signups/widget.routes.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';

/**
 * Headers added to an answer already made. c.header() would rebuild the answer around its body
 * first (on Node that turns the adapter's light response into a full web Response with a
 * stream); setting them in place is enough, except on a response whose headers are immutable
 * (one fetched from elsewhere), which c.header() rebuilds.
 */
function setAnswerHeaders(c: Context, headers: Record<string, string>) {
  for (const [k, v] of Object.entries(headers)) {
    try {
      c.res.headers.set(k, v);
    } catch {
      c.header(k, v);
    }
  }
}

/**
 * Where a request went, for the logs: the route's pattern (`/confirm/:token`), never the path
 * itself, which can carry a secret (a confirmation token). Only a request no route matched logs
 * its path.
 */
function routeOf(c: Context): { route: string } | { path: string } {
  const handler = matchedRoutes(c).findLast((r) => r.method !== 'ALL');
  return handler ? { route: handler.path } : { path: c.req.path };
}

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
    c.set('db', () => {
      handle ??= deps.database.acquire();
      return handle.db;
    });
    c.set('txDb', () => {
      if (!deps.database.acquireInteractive) return c.var.db();
      txHandle ??= deps.database.acquireInteractive();
      return txHandle.db;
    });
    const timing = { trips: 0, ms: 0 };
    const deliveries: { recorded: boolean; mail?: boolean } = { recorded: false };
    try {
      await deliveryScope.run(deliveries, () => dbTiming.run(timing, next));
      // a statement of this request wrote outbound event deliveries: send them after the answer
      // (a write that wrote none, e.g. for a team without endpoints, costs no second statement)
      if (deliveries.recorded) kickEventDelivery(deps, c);
      // a write in a contest with rewards: the reward triggers may have queued emails, sent now
      if (deliveries.mail) triggerEmailDelivery(c);
    } finally {
      // the database's share of this answer: its round trips (statements or batches), and their
      // time only for the team's own servers (a private key the database accepted, the admin
      // token): a visitor's or a public key's answer never tells what its statement found
      const timed =
        (c.get('auth')?.type === 'private' || c.req.path.startsWith('/api/admin/')) &&
        c.res.status !== 401 &&
        c.res.status !== 403;
      setAnswerHeaders(c, {
        'x-request-id': requestId,
        'server-timing': `db;${timed ? `dur=${timing.ms.toFixed(1)};` : ''}desc="${timing.trips} round trip${timing.trips === 1 ? '' : 's'}"`,
      });
      if (handle) deps.background(c, handle.release());
      if (txHandle) deps.background(c, txHandle.release());
      deps.logger.info('request', {
        requestId,
        method: c.req.method,
        ...routeOf(c),
        status: c.res.status,
        ms: Date.now() - started,
        dbTrips: timing.trips,
        dbMs: Math.round(timing.ms * 10) / 10,
      });
    }
  });

  const exposeHeaders = ['x-request-id', 'retry-after', 'server-timing'];
  const preflight = cors({
    origin: '*',
    // authorization: a visitor's entry token (GET /api/v1/me) from the team's page
    allowHeaders: ['x-api-key', 'content-type', 'authorization'],
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposeHeaders,
    maxAge: 86400,
  });
  // hono's cors answers preflights; on other requests it sets its two headers on c.res before
  // the handler has answered, which makes an empty response that the handler's must then be
  // copied over (on Node: a full web Response with a stream body, ~5% of a request's CPU).
  // c.header() before the answer only prepares them: the same two headers, no copy.
  app.use('/api/v1/*', (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Expose-Headers', exposeHeaders.join(','));
    return next();
  });

  // each route's body limit (64 KiB unless it declares more), before anything reads the body
  app.use('*', bodySizeLimit);

  app.route('/', healthRoutes());
  app.route('/', keyRoutes());
  app.route('/', contestRoutes());
  app.route('/', entryRoutes());
  app.route('/', signupRoutes());
  app.route('/', admitRoutes());
  app.route('/', rewardRoutes());
  app.route('/', emailTextRoutes());
  app.route('/', bonusActionRoutes());
  app.route('/', contestBonusActionRoutes());
  app.route('/', analyticsRoutes());
  app.route('/', seriesRoutes());
  app.route('/', purchaseRoutes());
  app.route('/', instantWinRoutes());
  app.route('/', webhookRoutes());
  app.route('/', webhookEndpointRoutes());
  app.route('/', hookRoutes());
  app.route('/', integrationRoutes());
  app.route('/', privacyRoutes());
  app.route('/', confirmRoutes());
  app.route('/', adminRoutes());
  app.route('/', widgetRoutes());
  app.route('/', signupWidgetRoutes());
  app.route('/', hostedPageRoutes());
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
      ...routeOf(c),
      // never the statement's parameters (emails, names...): the statement, SQLSTATE and message
      ...describeError(err),
    });
    return fail(c, 500, 'Internal server error');
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
