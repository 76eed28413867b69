/**
 * docs/console.md's screenshots show the console as it is built now: the manifest the Chromium
 * console test writes with them names the build they were taken of, and every screenshot the docs
 * show is one it takes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  consoleBuildHash,
  DOCS_SHOTS,
  DOCS_SHOTS_DIR,
  DOCS_SHOTS_MANIFEST,
  type ShotsManifest,
} from './support/console-shots.js';

describe("the console's screenshots in the docs", () => {
  it('were taken of the current build of the console (run the Chromium console test to take them again)', () => {
    const manifest = JSON.parse(readFileSync(DOCS_SHOTS_MANIFEST, 'utf8')) as ShotsManifest;
    expect(
      manifest.consoleBuild,
      'docs/console/*.png are older than the console: run `npx vitest run test/browser/console.test.ts` (it takes them again) and commit them',
    ).toBe(consoleBuildHash());
    expect(manifest.shots.sort()).toEqual(Object.keys(DOCS_SHOTS).sort());
  });

  it('are the ones docs/console.md shows, and exist', () => {
    const md = readFileSync(join(process.cwd(), 'docs/console.md'), 'utf8');
    const shown = [...md.matchAll(/\]\(console\/([^)]+\.png)\)/g)].map((m) => m[1]!);
    expect(shown.sort()).toEqual(Object.keys(DOCS_SHOTS).sort());
    for (const f of shown) expect(existsSync(join(DOCS_SHOTS_DIR, f)), f).toBe(true);
  });
});
