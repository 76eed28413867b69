/**
 * One source of settings (src/environment.ts): every bad value stops `npm start` (Node) and
 * `npm run dev` (the Worker, before wrangler starts) with one sentence naming the variable and
 * what it accepts; the Worker reads the same declarations; `npm run dev` hands the Worker every
 * setting the Worker reads.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, SETTINGS, type SettingsError, WORKER_SETTINGS } from '../src/environment.js';

const root = process.cwd();

/** `node --import tsx <script>` (one process, as `npm start` and `npm run dev` run) with these settings */
function run(script: string, extra: Record<string, string>) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !SETTINGS.some((s) => s.name === k)) env[k] = v;
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...env, PGLITE_DIR: 'memory://', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ status: number | null; stderr: string; stdout: string }>((resolve) =>
    child.once('close', (status) => resolve({ status, stderr: stderr.trim(), stdout: stdout.trim() })),
  );
}

/** runs `jobs` two at a time (the machine has two cores), in order of the answers */
async function twoAtATime<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

// The time these tests get is measured, not guessed: one refused start, timed here, as the
// machine is now (a busy 2-core machine takes several times as long as an idle one); each test
// gets 3 times what its starts take at that pace, and never less than 30 s.
const measured = Date.now();
await run('src/node.ts', { PORT: 'abc' });
const perStart = Date.now() - measured;
const timeFor = (starts: number) => Math.max(30_000, 3 * perStart * Math.ceil(starts / 2) + 10_000);

const BAD: Array<[string, string, string]> = [
  ['TRUST_PROXY', '-1', 'TRUST_PROXY="-1" is not valid: TRUST_PROXY takes a whole number from 0 to 10, or true.'],
  [
    'JOBS_INTERVAL_MS',
    'soon',
    'JOBS_INTERVAL_MS="soon" is not valid: JOBS_INTERVAL_MS takes a whole number of milliseconds from 100 to 86400000.',
  ],
  ['PORT', 'abc', 'PORT="abc" is not valid: PORT takes a port number from 0 to 65535.'],
  [
    'PUBLIC_RATE_LIMIT',
    '0',
    'PUBLIC_RATE_LIMIT="0" is not valid: PUBLIC_RATE_LIMIT takes a whole number from 1 to 1000000.',
  ],
  ['ALLOW_HTTP_WEBHOOKS', 'yes', 'ALLOW_HTTP_WEBHOOKS="yes" is not valid: ALLOW_HTTP_WEBHOOKS takes 0 or 1.'],
  [
    'DATABASE_POOL_MAX',
    'many',
    'DATABASE_POOL_MAX="many" is not valid: DATABASE_POOL_MAX takes a whole number from 1 to 1000.',
  ],
  [
    'PUBLIC_URL',
    'contests.example.com',
    'PUBLIC_URL="contests.example.com" is not valid: PUBLIC_URL takes an http:// or https:// URL.',
  ],
  ['MAIL_TRANSPORT', 'pigeon', 'MAIL_TRANSPORT="pigeon" is not valid: MAIL_TRANSPORT takes log, smtp or resend.'],
  [
    'ADMIN_TOKEN',
    'change-me',
    'ADMIN_TOKEN (a secret: its value is not shown) is not valid: ADMIN_TOKEN takes a token of at least 16 characters (for example what `openssl rand -hex 24` prints).',
  ],
];

describe('settings', () => {
  it('parses good values and refuses bad ones with one sentence each', () => {
    expect(
      readSettings(
        {
          PORT: '8790',
          TRUST_PROXY: 'true',
          ALLOW_HTTP_WEBHOOKS: '1',
          MAIL_TRANSPORT: ' Resend ',
          PUBLIC_RATE_LIMIT: '50',
        },
        'node',
      ),
    ).toEqual({
      PORT: 8790,
      TRUST_PROXY: 1,
      ALLOW_HTTP_WEBHOOKS: true,
      MAIL_TRANSPORT: 'resend',
      PUBLIC_RATE_LIMIT: 50,
    });
    // what a runtime does not read is not its business
    expect(readSettings({ DB_TRANSPORT: 'pigeon' }, 'node')).toEqual({});
    expect(() => readSettings({ DB_TRANSPORT: 'pigeon' }, 'worker')).toThrow(
      'DB_TRANSPORT="pigeon" is not valid: DB_TRANSPORT takes http or ws.',
    );
    try {
      readSettings({ PORT: 'abc', TRUST_PROXY: '-1' }, 'node');
      expect.unreachable();
    } catch (e) {
      expect((e as SettingsError).problems).toEqual([BAD[2]![2], BAD[0]![2]]);
    }
    for (const [name, value, sentence] of BAD) {
      const runtime = SETTINGS.find((s) => s.name === name)!.runtimes[0]!;
      expect(() => readSettings({ [name]: value }, runtime), name).toThrow(sentence);
    }
  });

  const forNode = BAD.filter(([n]) => SETTINGS.find((s) => s.name === n)!.runtimes.includes('node' as never));
  it('npm start refuses each bad value by name and exits 1 before opening anything', {
    timeout: timeFor(forNode.length),
  }, async () => {
    const runs = await twoAtATime(
      forNode.map(
        ([name, value]) =>
          () =>
            run('src/node.ts', { [name]: value }),
      ),
    );
    expect(runs.map((r, i) => [forNode[i]![0], r.status, r.stderr])).toEqual(
      forNode.map(([name, , sentence]) => [name, 1, sentence]),
    );
  });

  const forDev = [
    ['PUBLIC_RATE_LIMIT', 'lots'],
    ['ALLOW_HTTP_WEBHOOKS', 'yes'],
    ['JOBS_INTERVAL_MS', 'soon'],
    ['DB_TRANSPORT', 'pigeon'],
  ] as const;
  it('npm run dev refuses a bad Worker or dev setting by name before wrangler starts', {
    timeout: timeFor(forDev.length),
  }, async () => {
    const runs = await twoAtATime(
      forDev.map(
        ([name, value]) =>
          () =>
            run('scripts/dev.ts', { [name]: value, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }),
      ),
    );
    for (const [i, r] of runs.entries()) {
      const [name, value] = forDev[i]!;
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^${name}="${value}" is not valid: ${name} takes `));
      expect(r.stdout).not.toMatch(/wrangler|listening/i);
    }
  });

  it('npm run dev hands the Worker every setting the Worker reads, by construction', () => {
    const dev = readFileSync(join(root, 'scripts/dev.ts'), 'utf8');
    expect(dev).toContain('...Object.fromEntries(WORKER_SETTINGS.map((name) => [name, env[name]]))');
    expect(WORKER_SETTINGS).toEqual(
      expect.arrayContaining([
        'ALLOW_HTTP_WEBHOOKS',
        'PUBLIC_RATE_LIMIT',
        'ADMIN_TOKEN',
        'IP_HASH_SALT',
        'DB_TRANSPORT',
        'MAIL_TRANSPORT',
      ]),
    );
    // and the Worker's own env type names each of them
    const worker = readFileSync(join(root, 'src/worker.ts'), 'utf8');
    for (const name of WORKER_SETTINGS) expect(worker, name).toMatch(new RegExp(`\\b${name}\\??:`));
  });
});
