/** GET /c/:contestId: a contest's hosted page (src/signups/page.ts). */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { AppEnv } from '../http/context.js';
import { hostedContest, hostedPage, NOT_FOUND_PAGE } from './page.js';

export function hostedPageRoutes() {
  const r = new Hono<AppEnv>();
  r.get(
    '/c/:contestId',
    describeRoute({
      operationId: 'getContestPage',
      tags: ['Sign-ups'],
      summary: "A contest's hosted page: its title, description, image and the sign-up widget, with link-preview tags",
      description:
        "Only while the contest takes public sign-ups (else 404). Cached for the contest's `publicCacheSeconds`; " +
        'share links differ only in `?ref=` and `via=`, which the widget reads in the browser.',
      security: [],
      responses: {
        200: { description: 'The page (HTML)', content: { 'text/html': { schema: { type: 'string' } } } },
        404: {
          description: 'No such contest, or it takes no public sign-ups (HTML)',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    }),
    async (c) => {
      const deps = c.var.deps;
      const contest = await hostedContest(c.var.db(), c.req.param('contestId'));
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
      if (!contest) {
        c.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'");
        c.header('Cache-Control', 'no-store');
        return c.html(NOT_FOUND_PAGE, 404);
      }
      const pageUrl = `${deps.config.publicUrl.replace(/\/$/, '')}/c/${contest.id}`;
      const page = await hostedPage(contest, pageUrl);
      c.header('Content-Security-Policy', page.csp);
      c.header('X-Frame-Options', 'SAMEORIGIN');
      c.header(
        'Cache-Control',
        contest.publicCacheSeconds > 0 ? `public, max-age=${contest.publicCacheSeconds}` : 'no-cache',
      );
      return c.html(page.html, 200);
    },
  );
  return r;
}
