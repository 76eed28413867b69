/**
 * `npm run docs`: writes the parts of the docs that restate the code, from the code.
 *
 * - the settings tables of README.md and docs/operations.md, from src/environment.ts;
 * - the endpoint list of docs/api.md, from the OpenAPI document (scripts/openapi-document.ts);
 * - the CORS example of docs/api.md, from the app's own answer to a preflight;
 * - the list of every function and trigger of docs/architecture.md, from src/db/functions/.
 *
 * Each part stands between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
 * test/docs-generated.test.ts fails when a committed file differs from what this writes.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * Every function and trigger the files under src/db/functions/ define, in file order: a trigger
 * with its table, event and function; a function with the first sentence of the comment above it,
 * or, for a trigger's function, the trigger it is the body of.
 */
export function functionsTable(dir = join(root, 'src/db/functions')): string {
  type Def = { file: string; kind: 'FUNCTION' | 'TRIGGER'; name: string; comment: string; body: string };
  const defs: Def[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    for (const block of readFileSync(join(dir, file), 'utf8')
      .split(/^-- ce:function\s*$/m)
      .slice(1)) {
      const lines = block.split('\n');
      let i = 0;
      const comment: string[] = [];
      // the comment directly above the definition (a blank line or a ruler ends an earlier one)
      for (; i < lines.length && (/^--/.test(lines[i]!) || lines[i]!.trim() === ''); i++) {
        if (lines[i]!.trim() === '' || /^-- ?-{10,}/.test(lines[i]!)) comment.length = 0;
        else comment.push(lines[i]!.replace(/^--\s?/, ''));
      }
      const body = lines.slice(i).join('\n');
      const m = /CREATE OR REPLACE (FUNCTION|TRIGGER) (\w+)/.exec(body);
      if (m) defs.push({ file, kind: m[1] as Def['kind'], name: m[2]!, comment: comment.join(' '), body });
    }
  }
  const triggers = defs
    .filter((d) => d.kind === 'TRIGGER')
    .map((d) => {
      const t = /TRIGGER \w+ (AFTER|BEFORE) ([A-Z ]+?) ON (\w+).*EXECUTE FUNCTION (\w+)\(/.exec(d.body)!;
      return { ...d, when: `${t[1]!.toLowerCase()} ${t[2]!.toLowerCase()}`, table: t[3]!, fn: t[4]! };
    });
  const sentence = (c: string) => {
    const s = /^(.*?[.;])(\s|$)/.exec(c)?.[1] ?? c;
    return (s.length > 180 ? `${s.slice(0, 179)}…` : s).replace(/\|/g, '\\|');
  };
  const rows = defs.map((d) => {
    if (d.kind === 'TRIGGER') {
      const t = triggers.find((x) => x.name === d.name)!;
      return `| \`${d.name}\` | trigger | \`${d.file}\` | ${t.when} on \`${t.table}\`, runs \`${t.fn}\` |`;
    }
    const of = triggers.filter((t) => t.fn === d.name).map((t) => `\`${t.name}\``);
    const what = [of.length ? `the body of ${of.join(', ')}` : '', d.comment ? sentence(d.comment) : '']
      .filter(Boolean)
      .join(': ');
    return `| \`${d.name}\` | function | \`${d.file}\` | ${what || '—'} |`;
  });
  return ['| name | kind | file | what |', '|---|---|---|---|', ...rows].join('\n');
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
  part('docs/architecture.md', 'functions', functionsTable());
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
