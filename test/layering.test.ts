/**
 * The module layering: no file of src/domain imports one that imports it back (directly or
 * through others), and nothing in src/domain, src/db or src/lib imports from src/http.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(process.cwd(), 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** the relative imports and re-exports of a file, as absolute .ts paths */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) =>
    resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')),
  );
}

describe('module layering', () => {
  it('src/domain has no import cycle', () => {
    const root = join(src, 'domain');
    const files = filesUnder(root);
    const graph = new Map(files.map((f) => [f, importsOf(f).filter((p) => p.startsWith(root))]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (n: string) => {
      state.set(n, 'open');
      stack.push(n);
      for (const m of graph.get(n) ?? []) {
        if (state.get(m) === 'open')
          cycles.push([...stack.slice(stack.indexOf(m)), m].map((x) => relative(root, x)).join(' -> '));
        else if (!state.has(m)) visit(m);
      }
      stack.pop();
      state.set(n, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('domain, db and lib never import from src/http', () => {
    const http = join(src, 'http');
    const offenders = ['domain', 'db', 'lib']
      .flatMap((d) => filesUnder(join(src, d)))
      .filter((f) => importsOf(f).some((p) => p.startsWith(http)))
      .map((f) => relative(src, f));
    expect(offenders).toEqual([]);
  });
});
