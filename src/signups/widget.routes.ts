/**
 * The embeddable sign-up widget: GET /signup.js (built from src/signups/widget/ by
 * scripts/build-widget.ts into bundle.generated.ts) and a demo page that embeds it for one
 * contest: GET /demo/contests/:contestId?key=pk_...
 */
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { htmlPage } from '../http/page.js';
import { demoRouteDoc, keyProblemPage, scriptHandler, scriptRouteDoc } from '../http/script.js';
import { compressUnlessPlatform } from '../http/static-file.js';
import { isUuid } from '../lib/crypto.js';
import { escapeHtml } from '../lib/html.js';
import { SIGNUP_JS, SIGNUP_JS_HASH } from './widget/bundle.generated.js';

const DEMO_CSS = `h2{font-size:1rem;margin-top:32px}
pre{white-space:pre-wrap;word-break:break-all;background:#111827;color:#f9fafb;padding:12px;border-radius:8px;font-size:.8rem}`;

const pageOf = (c: Context<AppEnv>, status: ContentfulStatusCode, title: string, body: string) =>
  htmlPage(c, status, { title, body, css: DEMO_CSS, script: body.includes('<contest-signup') ? '/signup.js' : null });

export function signupWidgetRoutes() {
  const r = new Hono<AppEnv>();

  r.get(
    '/signup.js',
    describeRoute(
      scriptRouteDoc('getSignupWidgetScript', 'The embeddable sign-up widget script (defines <contest-signup>)'),
    ),
    compressUnlessPlatform,
    scriptHandler(SIGNUP_JS, SIGNUP_JS_HASH),
  );

  r.get(
    '/demo/contests/:contestId',
    describeRoute(
      demoRouteDoc(
        'getSignupDemoPage',
        'A page that embeds the sign-up widget for one contest: /demo/contests/:contestId?key=pk_...',
        'contest',
      ),
    ),
    async (c) => {
      const contestId = c.req.param('contestId');
      const key = c.req.query('key') ?? '';
      if (!isUuid(contestId)) {
        return pageOf(
          c,
          404,
          'Contest not found',
          '<h1>Contest not found</h1><p>This address does not name a contest: check the contest id in the link.</p>',
        );
      }
      const problem = keyProblemPage(key, `/demo/contests/${contestId}?key=pk_...`, (status, title, body) =>
        pageOf(c, status, title, body),
      );
      if (problem) return problem;
      const snippet = `<script src="${c.var.deps.config.publicUrl}/signup.js" defer></script>\n<contest-signup contest="${contestId}" api-key="${key}"></contest-signup>`;
      return pageOf(
        c,
        200,
        'Sign-up demo',
        `<contest-signup contest="${escapeHtml(contestId)}" api-key="${escapeHtml(key)}"></contest-signup>
<noscript><p>This form needs JavaScript.</p></noscript>
<h2>Embed this form on your site</h2>
<pre><code>${escapeHtml(snippet)}</code></pre>`,
      );
    },
  );

  return r;
}
