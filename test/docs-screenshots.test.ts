/**
 * The docs' screenshots show what is built now: each set's manifest (written by the Chromium suite
 * that takes them) names the build they were taken of, and every screenshot a page shows is one
 * the suite takes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildHash,
  CONSOLE_SHOTS,
  HOSTED_SHOTS,
  readManifest,
  type ShotSet,
  WIDGET_SHOTS,
} from './support/docs-shots.js';

const sets: [string, ShotSet, string][] = [
  ['the console', CONSOLE_SHOTS, 'test/browser/console-node.test.ts'],
  ['the sign-up widget', WIDGET_SHOTS, 'test/browser/widget-contest.test.ts'],
  ['the hosted page', HOSTED_SHOTS, 'test/browser/hosted-page.test.ts'],
];

describe.each(sets)("%s's screenshots in the docs", (_name, set, suite) => {
  it('were taken of the current build (the Chromium suite takes them again)', () => {
    const manifest = readManifest(set);
    expect(
      manifest.build,
      `${set.dir}/*.png are older than what they show: run \`npx vitest run ${suite}\` (it takes them again) and commit them`,
    ).toBe(buildHash(set));
    expect(manifest.shots.sort()).toEqual(Object.keys(set.shots).sort());
  });

  it('are the ones the page shows, and exist', () => {
    const md = readFileSync(join(process.cwd(), set.page), 'utf8');
    const folder = basename(set.dir);
    const shown = [...md.matchAll(new RegExp(`\\]\\(${folder}/([^)]+\\.png)\\)`, 'g'))].map((m) => m[1]!);
    expect(shown.sort()).toEqual(Object.keys(set.shots).sort());
    for (const f of shown) expect(existsSync(join(process.cwd(), set.dir, f)), f).toBe(true);
  });
});
