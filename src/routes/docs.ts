import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Every operation answers the envelope; routes add their own response details on top. */
const envelopeDefault = {
  responses: {
    default: {
      description: 'The envelope: `{ success: true, data, ... }` or `{ success: false, error: "<message>" }`',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['success'],
            properties: {
              success: { type: 'boolean' },
              data: {},
              error: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

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
      defaultOptions: Object.fromEntries(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, envelopeDefault])),
    }),
  );
  r.get('/docs', Scalar({ url: OPENAPI_PATH, pageTitle: 'Contest Engine API' }));
  return r;
}
