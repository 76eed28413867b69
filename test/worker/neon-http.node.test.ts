/**
 * The local Neon SQL-over-HTTP endpoint (scripts/neon-http.ts) against the REAL driver: `neon()`
 * of @neondatabase/serverless (neonConfig.fetchEndpoint pointed at it) and Drizzle's neon-http
 * through the app's own provider (neonHttpProvider), over a freshly migrated database on the real
 * Postgres: every column type the schema uses comes back as the driver parses it, the domain reads
 * the same values as over node-postgres, Postgres errors keep SQLSTATE and constraint (unique
 * violations reach pgError()), a failing statement rolls its whole batch back, the batch options
 * (isolation level, read only, deferrable) are honoured, and latencyMs costs about 2×N per query.
 * Also the delaying TCP front alone (scripts/latency-front.ts).
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { type NeonQueryFunction, neon, neonConfig } from '@neondatabase/serverless';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLatencyFront } from '../../scripts/latency-front.js';
import { type NeonHttp, startNeonHttp } from '../../scripts/neon-http.js';
import { createTeam } from '../../src/admin/admin.js';
import { createContest, getAdminContest } from '../../src/contests/contest-settings.js';
import {
  batch,
  type Db,
  isUniqueViolation,
  pgError,
  query,
  statementName,
  useStatementFunctions,
} from '../../src/db/client.js';
import { neonHttpProvider } from '../../src/db/drivers/neon.js';
import { openPg, type PgHandle } from '../../src/db/drivers/pg.js';
import { statementFunctionSql } from '../../src/db/statement-functions.js';
import { apiKeys, contests, teams } from '../../src/db/tables/core.js';
import { cryptoRandom } from '../../src/deps.js';

const base = process.env.TEST_DATABASE_URL || process.env.WORKERD_DATABASE_URL;
let reachable = false;
if (base) {
  try {
    const c = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
    await c.connect();
    await c.end();
    reachable = true;
  } catch (e) {
    console.warn(
      `\n*** No Postgres at ${new URL(base).host} (${(e as Error).message}): the neon-http endpoint tests are SKIPPED. ***\n`,
    );
  }
} else {
  console.warn('\n*** TEST_DATABASE_URL is not set: the neon-http endpoint tests (real Postgres) are SKIPPED. ***\n');
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

describe.skipIf(!reachable)('local Neon HTTP endpoint with the real driver', () => {
  const name = `ce_nh_${process.pid}_${Date.now().toString(36)}`;
  let admin: pg.Client;
  let databaseUrl: string;
  let endpoint: NeonHttp;
  let direct: PgHandle; // node-postgres on the same database, to check what the endpoint did
  let sqlq: NeonQueryFunction<false, false>;
  let teamId: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    databaseUrl = withDatabase(base!, name);
    direct = await openPg(databaseUrl, { max: 3 });
    endpoint = await startNeonHttp();
    neonConfig.fetchEndpoint = endpoint.endpoint;
    sqlq = neon(databaseUrl);
    teamId = (await createTeam(direct.db, 'Fixture team')).id;
  });

  afterAll(async () => {
    await endpoint?.close();
    await direct?.close();
    // pools resolve end() before their sockets are closed: let them go before the forced drop
    for (let i = 0; i < 50; i++) {
      const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await admin?.query(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });

  const teamCount = async (n: string) =>
    Number((await direct.pool.query('select count(*) from teams where name = $1', [n])).rows[0].count);

  // neon() first: Drizzle's neon-http (constructed further down) makes the driver's timestamp
  // parsers return strings, for every client of the process
  describe('neon()', () => {
    const when = new Date('2026-03-04T05:06:07.089Z');
    const bytes = Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x5c]);

    it('every column type comes back as the driver parses it, literals and parameters alike', async () => {
      const [row] = await sqlq`select 42::int4 as int4, 9007199254740993::int8 as int8, 12.5::numeric(14,4) as numeric,
        true as t, false as f, ${when}::timestamptz as ts, '{"a":[1,"x"],"b":null}'::jsonb as jsonb,
        ${'quote " back\\ slash, comma {brace} é 日本'}::text as text, array['a', 'b c', '"q"', null]::text[] as arr,
        ${['x,y', 'z']}::text[] as arr_param, '0b0e3c42-6c1e-4e7a-9d0f-6a8d3b1c2d3e'::uuid as uuid,
        ${bytes}::bytea as bytea, '\\x'::bytea as empty_bytea, null::text as nothing, ${null}::int as null_param,
        ${{ k: 'v', n: 2 }}::jsonb as jsonb_param, ${7}::int8 as int8_param`;
      expect(row).toEqual({
        int4: 42,
        int8: '9007199254740993',
        numeric: '12.5000',
        t: true,
        f: false,
        ts: when,
        jsonb: { a: [1, 'x'], b: null },
        text: 'quote " back\\ slash, comma {brace} é 日本',
        arr: ['a', 'b c', '"q"', null],
        arr_param: ['x,y', 'z'],
        uuid: '0b0e3c42-6c1e-4e7a-9d0f-6a8d3b1c2d3e',
        bytea: expect.anything(),
        empty_bytea: expect.anything(),
        nothing: null,
        null_param: null,
        jsonb_param: { k: 'v', n: 2 },
        int8_param: '7',
      });
      expect(Buffer.from(row!.bytea as Uint8Array).equals(bytes)).toBe(true);
      expect((row!.empty_bytea as Uint8Array).length).toBe(0);
    });

    it('answers fields with their type ids, the command and its row count; rows are the raw text Postgres prints', async () => {
      const full = await sqlq.query(
        `select 1::int4 as a, 2::int8 as b, 1.5::numeric as c, true as d, now() as e, '{}'::jsonb as f,
        'x'::text as g, '{x}'::text[] as h, gen_random_uuid() as i, '\\x01'::bytea as j`,
        [],
        { fullResults: true },
      );
      expect(full.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
        ['a', 23],
        ['b', 20],
        ['c', 1700],
        ['d', 16],
        ['e', 1184],
        ['f', 3802],
        ['g', 25],
        ['h', 1009],
        ['i', 2950],
        ['j', 17],
      ]);
      expect([full.command, full.rowCount]).toEqual(['SELECT', 1]);

      const ins = await sqlq.query('insert into teams (name) values ($1), ($1)', ['counted'], { fullResults: true });
      expect([ins.command, ins.rowCount, ins.rows]).toEqual(['INSERT', 2, []]);
      const upd = await sqlq.query(`update teams set name = 'counted2' where name = 'counted'`, [], {
        fullResults: true,
      });
      expect([upd.command, upd.rowCount]).toEqual(['UPDATE', 2]);

      // the wire itself, as the driver sends it
      const res = await fetch(endpoint.endpoint, {
        method: 'POST',
        headers: { 'Neon-Connection-String': databaseUrl, 'Neon-Raw-Text-Output': 'true', 'Neon-Array-Mode': 'true' },
        body: JSON.stringify({
          query: `select '\\xdeadbeef'::bytea, array['a', 'b c', null]::text[], true, $1::timestamptz at time zone 'UTC', null::int, '{"a": 1}'::jsonb`,
          params: ['2026-03-04T05:06:07.089Z'],
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        rows: unknown[][];
        rowAsArray: boolean;
        fields: { dataTypeID: number; format: string }[];
      };
      expect(body.rowAsArray).toBe(true);
      expect(body.rows).toEqual([['\\xdeadbeef', '{a,"b c",NULL}', 't', '2026-03-04 05:06:07.089', null, '{"a": 1}']]);
      expect(body.fields.every((f) => f.format === 'text')).toBe(true);
    });

    it("keeps its Postgres connections across requests, as Neon's proxy does, and resets each one it gets back: a session setting is gone, a function's cached plan is not", async () => {
      // one at a time, the pool hands the same connection to every request
      const first = await sqlq`select pg_backend_pid() as pid, set_config('work_mem', '7MB', false) as set`;
      const second = await sqlq`select pg_backend_pid() as pid, current_setting('work_mem') as work_mem`;
      expect(second[0]!.pid).toBe(first[0]!.pid);
      expect(second[0]!.work_mem).not.toBe('7MB');
      // a PL/pgSQL function's plan, made by one request, serves the next on that connection. The
      // plan folds an 'immutable' call that counts how often it is planned: the same number twice
      // means the second request ran the first one's plan, kept through the reset
      await direct.pool.query(`create sequence if not exists ce_plans_made;
        create or replace function ce_planned() returns bigint language sql immutable as $f$ select nextval('ce_plans_made') $f$;
        create or replace function ce_kept_plan() returns table (pid int, planned bigint) language plpgsql as $f$
          begin return query select pg_backend_pid(), ce_planned(); end $f$`);
      const a = await sqlq`select * from ce_kept_plan()`;
      const b = await sqlq`select * from ce_kept_plan()`;
      expect(b[0]!.pid).toBe(first[0]!.pid);
      expect(b[0]!.planned).toBe(a[0]!.planned);
      // and a plan made again gives a new number (the check itself can fail)
      await direct.pool.query(
        'create or replace function ce_planned() returns bigint language sql immutable as $f$ select nextval($q$ce_plans_made$q$) + 0 $f$',
      );
      const c = await sqlq`select * from ce_kept_plan()`;
      expect(c[0]!.planned).not.toBe(a[0]!.planned);
    });

    it('one statement per query, as on Neon (the extended protocol)', async () => {
      await expect(sqlq.query('select 1; select 2')).rejects.toMatchObject({ code: '42601' });
    });

    it('a unique violation reaches the caller with code 23505, the constraint and the detail', async () => {
      await sqlq`insert into api_keys (team_id, type, key_hash, prefix) values (${teamId}, 'public', 'dup-hash', 'pk_dup')`;
      const err =
        await sqlq`insert into api_keys (team_id, type, key_hash, prefix) values (${teamId}, 'public', 'dup-hash', 'pk_dup')`.catch(
          (e: unknown) => e,
        );
      expect(err).toMatchObject({
        name: 'NeonDbError',
        code: '23505',
        constraint: 'api_keys_key_hash_uq',
        table: 'api_keys',
        severity: 'ERROR',
        message: 'duplicate key value violates unique constraint "api_keys_key_hash_uq"',
      });
      expect((err as { detail: string }).detail).toContain('already exists');
      expect(pgError(err)).toEqual({
        code: '23505',
        constraint: 'api_keys_key_hash_uq',
        message: 'duplicate key value violates unique constraint "api_keys_key_hash_uq"',
      });
    });

    it('a failing statement in a batch rolls the whole batch back', async () => {
      const err = await sqlq
        .transaction([
          sqlq`insert into teams (name) values ('batch-a')`,
          sqlq`insert into teams (name) values ('batch-b')`,
          sqlq`insert into api_keys (team_id, type, key_hash, prefix) values (${teamId}, 'neither', 'h-batch', 'x')`,
        ])
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: '23514', constraint: 'api_keys_type_ck' });
      expect(await teamCount('batch-a')).toBe(0);
      expect(await teamCount('batch-b')).toBe(0);

      // the same batch without the bad statement commits, each statement with its own result
      const [a, b] = await sqlq.transaction([
        sqlq`insert into teams (name) values ('batch-a') returning name`,
        sqlq`select count(*)::int as n from teams where name = 'batch-a'`,
      ]);
      expect([a, b]).toEqual([[{ name: 'batch-a' }], [{ n: 1 }]]);
      expect(await teamCount('batch-a')).toBe(1);
    });

    it('honours the batch options: isolation level, read only, deferrable', async () => {
      const settings = sqlq`select current_setting('transaction_isolation') as iso, current_setting('transaction_read_only') as ro,
        current_setting('transaction_deferrable') as def`;
      expect((await sqlq.transaction([settings]))[0]).toEqual([{ iso: 'read committed', ro: 'off', def: 'off' }]);
      expect((await sqlq.transaction([settings], { isolationLevel: 'RepeatableRead' }))[0]).toEqual([
        { iso: 'repeatable read', ro: 'off', def: 'off' },
      ]);
      expect(
        (await sqlq.transaction([settings], { isolationLevel: 'Serializable', readOnly: true, deferrable: true }))[0],
      ).toEqual([{ iso: 'serializable', ro: 'on', def: 'on' }]);
      expect((await sqlq.transaction([settings], { readOnly: true }))[0]).toEqual([
        { iso: 'read committed', ro: 'on', def: 'off' },
      ]);

      // a write in a read-only batch fails (25006) and writes nothing
      await expect(
        sqlq.transaction([sqlq`insert into teams (name) values ('ro-write')`], { readOnly: true }),
      ).rejects.toMatchObject({
        code: '25006',
      });
      expect(await teamCount('ro-write')).toBe(0);
      // an isolation level Neon does not know is refused before anything runs
      await expect(sqlq.transaction([settings], { isolationLevel: 'Chaos' as 'Serializable' })).rejects.toThrow(
        /invalid isolation level/,
      );
    });

    it('RepeatableRead reads one snapshot for the whole batch; ReadCommitted sees a commit made between two statements', async () => {
      // the batch stops on an advisory lock between its two counts; meanwhile another connection
      // commits a row, then lets the batch go on
      const run = async (isolationLevel: 'RepeatableRead' | 'ReadCommitted', label: string) => {
        const holder = await direct.pool.connect();
        await holder.query('select pg_advisory_lock(4242)');
        const batch = sqlq.transaction(
          [
            sqlq`select count(*)::int as n from teams where name = ${label}`,
            sqlq`select pg_advisory_xact_lock(4242)`,
            sqlq`select count(*)::int as n from teams where name = ${label}`,
          ],
          { isolationLevel },
        );
        await expect
          .poll(async () =>
            Number(
              (await direct.pool.query(`select count(*) from pg_locks where locktype = 'advisory' and not granted`))
                .rows[0].count,
            ),
          )
          .toBe(1);
        await direct.pool.query('insert into teams (name) values ($1)', [label]);
        await holder.query('select pg_advisory_unlock(4242)');
        holder.release();
        const [first, , second] = await batch;
        return [first, second];
      };
      expect(await run('RepeatableRead', 'snap-rr')).toEqual([[{ n: 0 }], [{ n: 0 }]]);
      expect(await run('ReadCommitted', 'snap-rc')).toEqual([[{ n: 0 }], [{ n: 1 }]]);
    });

    it('connection problems: a missing database is a Postgres error (400, 3D000); a host other than loopback is refused', async () => {
      await expect(neon(withDatabase(databaseUrl, 'no_such_db_here'))`select 1`).rejects.toMatchObject({
        code: '3D000',
      });
      await expect(neon('postgres://postgres@10.1.2.3:5432/x')`select 1`).rejects.toThrow(
        /does not connect to 10\.1\.2\.3:5432/,
      );
    });
  });

  describe("Drizzle's neon-http through the app's provider", () => {
    let db: Db;
    beforeAll(() => {
      db = neonHttpProvider(databaseUrl, { fetchEndpoint: endpoint.endpoint }).acquire().db;
    });

    it('the domain writes and reads a contest over HTTP exactly as over node-postgres', async () => {
      const now = new Date();
      const created = await createContest(
        db,
        cryptoRandom,
        teamId,
        {
          title: 'Over HTTP',
          status: 'active',
          startDate: '2026-01-01T00:00:00.000Z',
          purchaseTracking: { enabled: true, pointsPerPurchase: 3, pointsPerCurrencyUnit: 1.25 },
          affiliate: { commissionPercent: 7.5 },
        },
        now,
      );
      expect(created).toEqual(await getAdminContest(direct.db, created.id, now));
      expect(created).toMatchObject({ title: 'Over HTTP', startDate: '2026-01-01T00:00:00.000Z', viewsCount: 0 });

      // typed selects: timestamps as Date, bigint (mode number) as number, numeric as string
      const [row] = await db.select().from(contests).where(eq(contests.id, created.id));
      expect(row!.createdAt).toBeInstanceOf(Date);
      expect(row!.startDate!.toISOString()).toBe('2026-01-01T00:00:00.000Z');
      expect(row!.viewsCount).toBe(0);
      expect(row!.pointsPerCurrencyUnit).toBe('1.2500');
      expect(row!.isEvergreen).toBe(false);

      // raw statements through query(): rows, with the values iso() and num() expect
      const rows = await query<{ start_date: unknown; views_count: unknown; n: unknown; j: unknown; tags: unknown }>(
        db,
        sql`select start_date, views_count, count(*) over () as n, jsonb_build_object('x', 1) as j, array['a','b'] as tags
            from contests where id = ${created.id}`,
      );
      expect(rows).toHaveLength(1);
      expect(new Date(rows[0]!.start_date as string).toISOString()).toBe('2026-01-01T00:00:00.000Z');
      expect([rows[0]!.views_count, rows[0]!.n, rows[0]!.j, rows[0]!.tags]).toEqual(['0', '1', { x: 1 }, ['a', 'b']]);
    });

    it('a unique violation through Drizzle keeps code and constraint reachable by pgError()', async () => {
      const values = { teamId, type: 'private', keyHash: 'drizzle-dup', prefix: 'sk_x' };
      await db.insert(apiKeys).values(values);
      const err = await db
        .insert(apiKeys)
        .values(values)
        .catch((e: unknown) => e);
      expect(pgError(err)).toEqual({
        code: '23505',
        constraint: 'api_keys_key_hash_uq',
        message: 'duplicate key value violates unique constraint "api_keys_key_hash_uq"',
      });
      expect(isUniqueViolation(err, 'api_keys_key_hash_uq')).toBe(true);
      const raw = await query(
        db,
        sql`insert into api_keys (team_id, type, key_hash, prefix) values (${teamId}, 'private', 'drizzle-dup', 'sk_x')`,
      ).catch((e: unknown) => e);
      expect(isUniqueViolation(raw, 'api_keys_key_hash_uq')).toBe(true);
    });

    it('db.batch() is one transaction: a failing statement rolls back the others', async () => {
      const http = db as unknown as { batch(q: unknown[]): Promise<unknown[]> };
      const err = await http
        .batch([
          db.insert(teams).values({ name: 'drizzle-batch' }),
          db.insert(apiKeys).values({ teamId, type: 'private', keyHash: 'drizzle-dup', prefix: 'sk_x' }),
        ])
        .catch((e: unknown) => e);
      expect(pgError(err)).toEqual({
        code: '23505',
        constraint: 'api_keys_key_hash_uq',
        message: 'duplicate key value violates unique constraint "api_keys_key_hash_uq"',
      });
      expect(await teamCount('drizzle-batch')).toBe(0);
    });

    it("a registered statement goes through its function; without the function, as itself; another 42883 is the statement's own error", async () => {
      const fn = neonHttpProvider(databaseUrl, { fetchEndpoint: endpoint.endpoint }).acquire().db;
      const statement = sql`select ${20}::int + 1 as n, ${'x'}::text as s`;
      const built = (fn as unknown as { dialect: { sqlToQuery(q: unknown): { sql: string } } }).dialect.sqlToQuery(
        statement,
      );
      const name = statementName(built.sql);
      const missing = sql`select ce_no_such_function(${1}::int) as x`;
      const missingName = statementName(
        (fn as unknown as { dialect: { sqlToQuery(q: unknown): { sql: string } } }).dialect.sqlToQuery(missing).sql,
      );
      useStatementFunctions(fn, new Set([name, missingName]));
      // no function yet: 42883 for it, then the statement itself (two requests)
      let before = endpoint.requests();
      expect(await query(fn, statement)).toEqual([{ n: 21, s: 'x' }]);
      expect(endpoint.requests() - before).toBe(2);
      // with its function: one request, the same answer, through the function (Postgres counts the call)
      await direct.pool.query(
        `create function ${name}(ce_a1 int4, ce_a2 text) returns table (n int4, s text) language plpgsql as $f$
         #variable_conflict use_column
         begin return query select ce_a1 + 1, ce_a2; end $f$`,
      );
      before = endpoint.requests();
      expect(await query(fn, statement)).toEqual([{ n: 21, s: 'x' }]);
      expect(endpoint.requests() - before).toBe(1);
      // a 42883 from inside a function (about another function) is thrown as it is, not retried
      await direct.pool.query(
        `create function ${missingName}(ce_a1 int4) returns table (x int4) language plpgsql as $f$
         begin return query select ce_no_such_function(ce_a1); end $f$`,
      );
      before = endpoint.requests();
      const err = await query(fn, missing).catch((e: unknown) => e);
      expect(pgError(err)?.code).toBe('42883');
      expect(pgError(err)?.message).toMatch(/^function ce_no_such_function\(integer\) does not exist/);
      expect(endpoint.requests() - before).toBe(1);
    });

    it('a batch sends its registered statements through their functions, in one request; without them, the batch again as itself', async () => {
      const fn = neonHttpProvider(databaseUrl, { fetchEndpoint: endpoint.endpoint }).acquire().db;
      const dialect = (fn as unknown as { dialect: { sqlToQuery(q: unknown): { sql: string } } }).dialect;
      // one statement that answers a column, one that answers none (an UPDATE without RETURNING)
      const statements = (tag: string) => [
        sql`insert into teams (name) values (${tag}) returning name`,
        sql`update teams set name = ${`${tag}-renamed`} where name = ${tag}`,
      ];
      const texts = statements('x').map((s) => dialect.sqlToQuery(s).sql);
      const names = texts.map(statementName);
      useStatementFunctions(fn, new Set(names));
      // no functions yet: 42883 rolls the batch back whole, then it runs as itself (two requests)
      let before = endpoint.requests();
      expect(await batch(fn, statements('batch-fn-1'))).toEqual([[{ name: 'batch-fn-1' }], []]);
      expect(endpoint.requests() - before).toBe(2);
      expect([await teamCount('batch-fn-1'), await teamCount('batch-fn-1-renamed')]).toEqual([0, 1]);
      // with the functions the generator makes: one request, the same answers
      const described = [
        { params: ['text'], columns: [{ name: 'name', type: 'text' }] },
        { params: ['text', 'text'], columns: [] },
      ];
      for (const [i, d] of described.entries())
        await direct.pool.query(statementFunctionSql({ text: texts[i]!, name: names[i]!, ...d })!);
      before = endpoint.requests();
      expect(await batch(fn, statements('batch-fn-2'))).toEqual([[{ name: 'batch-fn-2' }], []]);
      expect(endpoint.requests() - before).toBe(1);
      expect([await teamCount('batch-fn-2'), await teamCount('batch-fn-2-renamed')]).toEqual([0, 1]);
      // a failing statement still rolls the batch back: the insert's team is not kept
      const err = await batch(fn, [
        ...statements('batch-fn-3'),
        sql`insert into api_keys (team_id, type, key_hash, prefix) values (${teamId}, 'private', 'drizzle-dup', 'sk_x')`,
      ]).catch((e: unknown) => e);
      expect(pgError(err)?.code).toBe('23505');
      expect(await teamCount('batch-fn-3-renamed')).toBe(0);
    });

    it('interactive transactions are not available over HTTP (the driver throws)', async () => {
      await expect(db.transaction(async () => {})).rejects.toThrow('No transactions support in neon-http driver');
    });
  });

  it('latencyMs holds each direction: one query costs about 2×N more', async () => {
    const slow = await startNeonHttp({ latencyMs: 100 });
    const fast = neonConfig.fetchEndpoint;
    neonConfig.fetchEndpoint = slow.endpoint;
    try {
      await sqlq`select 1`; // the connection to the endpoint and the pool's first Postgres connection
      const t0 = performance.now();
      await sqlq`select 1`;
      const ms = performance.now() - t0;
      // held both ways (a busy machine adds to it, never takes from it: no upper bound)
      expect(ms).toBeGreaterThanOrEqual(195);
    } finally {
      neonConfig.fetchEndpoint = fast;
      await slow.close();
    }
  });
});

describe('the delaying TCP front (scripts/latency-front.ts)', () => {
  let echo: Server;
  beforeAll(async () => {
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => echo.close(() => r())));

  it('delays every chunk N ms each way and keeps the order', async () => {
    const front = await startLatencyFront({
      target: { host: '127.0.0.1', port: (echo.address() as AddressInfo).port },
      latencyMs: 60,
    });
    const { createConnection } = await import('node:net');
    const sock = createConnection({ host: '127.0.0.1', port: front.port });
    await new Promise((r) => sock.once('connect', r));
    let got = '';
    const expected = Array.from({ length: 40 }, (_, i) => `<${i}>`).join('');
    const t0 = performance.now();
    const done = new Promise<number>((resolve) =>
      sock.on('data', (d) => {
        got += d.toString();
        if (got.length >= expected.length) resolve(performance.now() - t0);
      }),
    );
    for (let i = 0; i < 40; i++) {
      sock.write(`<${i}>`);
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 5));
    }
    const ms = await done;
    expect(got).toBe(expected);
    expect(ms).toBeGreaterThanOrEqual(118);
    sock.destroy();
    await front.close();
  });
});
