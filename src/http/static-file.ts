/**
 * A file the app serves as it is (the /docs UI, the console's script), read through
 * `deps.staticFiles` (Node). On Workers the platform serves the same files as static assets
 * before the Worker runs; a request that still reaches here names no such file.
 */
import type { Context, Next } from 'hono';
import { compress } from 'hono/compress';
import type { AppEnv } from './context.js';

export async function serveStaticFile(c: Context<AppEnv>, path: string, type: string | undefined) {
  const found = type ? await c.var.deps.staticFiles?.read(path) : null;
  if (!type || !found) return c.notFound();
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'public, max-age=0, must-revalidate');
  c.header('ETag', found.etag);
  c.header('Vary', 'Accept-Encoding');
  const inm = c.req.header('if-none-match');
  if (inm?.split(',').some((t) => t.trim().replace(/^W\//, '') === found.etag)) return c.body(null, 304);
  c.header('Content-Type', type);
  return c.body(found.body as Uint8Array<ArrayBuffer>);
}

const gzip = compress();

/** Node answers as it is told, so the app compresses there; on Workers the platform does. */
export const compressUnlessPlatform = (c: Context<AppEnv>, next: Next) =>
  c.var.deps.config.platformCompresses ? next() : gzip(c, next);
