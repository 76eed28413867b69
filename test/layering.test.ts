/**
 * The module layering of src/ (docs/architecture.md):
 * - ground floor: db/, lib/, http/, sql/, mail/ and errors.ts, deps.ts, environment.ts; they import
 *   only each other;
 * - areas: every other folder (contests/, entries/, instant-win/…); they import the ground floor
 *   and other areas, never a runtime entry, and the areas' folders form no circle;
 * - top: app.ts, node.ts, worker.ts, jobs.ts, which build the dependencies and mount the areas;
 * - no file takes part in an import circle;
 * - domain code (an area's files other than *.routes.ts and *.schema.ts, and sql/, db/, lib/,
 *   mail/) never imports from src/http: errors are a ground-floor module the HTTP layer maps.
 * - no *.routes.ts declares an object schema: bodies, queries and answers live in *.schema.ts.
 * - test code stays out of production folders: in src/ only *.test.ts imports vitest or
 *   test/support (the setup tests share lives in test/support/).
 * Tests (*.test.ts) are left out of the floors: they may reach anything.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(process.cwd(), 'src');
const GROUND_DIRS = ['db', 'lib', 'http', 'sql', 'mail'];
const GROUND_FILES = ['errors.ts', 'deps.ts', 'environment.ts'];
const TOP_FILES = ['app.ts', 'node.ts', 'worker.ts', 'jobs.ts'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return filesUnder(p);
    return /\.tsx?$/.test(p) && !/\.test\.ts$/.test(p) ? [p] : [];
  });
}

/** the relative imports and re-exports of a file, as absolute paths of files that exist */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) => {
    const p = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
    return p.endsWith('.ts') && !existsFile(p) && existsFile(`${p}x`) ? `${p}x` : p;
  });
}
const existsFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

type Floor = 'ground' | 'top' | `area:${string}`;
function floorOf(file: string): Floor {
  const parts = relative(src, file).split('/');
  if (parts.length === 1) return TOP_FILES.includes(parts[0]!) ? 'top' : 'ground';
  return GROUND_DIRS.includes(parts[0]!) ? 'ground' : `area:${parts[0]}`;
}
const isDomain = (file: string) => {
  const floor = floorOf(file);
  if (floor === 'top') return false;
  if (floor === 'ground') return !relative(src, file).startsWith('http/') && !GROUND_FILES.includes(basename(file));
  return !/\.(routes|schema)\.ts$/.test(file) && !['area:meta', 'area:console'].includes(floor);
};

const files = filesUnder(src);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((p) => p.startsWith(src))]));
const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })));
const show = (e: { from: string; to: string }) => `${relative(src, e.from)} -> ${relative(src, e.to)}`;

function cyclesOf(nodes: string[], next: (n: string) => string[]): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of next(n)) {
      if (state.get(m) === 'open') cycles.push([...stack.slice(stack.indexOf(m)), m].join(' -> '));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
  return cycles;
}

describe('module layering', () => {
  it('sees the layout it describes (a ground floor, a dozen areas, the runtime entries)', () => {
    const floors = new Set(files.map(floorOf));
    expect(floors.has('ground')).toBe(true);
    expect(floors.has('top')).toBe(true);
    expect([...floors].filter((f) => f.startsWith('area:')).length).toBeGreaterThanOrEqual(10);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('no file of src takes part in an import circle', () => {
    expect(cyclesOf(files, (n) => graph.get(n) ?? []).map((c) => c.replaceAll(`${src}/`, ''))).toEqual([]);
  });

  it('the ground floor imports only the ground floor', () => {
    expect(edges.filter((e) => floorOf(e.from) === 'ground' && floorOf(e.to) !== 'ground').map(show)).toEqual([]);
  });

  it('no area imports a runtime entry', () => {
    expect(edges.filter((e) => floorOf(e.from).startsWith('area:') && floorOf(e.to) === 'top').map(show)).toEqual([]);
  });

  it("the areas' folders form no circle", () => {
    const areaGraph = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = [floorOf(e.from), floorOf(e.to)];
      if (a.startsWith('area:') && b.startsWith('area:') && a !== b) {
        areaGraph.set(a, (areaGraph.get(a) ?? new Set()).add(b));
      }
    }
    expect(cyclesOf([...areaGraph.keys()], (n) => [...(areaGraph.get(n) ?? [])])).toEqual([]);
  });

  it('domain code never imports from src/http', () => {
    const http = join(src, 'http');
    expect(edges.filter((e) => isDomain(e.from) && e.to.startsWith(http)).map(show)).toEqual([]);
  });

  it("a route file declares no object schema: every body, query and answer is in its area's *.schema.ts", () => {
    const declared = files
      .filter((f) => f.endsWith('.routes.ts'))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/\bv\.(object|strictObject|looseObject|objectWithRest)\(/g)].map(
          (m) => `${relative(src, f)}: v.${m[1]}(`,
        ),
      );
    expect(declared).toEqual([]);
  });

  it('every HTML page is the one document of lib/html.ts (htmlDocument): no other file writes a doctype', () => {
    // an email's HTML (mail/templates.ts) is a message, not a page
    const own = files.filter((f) => !f.endsWith('.test.ts') && /<!doctype html/i.test(readFileSync(f, 'utf8')));
    expect(own.map((f) => relative(src, f)).sort()).toEqual(['lib/html.ts', 'mail/templates.ts']);
  });

  it('no file of src is over 500 lines (tests and generated files aside): a longer one is split by what it does', () => {
    const long = files
      .filter((f) => !f.endsWith('.generated.ts'))
      .map((f) => [relative(src, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > 500);
    expect(long).toEqual([]);
  });

  it('test code stays out of production folders: only a *.test.ts of src imports vitest or test/', () => {
    const testOnly = files.filter((f) =>
      /^(?:import|export)\b[^;]*?\sfrom\s+'(?:vitest(?:\/[^']*)?|(?:\.\.\/)+test\/[^']*)'/ms.test(
        readFileSync(f, 'utf8'),
      ),
    );
    expect(testOnly.map((f) => relative(src, f))).toEqual([]);
  });
});
