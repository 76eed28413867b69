/**
 * Giveaway draws (docs/fairness.md): commit, reveal, replace, get, list, the snapshot CSV, and a
 * public page that re-checks a draw in the browser. Thin handlers: the rules live in
 * src/draws/draws.ts and verify-page.ts.
 */
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { describeRoute } from 'hono-openapi';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { PUBLIC_CACHE_MAX_SECONDS } from '../http/fields.js';
import { htmlPage } from '../http/page.js';
import { publicCached } from '../http/public-cache.js';
import { apiErrors, media, okJson, pageJson, security } from '../http/schemas.js';
import { jsonBody, pageParams, pageQueryParams, queryParams } from '../http/validate.js';
import { Draw } from '../instant-win/fairness.schema.js';
import { isUuid } from '../lib/crypto.js';
import { createDraw, getDraw, listDraws, replaceWinner, revealDraw, SNAPSHOT_HEADER, snapshotPage } from './draws.js';
import { createDrawSchema, replaceSchema, revealSchema } from './draws.schema.js';
import { VERIFY_JS, verifyPageBody } from './verify-page.js';

const tags = ['Draws'];
/** bytes of snapshot CSV per query: about 2 MB a page (whole blocks), under any per-query response limit */
export const SNAPSHOT_PAGE_BYTES = 2_000_000;

const PUBLIC_KEY_RE = /^pk_[A-Za-z0-9]{16,128}$/;
const VERIFY_CSS = `code{word-break:break-all}
ol#steps li{margin:6px 0}
.ok{color:#047857;font-weight:600}
.bad{color:#b91c1c;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;width:100%}
td,th{border:1px solid #d1d5db;padding:4px 6px;text-align:left}`;

const pageOf = (c: Context<AppEnv>, status: ContentfulStatusCode, title: string, body: string, script: boolean) =>
  htmlPage(c, status, { title, body, css: VERIFY_CSS, width: 760, script: script ? '/draws/verify.js' : null });

export function drawRoutes() {
  const r = new Hono<AppEnv>();
  const publicKey = requireKey('public');
  const privateKey = requireKey('private');

  r.post(
    '/api/v1/contests/:contestId/draws',
    describeRoute({
      operationId: 'createDraw',
      tags,
      summary: 'Commit a draw: freeze the eligible entries, commit a secret seed by its hash',
      security: security.privateKey,
      responses: {
        201: okJson('The committed draw (seed hidden, no results yet)', Draw),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: true, 404: ['Contest not found'], 409: ['No eligible entries'] },
        ),
      },
    }),
    privateKey,
    jsonBody(createDrawSchema),
    async (c) => {
      const d = c.var.deps;
      return ok(
        c,
        await createDraw(
          c.var.db(),
          d.random,
          c.var.auth.team,
          c.req.param('contestId'),
          c.req.valid('json'),
          d.clock.now(),
        ),
        201,
      );
    },
  );

  r.get(
    '/api/v1/contests/:contestId/draws',
    describeRoute({
      operationId: 'listDraws',
      tags,
      summary: "A contest's draws, newest first",
      security: security.privateKey,
      responses: {
        200: pageJson('One page of draws', Draw),
        ...apiErrors({ access: 'private' }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    queryParams(pageQueryParams),
    async (c) => {
      const { page: p, limit, offset } = pageParams(c.req.valid('query'));
      const { items, total } = await listDraws(c.var.db(), c.var.auth.team, c.req.param('contestId'), {
        limit,
        offset,
      });
      return ok(c, items, 200, { pagination: pagination(p, limit, total) });
    },
  );

  r.get(
    '/api/v1/draws/:drawId',
    describeRoute({
      operationId: 'getDraw',
      tags,
      summary: 'A draw: settings, hashes, and once revealed the seed and the winners',
      security: security.publicKey,
      responses: {
        200: okJson('The draw', Draw),
        ...apiErrors({ access: 'public' }, { 404: ['Draw not found'] }),
      },
    }),
    publicKey,
    async (c) => ok(c, await getDraw(c.var.db(), c.var.auth.team, c.req.param('drawId'))),
  );

  r.post(
    '/api/v1/draws/:drawId/reveal',
    describeRoute({
      operationId: 'revealDraw',
      tags,
      summary: 'Reveal: pick the winners from the committed seed (and optional public randomness), show the seed',
      security: security.privateKey,
      responses: {
        200: okJson('The revealed draw with its winners and seed', Draw),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: true, 404: ['Draw not found'], 409: ['Draw already revealed'] },
        ),
      },
    }),
    privateKey,
    jsonBody(revealSchema),
    async (c) => {
      const body = c.req.valid('json');
      const draw = await revealDraw(
        c.var.db(),
        c.var.auth.team,
        c.req.param('drawId'),
        body.publicRandomness ?? null,
        c.var.deps.clock.now(),
      );
      // the winners' emails were queued by the reveal: send them after the answer
      if (draw.notifyWinners) triggerEmailDelivery(c);
      return ok(c, draw);
    },
  );

  r.post(
    '/api/v1/draws/:drawId/results/:entryId/replace',
    describeRoute({
      operationId: 'replaceDrawWinner',
      tags,
      summary: 'Replace a winner: the next pick of the same random stream is appended',
      security: security.privateKey,
      responses: {
        200: okJson('The draw with the replacement appended', Draw),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: true,
            404: ['Draw not found', 'Winner not found'],
            409: ['Draw is not revealed', 'No eligible entries'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(replaceSchema),
    async (c) => {
      const draw = await replaceWinner(
        c.var.db(),
        c.var.auth.team,
        c.req.param('drawId'),
        c.req.param('entryId'),
        c.req.valid('json').reason,
        c.var.deps.clock.now(),
      );
      if (draw.notifyWinners) triggerEmailDelivery(c);
      return ok(c, draw);
    },
  );

  r.get(
    '/api/v1/draws/:drawId/snapshot',
    describeRoute({
      operationId: 'getDrawSnapshot',
      tags,
      summary: 'The frozen eligible set as CSV (entry_id,weight,email_sha256); its SHA-256 is snapshotHash',
      security: security.publicKey,
      responses: {
        200: media(
          'The snapshot: a header line, then one line per entry in entry id order, each ending with a line feed',
          'text/csv',
        ),
        ...apiErrors({ access: 'public' }, { 404: ['Draw not found'] }),
      },
    }),
    publicKey,
    publicCached(),
    async (c) => {
      const drawId = c.req.param('drawId');
      if (!isUuid(drawId)) throw Errors.drawNotFound();
      const team = c.var.auth.team;
      const first = await snapshotPage(c.var.db(), team, drawId, -1, SNAPSHOT_PAGE_BYTES);
      if (!first.found) throw Errors.drawNotFound();
      c.header('Content-Type', 'text/csv; charset=utf-8');
      c.header('Content-Disposition', `attachment; filename="draw-${drawId.toLowerCase()}.csv"`);
      if (!first.more) {
        // the whole snapshot in one page: a revealed draw's never changes, so a public key's copy
        // is kept for the longest time the public cache allows (no setting needed)
        if (first.revealed) {
          c.set('publicCacheSeconds', PUBLIC_CACHE_MAX_SECONDS);
          // the snapshot names the entries: kept per contest (an erasure drops it), private to clients
          if (first.contestId) c.set('publicCacheScope', first.contestId);
          c.set('publicCachePersonal', true);
        }
        return c.body(SNAPSHOT_HEADER + first.text, 200);
      }
      const enc = new TextEncoder();
      const deps = c.var.deps;
      let after = first.last;
      let done = !first.more;
      let handle: ReturnType<typeof deps.database.acquire> | undefined;
      // the later pages run on a handle of the stream's own: the request's is released when the
      // handler returns, before the body has been sent
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(enc.encode(SNAPSHOT_HEADER + first.text));
          if (done) controller.close();
        },
        async pull(controller) {
          if (done) return;
          try {
            handle ??= deps.database.acquire();
            const next = await snapshotPage(handle.db, team, drawId, after, SNAPSHOT_PAGE_BYTES);
            after = next.last;
            done = !next.more;
            if (next.text) controller.enqueue(enc.encode(next.text));
            if (done) {
              controller.close();
              await handle.release();
            }
          } catch (e) {
            deps.logger.error('snapshot stream failed', { drawId, error: String(e) });
            controller.error(e);
            await handle?.release();
          }
        },
        async cancel() {
          done = true;
          await handle?.release();
        },
      });
      return c.body(body, 200);
    },
  );

  r.get(
    '/draws/verify.js',
    describeRoute({
      operationId: 'getDrawVerifyScript',
      tags,
      summary: 'The script of the draw verification page',
      security: security.none,
      responses: { 200: media('The script', 'text/javascript') },
    }),
    (c) => {
      c.header('Content-Type', 'text/javascript; charset=utf-8');
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Cache-Control', 'public, max-age=300');
      return c.body(VERIFY_JS, 200);
    },
  );

  r.get(
    '/draws/:drawId/verify',
    describeRoute({
      operationId: 'getDrawVerifyPage',
      tags,
      summary: 'A page that re-checks a draw in the browser: /draws/:drawId/verify?key=pk_...',
      security: security.none,
      responses: {
        200: media(
          'The verification page (it fetches the draw, snapshot and seed with the public key and recomputes the winners)',
          'text/html',
        ),
        400: media('A page explaining what is wrong with the key', 'text/html'),
        404: media('Draw not found (a malformed id)', 'text/html'),
      },
    }),
    (c) => {
      const drawId = c.req.param('drawId');
      const key = c.req.query('key') ?? '';
      if (!isUuid(drawId))
        return pageOf(
          c,
          404,
          'Draw not found',
          '<h1>Draw not found</h1><p>This address does not name a draw.</p>',
          false,
        );
      if (key.startsWith('sk_')) {
        return pageOf(
          c,
          400,
          'Private key refused',
          '<h1>Private key refused</h1><p>That is a private key: never put it in a link. Use the public key (pk_...).</p>',
          false,
        );
      }
      if (!PUBLIC_KEY_RE.test(key)) {
        return pageOf(
          c,
          400,
          'Public key needed',
          '<h1>Public key needed</h1><p>Add the public API key to the address: <code>?key=pk_...</code></p>',
          false,
        );
      }
      return pageOf(c, 200, 'Verify a draw', verifyPageBody(drawId.toLowerCase()), true);
    },
  );

  return r;
}
