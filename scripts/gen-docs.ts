/**
 * `npm run docs`: writes the parts of the docs that restate the code, from the code.
 *
 * - the settings tables of README.md and docs/operations.md, from src/environment.ts;
 * - the endpoint list of docs/api.md, from the OpenAPI document (scripts/openapi-document.ts);
 * - the CORS example of docs/api.md, from the app's own answer to a preflight.
 *
 * Each part stands between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
 * test/docs-generated.test.ts fails when a committed file differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { settingsTable } from '../src/environment.js';
import { appWithoutDatabase, openApiDocument } from './openapi-document.js';

const root = join(fileURLToPath(new URL('..', import.meta.url)));

const AUTH: Record<string, string> = {
  publicKey: 'public',
  privateKey: 'private',
  adminToken: 'admin token',
  entryToken: 'entry token',
};

/** The endpoint table of docs/api.md: every operation of the document, in its order. */
export function endpointTable(doc: Record<string, any>): string {
  const rows: string[] = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const schemes: string[] = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
      // a route that takes either key needs only the public one
      // an empty requirement: the route also answers without a key (a contest with publicSignup)
      const keyless = (op.security ?? []).some((s: Record<string, unknown>) => Object.keys(s).length === 0);
      const auth =
        schemes.length === 0
          ? 'none'
          : schemes.includes('publicKey')
            ? keyless
              ? 'public, or none (`publicSignup`)'
              : schemes.includes('entryToken')
                ? 'public, or entry token'
                : AUTH.publicKey
            : schemes.map((s) => AUTH[s] ?? s).join(', ');
      const summary = String(op.summary ?? '').replace(/\|/g, '\\|');
      rows.push(`| ${method.toUpperCase()} | \`${path.replace(/\{(\w+)\}/g, ':$1')}\` | ${auth} | ${summary} |`);
    }
  }
  return ['| method | path | key | what |', '|---|---|---|---|', ...rows].join('\n');
}

/** The CORS example of docs/api.md: the command and the headers the app answers it with. */
export async function corsExample(): Promise<string> {
  const res = await appWithoutDatabase().request('/api/v1/contests', {
    method: 'OPTIONS',
    headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
  });
  const lines = [...res.headers]
    .filter(([k]) => k.startsWith('access-control'))
    .map(([k, v]) => `# ${k}: ${v}`)
    .sort();
  return [
    '```sh',
    "curl -s -i -X OPTIONS -H 'Origin: https://shop.example' -H 'Access-Control-Request-Method: POST' \\",
    "  $BASE/api/v1/contests | grep -i '^access-control'",
    ...lines,
    '```',
  ].join('\n');
}

/** `text` with the part NAME replaced by `body`; throws when the markers are missing. */
export function replacePart(text: string, name: string, body: string, file: string): string {
  const open = `<!-- generated:${name} (npm run docs writes this part; do not edit it by hand) -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${file}: the markers of the generated part "${name}" are missing`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

/** Every generated file, as this script would write it: path -> text. */
export async function generatedDocs(): Promise<Record<string, string>> {
  const doc = await openApiDocument();
  const out: Record<string, string> = {};
  const part = (file: string, name: string, body: string) => {
    const current = out[file] ?? readFileSync(join(root, file), 'utf8');
    out[file] = replacePart(current, name, body, file);
  };
  part('README.md', 'settings', settingsTable());
  part('docs/operations.md', 'settings', settingsTable());
  part('docs/api.md', 'endpoints', endpointTable(doc));
  part('docs/api.md', 'cors', await corsExample());
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = await generatedDocs();
  for (const [file, text] of Object.entries(files)) {
    const path = join(root, file);
    if (readFileSync(path, 'utf8') !== text) {
      writeFileSync(path, text);
      console.log(`docs: wrote ${file}`);
    }
  }
}
