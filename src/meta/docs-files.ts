/**
 * Node only (never imported by the Worker): the files the app serves as they are. The /docs
 * UI's files are read from the installed swagger-ui-dist package (scripts/docs-assets.ts copies
 * the same files into public/ for Workers static assets); the console's built files from
 * public/console (committed; on Workers the platform serves them from the same folder).
 * node.ts hands `docsFiles()` to the app as `deps.staticFiles`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_ASSETS, CONSOLE_DIR } from '../console/console.routes.js';
import type { StaticFiles } from '../deps.js';
import { DOCS_ASSETS, DOCS_ASSETS_DIR } from './docs.routes.js';

const publicDir = fileURLToPath(new URL('../../public/', import.meta.url));

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
      let source: string;
      const docs = `${DOCS_ASSETS_DIR}/`;
      const consoleDir = `${CONSOLE_DIR}/`;
      if (path.startsWith(docs) && Object.hasOwn(DOCS_ASSETS, path.slice(docs.length)))
        source = swaggerUiFile(path.slice(docs.length));
      else if (path.startsWith(consoleDir) && Object.hasOwn(CONSOLE_ASSETS, path.slice(consoleDir.length)))
        source = join(publicDir, path);
      else return Promise.resolve(null);
      const file = path;
      let found = cache.get(file);
      if (!found) {
        found = readFile(source).then((buf) => {
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
