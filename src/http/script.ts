/**
 * What the two embeddable widgets share: their script served with an ETag (shops embed the
 * unversioned URL: short freshness, revalidated), and the demo pages' checks of the key in the
 * address (a page must get a public key, never a private one).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './context.js';
import { errors, headerParam, media, security } from './schemas.js';

/** Public keys as the API makes them (pk_ + base62); anything else never reaches a page. */
export const PUBLIC_KEY_RE = /^pk_[A-Za-z0-9]{16,128}$/;

/** The handler that answers a bundled script (after compressUnlessPlatform). */
export function scriptHandler(js: string, hash: string) {
  const etag = `"${hash}"`;
  const matches = (header: string | undefined) =>
    !!header && (header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
  return (c: Context<AppEnv>) => {
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    // short freshness + revalidation by ETag: shops embed the unversioned URL, fixes reach them within minutes
    c.header('Cache-Control', 'public, max-age=300, stale-while-revalidate=86400');
    c.header('ETag', etag);
    c.header('Vary', 'Accept-Encoding');
    if (matches(c.req.header('if-none-match'))) return c.body(null, 304);
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(js, 200);
  };
}

/**
 * The page a demo answers when the key in its address is missing, private or malformed, or null
 * when it is a public key. `example` is the address with `?key=pk_...`.
 */
export function keyProblemPage(
  key: string,
  example: string,
  page: (status: ContentfulStatusCode, title: string, body: string) => Response | Promise<Response>,
) {
  if (!key) {
    return page(
      400,
      'Public key needed',
      `<h1>Public key needed</h1><p>Add your team's public API key to the address: <code>${example}</code></p>`,
    );
  }
  if (key.startsWith('sk_')) {
    return page(
      400,
      'Private key refused',
      '<h1>Private key refused</h1><p>That is a private key: never put it in a web page or a link. Use your public key (pk_...) instead, and consider rotating the private key you just shared.</p>',
    );
  }
  if (!PUBLIC_KEY_RE.test(key)) {
    return page(
      400,
      'Invalid public key',
      '<h1>Invalid public key</h1><p>The key in the address is not a public API key (pk_...).</p>',
    );
  }
  return null;
}

/** The OpenAPI description of a widget's script route. */
export const scriptRouteDoc = (operationId: string, summary: string) => ({
  operationId,
  tags: ['Widget'],
  summary,
  security: security.none,
  parameters: [headerParam('If-None-Match', 'the ETag of a copy already held: 304 when it is current')],
  responses: {
    200: media('The script (cached 5 minutes, revalidated by ETag)', 'text/javascript', {
      headers: { ETag: { description: 'the script version', schema: { type: 'string' } } },
    }),
    304: { description: 'The copy held (If-None-Match) is current' },
    ...errors({ 500: true }),
  },
});

/** The OpenAPI description of a widget's demo page (`what`: game or contest). */
export const demoRouteDoc = (operationId: string, summary: string, what: string) => ({
  operationId,
  tags: ['Widget'],
  summary,
  security: security.none,
  parameters: [
    {
      name: 'key',
      in: 'query' as const,
      required: true,
      description: "the team's public key (`pk_...`); a private key is refused",
      schema: { type: 'string' as const },
    },
  ],
  responses: {
    200: media('The demo page, with the embed snippet', 'text/html'),
    400: media('A page explaining what is wrong with the key (missing, private, malformed)', 'text/html'),
    404: media(`A page saying that the address names no ${what}`, 'text/html'),
    ...errors({ 500: true }),
  },
});
