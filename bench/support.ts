/** What the benches that run on a database of their own share: the database, the app as a child process, the flags. */
import { type ChildProcess, spawn } from 'node:child_process';
import pg from 'pg';

/** A new, empty database `name` on `baseUrl`'s server (dropped first if it exists); drop() removes it. */
export async function freshDatabase(baseUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    /** a connection to the server's maintenance database (not the new one) */
    admin,
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

/** The bench server (bench/server.ts) on `port` over `databaseUrl`, once it says it is ready. */
export async function startBenchServer(databaseUrl: string, port: number) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), DATABASE_POOL_MAX: '4' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('bench server ready')) resolve();
    });
    child.on('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
  await (await fetch(`http://127.0.0.1:${port}/health`)).text();
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `--name value` of the command line */
export function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}
