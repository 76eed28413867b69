/**
 * The console's screenshots in docs/console.md: which page each one shows, and which build of the
 * console they were taken of. The Chromium console test (test/browser/console.test.ts) takes them
 * again whenever the console's build has changed since; test/docs-screenshots.test.ts fails while
 * they are older than the build.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
export const DOCS_SHOTS_DIR = join(root, 'docs/console');
export const DOCS_SHOTS_MANIFEST = join(DOCS_SHOTS_DIR, 'screenshots.json');

/** docs/console/<file> ← test/artifacts/console/node-<artifact>.png */
export const DOCS_SHOTS: Record<string, string> = {
  'sign-in-390.png': 'sign-in-390',
  'team-keys-390.png': 'team-keys-390',
  'overview-1280.png': 'contest-1280',
  'review-1280.png': 'realistic-review-top-1280',
  'entry-390.png': 'entry-390',
  'deliveries.png': 'deliveries-1280',
};

/** SHA-256 of the console as it is served (its committed build: script and style sheet). */
export function consoleBuildHash(): string {
  const h = createHash('sha256');
  for (const f of ['public/console/app.js', 'public/console/app.css']) h.update(readFileSync(join(root, f)));
  return h.digest('hex');
}

export interface ShotsManifest {
  /** consoleBuildHash() of the build the screenshots show */
  consoleBuild: string;
  shots: string[];
}
