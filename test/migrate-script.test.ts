/**
 * `npm run db:migrate` says what happened in one line: the cause of a failure (nothing listening,
 * no such database), how many migrations it applied, or that there was nothing to apply.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const base = process.env.TEST_DATABASE_URL;
const migrate = (url: string) => {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), ['scripts/migrate.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
};
const withDb = (name: string) => {
  const u = new URL(base!);
  u.pathname = `/${name}`;
  return u.toString();
};

describe('npm run db:migrate', () => {
  it('names the cause when nothing answers', () => {
    expect(migrate('postgres://postgres@127.0.0.1:1/x')).toEqual({
      status: 1,
      out: 'Migration of 127.0.0.1:1/x failed: nothing answers at 127.0.0.1:1 (connection refused): is Postgres running there?',
    });
  });

  it.skipIf(!base)('applies, then says there is nothing to apply; a missing database is named', async () => {
    const name = `ce_mig_${process.pid}_${Date.now().toString(36)}`;
    expect(migrate(withDb(name))).toMatchObject({
      status: 1,
      out: expect.stringContaining(`database "${name}" does not exist: create it first`),
    });
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    try {
      const first = migrate(withDb(name));
      expect(first.status).toBe(0);
      expect(first.out).toMatch(/^Applied \d+ migrations to .*: \d+ in all \(\d+ ms\)$/);
      const second = migrate(withDb(name));
      expect(second.status).toBe(0);
      expect(second.out).toMatch(/^Nothing to apply: .* has all \d+ migrations \(\d+ ms\)$/);
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
