/**
 * How large a request body may be: 64 KiB, unless the route declares more in its own handler
 * list (`largeBody()`: the store and payment platforms' payloads, a reward's codes). Judged first,
 * before the key and before the body is read or walked (src/http/validate.ts), so that what a body
 * costs is bounded by its route's limit.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { matchedRoutes } from 'hono/route';
import { Errors } from '../errors.js';

/** Every route's body limit unless it declares its own. */
export const MAX_BODY_BYTES = 64 * 1024;
/** The limit a route with `largeBody()` declares. */
export const LARGE_BODY_BYTES = 1024 * 1024;

const DECLARED = Symbol('declared body limit');
type Declaring = MiddlewareHandler & { [DECLARED]?: number };

/**
 * Declares that the route takes bodies up to 1 MiB: a large Shopify order can pass 64 KiB (a 413
 * there makes the platform retry, then drop the subscription), and a reward's pool takes 10,000
 * codes a request. Put it in the route's handler list; it does nothing when it runs.
 */
export function largeBody(): MiddlewareHandler {
  const mw: Declaring = (_c, next) => next();
  mw[DECLARED] = LARGE_BODY_BYTES;
  return mw;
}

const declaredBy = (handler: unknown): number | undefined => (handler as Declaring)[DECLARED];

/** The body limit of the route a request matched. */
function limitOf(c: Context): number {
  for (const r of matchedRoutes(c)) {
    const declared = declaredBy(r.handler);
    if (declared !== undefined) return declared;
  }
  return MAX_BODY_BYTES;
}

/** Each route's declared limit, `METHOD /path` (for tests and docs): the routes that declare one. */
export function declaredBodyLimits(app: {
  routes: readonly { method: string; path: string; handler: unknown }[];
}): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of app.routes) {
    const declared = declaredBy(r.handler);
    if (declared !== undefined) out.set(`${r.method} ${r.path}`, declared);
  }
  return out;
}

const streamedLimits = new Map<number, MiddlewareHandler>();
const streamed = (maxSize: number) => {
  let mw = streamedLimits.get(maxSize);
  if (!mw) {
    mw = bodyLimit({
      maxSize,
      onError: () => {
        throw Errors.bodyTooLarge();
      },
    });
    streamedLimits.set(maxSize, mw);
  }
  return mw;
};

/** The app-wide middleware: 413 `Request body too large` past the matched route's limit. */
export const bodySizeLimit: MiddlewareHandler = (c, next) => {
  // GET and HEAD carry no body. A body of announced length is judged by its header, as hono's
  // bodyLimit does, without touching c.req.raw.body: on Node that getter turns the adapter's
  // light request into a full Request with a web stream over the socket, about 12% of a
  // request's CPU. Anything else (a chunked body) is counted as it streams.
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return next();
  const maxSize = limitOf(c);
  const length = c.req.header('content-length');
  if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
    if (Number.parseInt(length, 10) > maxSize) throw Errors.bodyTooLarge();
    return next();
  }
  return streamed(maxSize)(c, next);
};
