/**
 * The embeddable instant-win widget: GET /widget.js (the bundled script, built from src/instant-win/widget/ by
 * scripts/build-widget.ts into bundle.generated.ts, so the Worker needs no file access) and a demo
 * page that embeds it: GET /demo/instant-win/:gameId?key=pk_...
 */
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { htmlPage } from '../http/page.js';
import { demoRouteDoc, keyProblemPage, scriptHandler, scriptRouteDoc } from '../http/script.js';
import { compressUnlessPlatform } from '../http/static-file.js';
import { isUuid, sha256Hex } from '../lib/crypto.js';
import { escapeHtml } from '../lib/html.js';
import { publicKeyPersonalData } from '../sql/keys.js';
import { WIDGET_JS, WIDGET_JS_HASH } from './widget/bundle.generated.js';

const WIDGET_CSS = `h2{font-size:1rem;margin-top:32px}
.warn{background:#fef3c7;border:1px solid #b45309;color:#1f2937;padding:12px;border-radius:8px}
pre{white-space:pre-wrap;word-break:break-all;background:#111827;color:#f9fafb;padding:12px;border-radius:8px;font-size:.8rem}`;

const pageOf = (c: Context<AppEnv>, status: ContentfulStatusCode, title: string, body: string) =>
  htmlPage(c, status, {
    title,
    body,
    css: WIDGET_CSS,
    script: body.includes('<instant-win-game') ? '/widget.js' : null,
  });

export function widgetRoutes() {
  const r = new Hono<AppEnv>();

  r.get(
    '/widget.js',
    describeRoute(
      scriptRouteDoc('getWidgetScript', 'The embeddable instant-win widget script (defines <instant-win-game>)'),
    ),
    // Node answers as it is told, so the app compresses there; on Workers the platform compresses
    // (a body compressed here would be compressed again and reach the browser as binary)
    compressUnlessPlatform,
    scriptHandler(WIDGET_JS, WIDGET_JS_HASH),
  );

  r.get(
    '/demo/instant-win/:gameId',
    describeRoute(
      demoRouteDoc(
        'getInstantWinDemoPage',
        'A page that embeds the widget for one game: /demo/instant-win/:gameId?key=pk_...',
        'game',
      ),
    ),
    async (c) => {
      const gameId = c.req.param('gameId');
      const key = c.req.query('key') ?? '';
      if (!isUuid(gameId)) {
        return pageOf(
          c,
          404,
          'Game not found',
          '<h1>Game not found</h1><p>This address does not name a game: check the game id in the link.</p>',
        );
      }
      const problem = keyProblemPage(key, `/demo/instant-win/${gameId}?key=pk_...`, (status, title, body) =>
        pageOf(c, status, title, body),
      );
      if (problem) return problem;
      const base = c.var.deps.config.publicUrl;
      // a key that shows personal data must not go into a page: say so, and how to make a masked one
      const warning =
        (await publicKeyPersonalData(c.var.db(), await sha256Hex(key))) === 'full'
          ? `<p role="alert" class="warn"><strong>This key shows personal data.</strong> Anyone who reads a page with it can list your entries' emails, names and phone numbers. For pages, make a masked public key: <code>POST /api/admin/teams/:teamId/api-keys</code> with <code>{"type":"public","personalData":"masked"}</code>, and use that key here.</p>\n`
          : '';
      const snippet = `<script src="${base}/widget.js" defer></script>\n<instant-win-game game="${gameId}" api-key="${key}"></instant-win-game>`;
      return pageOf(
        c,
        200,
        'Instant win demo',
        `<instant-win-game game="${escapeHtml(gameId)}" api-key="${escapeHtml(key)}"></instant-win-game>
<noscript><p>This game needs JavaScript.</p></noscript>
${warning}<h2>Embed this game on your site</h2>
<pre><code>${escapeHtml(snippet)}</code></pre>`,
      );
    },
  );

  return r;
}
