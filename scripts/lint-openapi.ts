/**
 * npm run lint:openapi: writes the OpenAPI document (from createApp(), no server) to
 * `.tmp/openapi.json` and lints it with Redocly's recommended ruleset. Exit code 1 on any error
 * or warning.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './openapi-document.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ? resolve(process.argv[2]) : resolve(root, '.tmp/openapi.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
console.log(`wrote ${out}`);
const cli = resolve(root, 'node_modules/@redocly/cli/bin/cli.js');
const r = spawnSync(process.execPath, [cli, 'lint', out, '--extends=recommended', '--max-problems=1000'], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
