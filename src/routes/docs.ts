import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The OpenAPI 3.1 document, generated from the routes' own valibot schemas, and a reference page. */
export function docsRoutes(app: Hono<AppEnv>) {
  const r = new Hono<AppEnv>();
  r.get(
    OPENAPI_PATH,
    openAPIRouteHandler(app, {
      documentation: {
        openapi: '3.1.0',
        info: {
          title: 'Contest Engine API',
          version: '1.0.0',
          description:
            'Contests, entries, referrals, bonus actions, purchases, leaderboards, instant-win games and inbound webhooks. ' +
            'Every /api/v1 route takes an API key in the `x-api-key` header.',
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
            adminToken: { type: 'http', scheme: 'bearer' },
          },
        },
        security: [{ apiKey: [] }],
      },
      exclude: [OPENAPI_PATH, '/docs'],
    }),
  );
  r.get('/docs', Scalar({ url: OPENAPI_PATH, pageTitle: 'Contest Engine API' }));
  return r;
}
