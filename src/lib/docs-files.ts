/**
 * Node only (never imported by the Worker): the /docs UI's files read from the installed
 * swagger-ui-dist package. node.ts hands `docsFiles()` to the app as `deps.staticFiles`;
 * scripts/docs-assets.ts copies the same files into public/ for Workers static assets.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StaticFiles } from '../deps.js';
import { DOCS_ASSETS, DOCS_ASSETS_DIR } from '../routes/docs.js';

/** Where the installed swagger-ui-dist keeps `file`. */
export function swaggerUiFile(file: string): string {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return join(dir, file);
}

/** The files of DOCS_ASSETS under their public paths (docs/assets/<file>), read once and kept. */
export function docsFiles(): StaticFiles {
  const cache = new Map<string, Promise<{ body: Uint8Array; etag: string } | null>>();
  return {
    read(path) {
      const prefix = `${DOCS_ASSETS_DIR}/`;
      const file = path.startsWith(prefix) ? path.slice(prefix.length) : '';
      if (!Object.hasOwn(DOCS_ASSETS, file)) return Promise.resolve(null);
      let found = cache.get(file);
      if (!found) {
        found = readFile(swaggerUiFile(file)).then((buf) => {
          const body = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
          return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"` };
        });
        // a failed read (package missing) is not kept: the next request tries again
        found.catch(() => cache.delete(file));
        cache.set(file, found);
      }
      return found;
    },
  };
}
