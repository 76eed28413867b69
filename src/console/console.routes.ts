/**
 * The operator console: /console and every /console/* page answer the same HTML shell, which
 * loads /console/app.js (built from src/console/ by scripts/build-console.ts). The script and its
 * stylesheet are static files: on Workers the platform serves them from public/console before
 * the Worker runs (the Worker script does not grow by the console); on Node `deps.staticFiles`
 * reads them. Only the app's own origin: CSP 'self', no inline script or style, works offline.
 */
import { type Context, Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { compressUnlessPlatform, serveStaticFile } from '../http/static-file.js';
import { htmlDocument } from '../lib/html.js';

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
  // the widget's live preview: the app's own demo page in a frame
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SHELL = htmlDocument({
  title: 'Contest Engine console',
  head: `<link rel="stylesheet" href="/${CONSOLE_DIR}/app.css">
<script type="module" src="/${CONSOLE_DIR}/app.js"></script>`,
  body: `<div id="console"></div>
<noscript><p>The console needs JavaScript. Everything it does is also in the API: see <a href="/docs">/docs</a>.</p></noscript>`,
});

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
  r.get(`/${CONSOLE_DIR}/:file{app\\.(js|css)}`, describeRoute({ hide: true }), compressUnlessPlatform, (c) => {
    const file = c.req.param('file') ?? '';
    return serveStaticFile(
      c,
      `${CONSOLE_DIR}/${file}`,
      Object.hasOwn(CONSOLE_ASSETS, file) ? CONSOLE_ASSETS[file] : undefined,
    );
  });
  r.get(`/${CONSOLE_DIR}`, describeRoute({ hide: true }), shell);
  r.get(`/${CONSOLE_DIR}/*`, describeRoute({ hide: true }), shell);
  return r;
}
