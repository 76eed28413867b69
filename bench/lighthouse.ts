/**
 * Lighthouse 12 (mobile) on the hosted page of a contest with rewards, a question of its own, a
 * countdown and a leaderboard, against `npm start` on this machine (embedded PGlite, a fresh
 * database), or with `--dev` against `npm run dev` (the Worker in workerd, the Neon driver over
 * HTTP to a fresh database of the local Postgres, DATABASE_URL's server or 127.0.0.1:5432), with
 * the system's Chromium. Prints the four scores and writes them to docs/signups/lighthouse.json
 * (`--dev`: lighthouse-dev.json).
 *
 *   npm run lighthouse            # fetches lighthouse@12.2.3 with npx on first use
 *   npm run lighthouse -- --dev
 *
 * Traffic stays on this machine: the page loads nothing from another host until a click (no logo
 * or image URL is set: they would be another host's, which this machine cannot reach).
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { startDev } from './edge.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(
  (p): p is string => !!p && existsSync(p),
);
const LIGHTHOUSE = 'lighthouse@12.2.3';

export async function startNode(databaseUrl = ''): Promise<{
  base: string;
  child: ChildProcess;
  privateKey: string;
  contestId: string;
}> {
  // npm start on a fresh embedded PGlite (no DATABASE_URL), or npm run dev on a fresh database:
  // either seeds a demo team and prints its keys
  const dev = databaseUrl !== '';
  const { base, child, output } = await startDev(
    databaseUrl,
    'http',
    0,
    dev ? { LOG_LEVEL: 'error' } : { PGLITE_DIR: 'memory://', LOG_LEVEL: 'error' },
    !dev,
  );
  // npm run dev prints the keys just after it answers /health
  for (let i = 0; i < 300 && !/demo contest:\s+[0-9a-f-]{36}/.test(output()); i++)
    await new Promise((r) => setTimeout(r, 100));
  const out = output();
  const privateKey = /private key:\s+(sk_\w+)/.exec(out)?.[1];
  const contestId = /demo contest:\s+([0-9a-f-]{36})/.exec(out)?.[1];
  if (!privateKey || !contestId) throw new Error(`no seeded keys in the output: ${out.slice(-2000)}`);
  return { base, child, privateKey, contestId };
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: unknown; error?: string };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.error}`);
  return json.data;
}

/** The contest as a marketer would show it: description, rewards, an end date, a leaderboard, entrants. */
export async function dressUp(base: string, key: string, contestId: string) {
  const ends = new Date(Date.now() + 9 * 86_400_000).toISOString();
  await call(base, key, 'PATCH', `/api/v1/contests/${contestId}`, {
    title: 'Spring giveaway',
    description: 'Win a year of coffee. Invite friends to climb the leaderboard and unlock rewards on the way.',
    endDate: ends,
    publicSignup: true,
    requireEmailConfirmation: false,
    pageLeaderboard: 10,
    consentText: 'I agree to receive emails about this giveaway.',
    theme: { accent: '#0b5fff', radius: 12, font: 'system' },
    signupFields: [{ key: 'city', label: 'Your city', type: 'text' }],
  });
  for (const [name, description, referralsRequired] of [
    ['Free coffee', 'One coffee of your choice at any of our shops.', 1],
    ['Tote bag', 'Our organic cotton tote.', 3],
    ['A year of coffee', 'One bag a month for a year.', 10],
  ] as const) {
    await call(base, key, 'POST', `/api/v1/contests/${contestId}/rewards`, { name, description, referralsRequired });
  }
  for (let i = 0; i < 12; i++) {
    await call(base, key, 'POST', `/api/v1/contests/${contestId}/entries`, {
      email: `fan${i}@example.com`,
      name: `Fan ${i}`,
    });
  }
}

interface Scores {
  performance: number;
  accessibility: number;
  'best-practices': number;
  seo: number;
}

function lighthouse(url: string): Scores {
  const dir = mkdtempSync(join(tmpdir(), 'ce-lighthouse-'));
  const report = join(dir, 'report.json');
  execFileSync(
    'npm',
    [
      'exec',
      '--yes',
      `--package=${LIGHTHOUSE}`,
      '--',
      'lighthouse',
      url,
      '--quiet',
      '--form-factor=mobile',
      '--only-categories=performance,accessibility,best-practices,seo',
      '--output=json',
      `--output-path=${report}`,
      '--chrome-flags=--headless --no-sandbox --disable-gpu',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CHROME_PATH: CHROMIUM } },
  );
  const r = JSON.parse(readFileSync(report, 'utf8')) as {
    categories: Record<keyof Scores, { score: number }>;
    audits: Record<string, { score: number | null; title: string; scoreDisplayMode: string }>;
  };
  const failing = Object.entries(r.audits)
    .filter(([, a]) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative')
    .map(([id, a]) => `${id} (${a.score}): ${a.title}`);
  if (failing.length) console.log(`audits under 0.9:\n  ${failing.join('\n  ')}`);
  const pick = (k: keyof Scores) => Math.round(r.categories[k].score * 100);
  return {
    performance: pick('performance'),
    accessibility: pick('accessibility'),
    'best-practices': pick('best-practices'),
    seo: pick('seo'),
  };
}

/** A fresh database on the local Postgres for `npm run dev`, dropped afterwards. */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ce_lighthouse_${process.pid}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function main() {
  if (!CHROMIUM) throw new Error('No Chromium: apt-get install -y chromium (or set CHROMIUM_PATH)');
  const dev = process.argv.includes('--dev');
  const database = dev ? await freshDatabase() : null;
  let server: Awaited<ReturnType<typeof startNode>>;
  try {
    server = await startNode(database?.url ?? '');
  } catch (e) {
    await database?.drop();
    throw e;
  }
  try {
    await dressUp(server.base, server.privateKey, server.contestId);
    const url = `${server.base}/c/${server.contestId}`;
    const runs = [lighthouse(url), lighthouse(url), lighthouse(url)];
    // the median of three runs, per category
    const median = (k: keyof Scores) => runs.map((r) => r[k]).sort((a, b) => a - b)[1]!;
    const scores: Scores = {
      performance: median('performance'),
      accessibility: median('accessibility'),
      'best-practices': median('best-practices'),
      seo: median('seo'),
    };
    console.log(`runs: ${JSON.stringify(runs)}`);
    console.log(`median: ${JSON.stringify(scores)}`);
    const runtime = dev ? 'npm run dev (the Worker in workerd, Neon driver over HTTP)' : 'npm start (Node, PGlite)';
    writeFileSync(
      dev ? 'docs/signups/lighthouse-dev.json' : 'docs/signups/lighthouse.json',
      `${JSON.stringify({ lighthouse: LIGHTHOUSE, runtime, formFactor: 'mobile', runs, median: scores }, null, 2)}\n`,
    );
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await database?.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
