import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { documentOptions } from '../schemas/document.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The OpenAPI 3.1 document, generated from the routes' own valibot schemas, and a reference page. */
export function docsRoutes(app: Hono<AppEnv>) {
  const r = new Hono<AppEnv>();
  r.get(OPENAPI_PATH, openAPIRouteHandler(app, documentOptions));
  r.get('/docs', Scalar({ url: OPENAPI_PATH, pageTitle: 'Contest Engine API' }));
  return r;
}
