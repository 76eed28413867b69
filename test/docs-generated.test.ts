/**
 * Docs that cannot drift from the code:
 * - the settings tables (README.md, docs/operations.md) and the endpoint list (docs/api.md) are
 *   what scripts/gen-docs.ts writes from src/environment.ts and the OpenAPI document;
 * - every relative link of README.md and docs/*.md names a file that exists, and every #anchor a
 *   heading of that file (GitHub's rules for heading anchors).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedDocs } from '../scripts/gen-docs.js';

const root = process.cwd();
const markdownFiles = () => [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchors of a Markdown file's headings (duplicates get -1, -2, …). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a Markdown text, outside code: [text](target). */
function linksOf(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, '');
    for (const m of plain.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue; // absolute URLs and server paths
      out.push(target);
    }
  }
  return out;
}

describe('generated docs', () => {
  it('the settings tables and the endpoint list are what `npm run docs` writes (run it after changing settings or routes)', async () => {
    const files = await generatedDocs();
    for (const [file, text] of Object.entries(files)) {
      expect(
        readFileSync(join(root, file), 'utf8') === text,
        `${file} is stale: run \`npm run docs\` and commit the result`,
      ).toBe(true);
    }
  });

  it('every relative link and anchor in README.md and docs/ resolves', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const link of linksOf(text)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? normalize(join(dirname(file), decodeURI(path))) : file;
        if (!existsSync(join(root, target))) {
          broken.push(`${file}: ${link} (no file ${target})`);
          continue;
        }
        if (
          anchor !== undefined &&
          target.endsWith('.md') &&
          !anchorsOf(readFileSync(join(root, target), 'utf8')).has(anchor)
        ) {
          broken.push(`${file}: ${link} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the anchor rules follow GitHub', () => {
    expect([
      ...anchorsOf(
        '# The Worker locally: npm run dev\n## `DB_TRANSPORT` and you\n## Same\n## Same\n```\n# not a heading\n```',
      ),
    ]).toEqual(['the-worker-locally-npm-run-dev', 'db_transport-and-you', 'same', 'same-1']);
  });
});
