import { AsyncLocalStorage } from 'node:async_hooks';
import { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/** One type for the three drivers (PGlite, node-postgres, Neon serverless). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * Databases whose statements run as NAMED prepared statements: node-postgres keeps them per
 * connection, so Postgres parses and plans each distinct statement once per connection instead of
 * on every request (measured: 2.5x the throughput of the leaderboard query). Not used for Neon,
 * whose per-request connections would gain nothing, nor PGlite.
 */
const namedStatementDbs = new WeakSet<object>();
export const useNamedStatements = (db: Db) => {
  namedStatementDbs.add(db);
};

interface DrizzleInternals {
  dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } };
  session: {
    prepareQuery(
      q: { sql: string; params: unknown[] },
      fields: undefined,
      name: string,
      arrayMode: boolean,
    ): { execute(): Promise<unknown> };
  };
}

/**
 * The prepared statement's name of a text, remembered: a request's statement is often 10 KB of
 * SQL, and hashing it in JavaScript on every request cost more than looking it up (the engine
 * hashes a string key natively). Bounded: a process that met more distinct texts starts over.
 */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= 2000) statementNames.clear();
    name = fnvName(text);
    statementNames.set(text, name);
  }
  return name;
}

/** 64-bit FNV-1a of the statement text: the prepared statement's name (a name maps to one text). */
function fnvName(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return `ce_${h1.toString(16)}${h2.toString(16)}`;
}

/**
 * Database time of the request being handled: round trips (a statement, or a batch) and
 * milliseconds, for the `Server-Timing` header (app.ts). AsyncLocalStorage: Node, and Workers
 * with nodejs_compat.
 */
export const dbTiming = new AsyncLocalStorage<{ trips: number; ms: number }>();

/**
 * Set while a request is handled (app.ts): `recorded` turns true when a statement of the request
 * answered a row whose column `ce_event_deliveries` (see sqlEventDeliveries in
 * sql/events.ts) counts at least one outbound event delivery it wrote; the app then starts
 * a delivery pass after the answer. A write that recorded none (a team without endpoints) costs
 * no second statement.
 */
export const deliveryScope = new AsyncLocalStorage<{ recorded: boolean; mail?: boolean }>();
export const EVENT_DELIVERIES_COLUMN = 'ce_event_deliveries';
/**
 * A column a write statement answers true when it may have unlocked rewards (its contest has
 * some): the reward triggers may then have queued emails and events that the statement cannot
 * see, and the app starts a delivery pass for both after the answer (sqlRewardsMay in sql/outbox.ts).
 */
export const REWARDS_MAY_COLUMN = 'ce_rewards_may';

function noteDeliveries(rows: readonly Record<string, unknown>[]) {
  const store = deliveryScope.getStore();
  if (!store) return;
  if (!store.recorded && rows.some((r) => Number(r[EVENT_DELIVERIES_COLUMN] ?? 0) > 0)) store.recorded = true;
  if (!store.mail && rows.some((r) => r[REWARDS_MAY_COLUMN] === true)) {
    store.mail = true;
    store.recorded = true;
  }
}

/** A statement's own code marks the request (the webhook.test event, written outside the column). */
export function markDeliveriesRecorded() {
  const store = deliveryScope.getStore();
  if (store) store.recorded = true;
}

/**
 * Set while a request with an API key is handled (src/http/auth.ts): `ran` turns true when a
 * statement that carries the key check (`cte`, src/db/team.ts) is sent, so that a request whose
 * statements never carried it gets one that checks the key alone. It is recorded when a
 * statement runs, never while one is built: building SQL changes no request state.
 */
export const keyCheckScope = new AsyncLocalStorage<{ cte: SQL; ran: boolean }>();

function noteKeyCheck(statement: SQL) {
  const store = keyCheckScope.getStore();
  if (store && !store.ran && carries(statement, store.cte)) store.ran = true;
}

/** Whether `target` is one of the SQL objects `node` is made of (the key check sits near the start). */
function carries(node: unknown, target: SQL): boolean {
  if (node === target) return true;
  if (!(node instanceof SQL)) return false;
  for (const chunk of node.queryChunks) if (carries(chunk, target)) return true;
  return false;
}

async function timed<T>(work: () => Promise<T>): Promise<T> {
  const store = dbTiming.getStore();
  if (!store) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    store.trips += 1;
    store.ms += performance.now() - started;
  }
}

/**
 * Databases that plan each statement every time (Neon over HTTP) and call a statement's function
 * instead when the database has one (src/db/statement-functions.ts): `names` holds the functions'
 * names, which are the statements' names (statementName). The function runs the same SQL with the
 * same parameters and answers the same columns, and Postgres keeps its plans per connection.
 */
const functionDbs = new WeakMap<object, ReadonlySet<string>>();
export const useStatementFunctions = (db: Db, names: ReadonlySet<string>) => {
  functionDbs.set(db, names);
};

/**
 * Records the text of every statement run while it is set (test/statement-functions.test.ts:
 * which statements the hot endpoints send).
 */
let recorder: ((text: string) => void) | null = null;
export const recordStatements = (fn: ((text: string) => void) | null) => {
  recorder = fn;
};

/** The prepared statement's (and statement function's) name of a statement text. */
export { statementName };

type Built = { sql: string; params: unknown[] };

/**
 * The call of a built statement's function when `db` calls functions and has this one
 * (`select * from <name>($1, …)`, the same parameters, and the function's name), else null.
 */
export function functionCall(db: Db, built: Built): (Built & { fn: string }) | null {
  const fn = statementName(built.sql);
  if (!functionDbs.get(db)?.has(fn)) return null;
  return {
    sql: `select * from ${fn}(${built.params.map((_, i) => `$${i + 1}`).join(', ')})`,
    params: built.params,
    fn,
  };
}

/**
 * Whether `e` is Postgres saying that one of the functions `fns` does not exist (42883): a
 * database whose migrations have not made this version's functions yet (a Worker deployed before
 * `npm run db:migrate`). A 42883 from inside a function, about another one, is not.
 */
export function missingFunction(e: unknown, fns: string[]): boolean {
  const err = pgError(e);
  if (err?.code !== '42883') return false;
  return fns.some((fn) => err.message?.startsWith(`function ${fn}(`));
}

/** Runs raw SQL and returns its rows, whatever the driver. */
export function query<T = Record<string, unknown>>(db: Db, statement: SQL): Promise<T[]> {
  return timed(() => runQuery<T>(db, statement));
}

async function runQuery<T>(db: Db, statement: SQL): Promise<T[]> {
  noteKeyCheck(statement);
  type Result = { rows?: T[] } | T[];
  let result: Result;
  const functions = functionDbs.has(db);
  const named = namedStatementDbs.has(db);
  if (!functions && !named && !recorder) {
    result = (await db.execute(statement)) as unknown as Result;
  } else {
    // the statement's text and parameters, built once for whichever way it is sent
    const internals = db as unknown as DrizzleInternals;
    const built = internals.dialect.sqlToQuery(statement);
    recorder?.(built.sql);
    const run = (q: Built, as = '') =>
      internals.session.prepareQuery(q, undefined, as, false).execute() as Promise<Result>;
    const call = functions ? functionCall(db, built) : null;
    if (call) {
      try {
        result = await run(call);
      } catch (e) {
        // no function of this version yet: the statement itself, one more round trip
        if (!missingFunction(e, [call.fn])) throw e;
        result = await run(built);
      }
    } else {
      // on Node, a named prepared statement (what db.execute() does, with a name)
      result = await run(built, named ? statementName(built.sql) : '');
    }
  }
  const rows = Array.isArray(result) ? result : (result.rows ?? []);
  noteDeliveries(rows as Record<string, unknown>[]);
  return rows;
}

/**
 * Drivers that send several statements as ONE atomic request (Neon over HTTP: one HTTP round
 * trip for the whole batch) register how; the others run a batch in a transaction, statement
 * after statement, with no application logic between them.
 */
type BatchRunner = (statements: SQL[]) => Promise<Record<string, unknown>[][]>;
const batchRunners = new WeakMap<object, BatchRunner>();
export const useBatchRunner = (db: Db, run: BatchRunner) => {
  batchRunners.set(db, run);
};

/**
 * Runs the statements in order, atomically (all or nothing), and returns each one's rows. A
 * batch is not interactive: nothing the application computes goes between its statements.
 */
export function batch(db: Db, statements: SQL[]): Promise<Record<string, unknown>[][]> {
  const run = batchRunners.get(db);
  if (run) for (const s of statements) noteKeyCheck(s);
  if (run)
    return timed(async () => {
      const out = await run(statements);
      for (const rows of out) noteDeliveries(rows);
      return out;
    });
  return timed(() =>
    db.transaction(async (tx) => {
      // the transaction's statements as named prepared statements too, as the database's own are
      if (namedStatementDbs.has(db)) namedStatementDbs.add(tx);
      const out: Record<string, unknown>[][] = [];
      for (const s of statements) out.push(await runQuery<Record<string, unknown>>(tx as unknown as Db, s));
      return out;
    }),
  );
}

export async function queryOne<T = Record<string, unknown>>(db: Db, statement: SQL): Promise<T | undefined> {
  const rows = await query<T>(db, statement);
  return rows[0];
}

/** The Postgres error (SQLSTATE code, constraint) behind a driver or Drizzle error, if any. */
export function pgError(e: unknown): { code: string; constraint?: string; message?: string } | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const o = cur as { code?: unknown; constraint?: unknown; message?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      return {
        code: o.code,
        constraint: typeof o.constraint === 'string' ? o.constraint : undefined,
        // Postgres's own message (a driver's wrapper message is the error one level up)
        message: typeof o.message === 'string' ? o.message : undefined,
      };
    }
    cur = o.cause;
  }
  return undefined;
}

export const isUniqueViolation = (e: unknown, constraint?: string) => {
  const pe = pgError(e);
  return pe?.code === '23505' && (constraint === undefined || pe.constraint === constraint);
};

/** ISO 8601 string for a timestamp column value (Date from every driver, string defensively). */
export function iso(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** Number for an int8/numeric column value (drivers give strings for those). */
export function num(v: unknown): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : Number(v);
}
