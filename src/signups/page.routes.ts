/**
 * GET /c/:contestId: a contest's hosted page (src/signups/page.ts). Limited per client address as
 * the other keyless routes are (429 past it), then read from the public cache for the contest's
 * `publicCacheSeconds` (one copy whatever the query string; on the Worker the data centre's
 * Cache API behind the isolate's copy), and only then from the database.
 */
import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { describeRoute } from 'hono-openapi';
import { limitPublic } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { publicCached } from '../http/public-cache.js';
import { errors } from '../http/schemas.js';
import { compressUnlessPlatform } from '../http/static-file.js';
import { SHARE_CHANNELS, type ShareChannel } from '../lib/share-channels.js';
import { hostedContest, hostedPage, NOT_FOUND_PAGE } from './page.js';
import { followShortLink, SHORT_CODE, shortLinkTarget } from './short-link.js';

/** how long a browser's visit of a short link is remembered (its cookie): one visit a day per code */
const COUNTED_SECONDS = 86_400;

export function hostedPageRoutes() {
  const r = new Hono<AppEnv>();
  r.get(
    '/c/:contestId',
    describeRoute({
      operationId: 'getContestPage',
      tags: ['Sign-ups'],
      summary: "A contest's hosted page: its title, description, image and the sign-up widget, with link-preview tags",
      description:
        "Only while the contest takes public sign-ups and is not a draft (else 404). Cached for the contest's " +
        '`publicCacheSeconds` (one copy whatever the query: share links differ only in `?ref=` and `via=`, which the ' +
        'widget reads in the browser). Limited per client address like the keyless API routes (429).',
      security: [],
      responses: {
        200: { description: 'The page (HTML)', content: { 'text/html': { schema: { type: 'string' } } } },
        404: {
          description: 'No such contest, a draft, or one that takes no public sign-ups (HTML)',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        ...errors({ 429: true }),
      },
    }),
    // compressed on Node (the platform does it on Workers), outside the cache: the cache keeps the page as it is
    compressUnlessPlatform,
    async (c, next) => {
      // the headers of every answer, a cached one included (its CSP is kept with it)
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
      c.header('X-Frame-Options', 'SAMEORIGIN');
      await limitPublic(c, 'keyless');
      await next();
    },
    publicCached({ page: true }),
    async (c) => {
      const deps = c.var.deps;
      const contest = await hostedContest(c.var.db(), c.req.param('contestId'));
      if (!contest) {
        c.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'");
        c.header('Cache-Control', 'no-store');
        return c.html(NOT_FOUND_PAGE, 404);
      }
      const pageUrl = `${deps.config.publicUrl.replace(/\/$/, '')}/c/${contest.id}`;
      const page = await hostedPage(contest, pageUrl, deps.clock.now());
      c.header('Content-Security-Policy', page.csp);
      c.header(
        'Cache-Control',
        contest.publicCacheSeconds > 0 ? `public, max-age=${contest.publicCacheSeconds}` : 'no-cache',
      );
      c.set('publicCacheSeconds', contest.publicCacheSeconds);
      c.set('publicCacheScope', contest.id);
      return c.html(page.html, 200);
    },
  );
  // a share link's short form (docs/signups.md, "Short links and the QR code"): a redirect for
  // people, not an operation of the API, so it is not in the OpenAPI document
  r.get('/r/:code', describeRoute({ hide: true }), async (c) => {
    const deps = c.var.deps;
    await limitPublic(c, 'keyless');
    const code = c.req.param('code');
    const via = c.req.query('via');
    const channel = SHARE_CHANNELS.includes(via as ShareChannel) ? (via as ShareChannel) : null;
    const home = `${deps.config.publicUrl.replace(/\/$/, '')}/`;
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (!SHORT_CODE.test(code)) return c.redirect(home, 302);
    const cookie = `ce_r_${code}`;
    const count = getCookie(c, cookie) === undefined;
    const page = await followShortLink(c.var.db(), { code, channel, count }, deps.clock.now(), deps.config.publicUrl);
    if (count)
      setCookie(c, cookie, '1', {
        path: '/r/',
        maxAge: COUNTED_SECONDS,
        httpOnly: true,
        sameSite: 'Lax',
        secure: new URL(c.req.url).protocol === 'https:',
      });
    return c.redirect(page === null ? home : shortLinkTarget(page, code, channel), 302);
  });
  return r;
}
