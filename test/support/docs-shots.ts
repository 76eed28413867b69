/**
 * The screenshots in the docs, each set taken by a Chromium suite of what it shows: the console's
 * (docs/console.md, by test/browser/console-node.test.ts) and the sign-up widget's views
 * (docs/signups.md, by test/browser/widget-contest.test.ts) and the hosted page's states (docs/signups.md,
 * by test/browser/hosted-page.test.ts). A set's manifest names the build it
 * was taken of; the suite takes the set again whenever that build has changed since, and
 * test/docs-screenshots.test.ts fails while a set is older than its build.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();

export interface ShotSet {
  /** the docs page that shows them, and the folder beside it that holds them */
  page: string;
  dir: string;
  /** the files whose bytes are the build the screenshots show */
  build: string[];
  /** docs/<dir>/<file> ← test/artifacts/<artifact>.png */
  shots: Record<string, string>;
}

export const CONSOLE_SHOTS: ShotSet = {
  page: 'docs/console.md',
  dir: 'docs/console',
  build: ['public/console/app.js', 'public/console/app.css'],
  shots: {
    'sign-in-390.png': 'console/node-sign-in-390',
    'team-keys-390.png': 'console/node-team-keys-390',
    'overview-1280.png': 'console/node-contest-1280',
    'review-1280.png': 'console/node-realistic-review-top-1280',
    'entry-390.png': 'console/node-entry-390',
    'deliveries.png': 'console/node-deliveries-1280',
  },
};

export const WIDGET_SHOTS: ShotSet = {
  page: 'docs/signups.md',
  dir: 'docs/signups',
  build: ['src/signups/widget/bundle.generated.ts'],
  shots: {
    'form-320.png': 'widget-node-form-320',
    'unconfirmed-320.png': 'widget-node-unconfirmed-320',
    'status-1280.png': 'widget-node-status-actions-1280',
    'ladder-320.png': 'widget-node-ladder-320',
  },
};

/** The hosted page in a dark theme with the contest's own fields, in each state (test/browser/hosted-page.test.ts). */
export const HOSTED_SHOTS: ShotSet = {
  page: 'docs/signups.md',
  dir: 'docs/hosted',
  build: ['src/signups/widget/bundle.generated.ts', 'src/signups/page.ts'],
  shots: {
    'form-390.png': 'hosted-dark-form-390',
    'unconfirmed-390.png': 'hosted-dark-unconfirmed-390',
    'status-390.png': 'hosted-dark-status-390',
    'unlocked-1280.png': 'hosted-dark-unlocked-1280',
    'ended-390.png': 'hosted-dark-ended-390',
  },
};

export interface ShotsManifest {
  /** buildHash() of the build the screenshots show */
  build: string;
  shots: string[];
}

/** SHA-256 of a set's build as it is served (its committed files). */
export function buildHash(set: ShotSet): string {
  const h = createHash('sha256');
  for (const f of set.build) h.update(readFileSync(join(root, f)));
  return h.digest('hex');
}

export const manifestPath = (set: ShotSet) => join(root, set.dir, 'screenshots.json');

export function readManifest(set: ShotSet): ShotsManifest {
  return JSON.parse(readFileSync(manifestPath(set), 'utf8')) as ShotsManifest;
}

/**
 * Takes a set again from this run's artifacts when its build changed since it was taken; says so
 * (the new files are to be committed).
 */
export function refreshShots(set: ShotSet, artifacts: string) {
  const build = buildHash(set);
  let current: ShotsManifest | undefined;
  try {
    current = readManifest(set);
  } catch {
    current = undefined;
  }
  if (current?.build === build) return;
  mkdirSync(join(root, set.dir), { recursive: true });
  for (const [file, artifact] of Object.entries(set.shots))
    copyFileSync(join(artifacts, `${artifact}.png`), join(root, set.dir, file));
  const manifest: ShotsManifest = { build, shots: Object.keys(set.shots) };
  writeFileSync(manifestPath(set), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${set.dir}: screenshots taken again (the build changed since): commit them`);
}
