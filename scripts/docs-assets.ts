/**
 * Copies the /docs UI's files (Swagger UI, from the installed swagger-ui-dist) into
 * public/docs/assets, the directory Workers static assets serve ([assets] in wrangler.toml).
 * wrangler runs it before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml).
 * Node (`npm start`) reads the same files from the package directly (src/meta/docs-files.ts).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_ASSETS, DOCS_ASSETS_DIR } from '../src/meta/docs.routes.js';
import { swaggerUiFile } from '../src/meta/docs-files.js';

const out = join(fileURLToPath(new URL('..', import.meta.url)), 'public', DOCS_ASSETS_DIR);
mkdirSync(out, { recursive: true });
let copied = 0;
for (const file of Object.keys(DOCS_ASSETS)) {
  const from = swaggerUiFile(file);
  const to = join(out, file);
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue;
  copyFileSync(from, to);
  copied++;
}
if (copied) console.log(`docs assets: copied ${copied} file(s) from swagger-ui-dist into public/${DOCS_ASSETS_DIR}`);
