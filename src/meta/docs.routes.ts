import { Hono } from 'hono';
import { openAPIRouteHandler } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { compressUnlessPlatform, serveStaticFile } from '../http/static-file.js';
import { htmlDocument } from '../lib/html.js';
import { documentOptions } from './document.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * The reference UI (Swagger UI, from the swagger-ui-dist package) is served by the app itself:
 * no CDN, so /docs works offline and behind a network that only lets the app's own origin through.
 * Its bundle (~1.7 MB) never enters the Worker script: on Workers the platform serves these files
 * as static assets (public/docs/assets, filled by scripts/docs-assets.ts, [assets] in
 * wrangler.toml); on Node, `deps.staticFiles` reads them from the installed package.
 */
export const DOCS_ASSETS_DIR = 'docs/assets';

export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

/** Starts Swagger UI on the page; a file of its own so the page's CSP needs no inline script. */
const INIT_JS = `"use strict";
window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * Only the app's own origin: no inline script or style at all (Swagger UI sets styles through the
 * DOM, which CSP allows); data: images are the icons in its stylesheet.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_HTML = htmlDocument({
  title: 'Contest Engine API',
  head: `<link rel="stylesheet" href="/${DOCS_ASSETS_DIR}/swagger-ui.css">
<script src="/${DOCS_ASSETS_DIR}/swagger-ui-bundle.js" defer></script>
<script src="/docs/init.js" defer></script>`,
  body: `<noscript><p>This page needs JavaScript. The API description itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p></noscript>
<div id="swagger-ui"></div>`,
});

/** The OpenAPI 3.1 document, generated from the routes' own valibot schemas, and a reference page. */
export function docsRoutes(app: Hono<AppEnv>) {
  const r = new Hono<AppEnv>();
  r.get(OPENAPI_PATH, openAPIRouteHandler(app, documentOptions));
  r.get('/docs', (c) => {
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-cache');
    return c.html(DOCS_HTML);
  });
  r.get('/docs/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', 'no-cache');
    return c.body(INIT_JS);
  });
  // Workers: the platform answers these from its static assets before the Worker runs; a request
  // that still reaches here names no such file. Node: read from the package (deps.staticFiles).
  r.get(`/${DOCS_ASSETS_DIR}/:file`, compressUnlessPlatform, (c) => {
    const file = c.req.param('file') ?? '';
    return serveStaticFile(
      c,
      `${DOCS_ASSETS_DIR}/${file}`,
      Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined,
    );
  });
  return r;
}
