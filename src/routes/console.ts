/**
 * The operator console: /console and every /console/* page answer the same HTML shell, which
 * loads /console/app.js (built from src/console/ by scripts/build-console.ts). The script and its
 * stylesheet are static files: on Workers the platform serves them from public/console before
 * the Worker runs (the Worker script does not grow by the console); on Node `deps.staticFiles`
 * reads them. Only the app's own origin: CSP 'self', no inline script or style, works offline.
 */
import { Hono, type Context, type Next } from 'hono';
import { compress } from 'hono/compress';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';

export const CONSOLE_DIR = 'console';
export const CONSOLE_ASSETS: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Contest Engine console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/${CONSOLE_DIR}/app.css">
<script type="module" src="/${CONSOLE_DIR}/app.js"></script>
</head>
<body>
<div id="console"></div>
<noscript><p>The console needs JavaScript. Everything it does is also in the API: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`;

const gzip = compress();
const compressUnlessPlatform = (c: Context<AppEnv>, next: Next) => (c.var.deps.config.platformCompresses ? next() : gzip(c, next));

function shell(c: Context<AppEnv>) {
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-cache');
  return c.html(SHELL);
}

export function consoleRoutes() {
  const r = new Hono<AppEnv>();
  // Workers: the platform answers these from its static assets before the Worker runs
  r.get(`/${CONSOLE_DIR}/:file{app\\.(js|css)}`, describeRoute({ hide: true }), compressUnlessPlatform, async (c) => {
    const file = c.req.param('file') ?? '';
    const type = Object.hasOwn(CONSOLE_ASSETS, file) ? CONSOLE_ASSETS[file] : undefined;
    const found = type ? await c.var.deps.staticFiles?.read(`${CONSOLE_DIR}/${file}`) : null;
    if (!type || !found) return c.notFound();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', 'public, max-age=0, must-revalidate');
    c.header('ETag', found.etag);
    c.header('Vary', 'Accept-Encoding');
    const inm = c.req.header('if-none-match');
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === found.etag)) return c.body(null, 304);
    c.header('Content-Type', type);
    return c.body(found.body as Uint8Array<ArrayBuffer>);
  });
  r.get(`/${CONSOLE_DIR}`, describeRoute({ hide: true }), shell);
  r.get(`/${CONSOLE_DIR}/*`, describeRoute({ hide: true }), shell);
  return r;
}
