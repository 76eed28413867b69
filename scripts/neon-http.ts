/**
 * A local stand-in for Neon's SQL-over-HTTP endpoint, so the real `@neondatabase/serverless`
 * HTTP driver (`neon()`, Drizzle's `neon-http`) can reach a plain local Postgres: `npm run dev`
 * and the workerd tests point `neonConfig.fetchEndpoint` at it (NEON_HTTP_ENDPOINT).
 *
 * Wire format, as the driver (node_modules/@neondatabase/serverless, `neon()`) and Neon's proxy
 * speak it:
 * - `POST …/sql`, JSON body `{query, params}` (one statement) or `{queries: [{query, params}, …]}`
 *   (a batch: ONE transaction, all rolled back if one statement fails); params are text or null;
 * - headers `Neon-Connection-String` (which database), `Neon-Raw-Text-Output: true` (values as
 *   Postgres prints them), `Neon-Array-Mode` (rows as arrays or objects; a statement's own
 *   `arrayMode` wins), and for a batch `Neon-Batch-Isolation-Level` (ReadUncommitted |
 *   ReadCommitted | RepeatableRead | Serializable), `Neon-Batch-Read-Only`,
 *   `Neon-Batch-Deferrable` (`true` turns the option on);
 * - answer 200 `{rowAsArray, fields: [{name, dataTypeID, tableID, columnID, dataTypeSize,
 *   dataTypeModifier, format}], rows, command, rowCount}`, or `{results: [...]}` for a batch;
 * - a Postgres error: 400 `{message, code, detail, hint, position, …, constraint, …}` (the driver
 *   copies these onto its NeonDbError, so SQLSTATE and constraint reach the app); other failures
 *   (database unreachable): 500 `{message}`.
 * Each statement runs with the extended protocol (one statement per query, as on Neon), over a
 * `pg` Pool per connection string with pg's type parsing off: values are exactly Postgres's text
 * output (bytea as \x hex, arrays in {…} form, timestamps in the session's DateStyle/TimeZone).
 * The pool's connections serve request after request, as Neon's proxy keeps its Postgres
 * connections in a pool (neondatabase/neon, proxy/src/serverless/conn_pool_lib.rs). Like it, a
 * connection given back is reset first (SESSION_RESET), in the background: the next request on
 * it queues behind the reset. Kept across requests, as there: what the reset leaves, the plans a
 * session has cached (PL/pgSQL's included).
 *
 * `latencyMs` (EDGE_LATENCY_MS): a TCP front (scripts/latency-front.ts) holds every byte chunk
 * that long in each direction between the client (the Worker) and this endpoint; the link to
 * Postgres is never delayed.
 *
 * Test/dev only: listens on 127.0.0.1 and only connects to loopback Postgres servers by default.
 * Alone: `npx tsx scripts/neon-http.ts` (env NEON_HTTP_PORT (4444), HOST, EDGE_LATENCY_MS,
 * DATABASE_URL: when set, every request goes to that database whatever the header names).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { type LatencyFront, startLatencyFront } from './latency-front.js';

export interface NeonHttpOptions {
  port?: number;
  host?: string;
  /** hold every byte chunk this long in each direction on the client-facing socket (ms) */
  latencyMs?: number;
  /** send every request to this database, whatever Neon-Connection-String names */
  databaseUrl?: string;
  /** which Postgres servers the connection string may name (default: loopback only) */
  allow?: (host: string, port: number) => boolean;
  /** connections per database (default 10) */
  poolMax?: number;
  log?: (msg: string) => void;
}

export interface NeonHttp {
  /** http://host:port */
  url: string;
  /** http://host:port/sql, the value for neonConfig.fetchEndpoint / NEON_HTTP_ENDPOINT */
  endpoint: string;
  host: string;
  port: number;
  /** HTTP requests (single statements and batches) answered since start */
  requests(): number;
  close(): Promise<void>;
}

const ISOLATION: Record<string, string> = {
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
  Serializable: 'SERIALIZABLE',
};

/** Neon's error body: the Postgres error fields, null when absent */
const ERROR_FIELDS = [
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'severity',
  'where',
  'table',
  'column',
  'schema',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

const MAX_BODY = 10 * 1024 * 1024;

/**
 * What Neon's proxy sends on a connection it puts back in its pool (`reset_session_background`,
 * neondatabase/neon libs/proxy/tokio-postgres2/src/client.rs: "similar to `discard_all`, but it
 * does not clear any query plans"), as one simple query.
 */
export const SESSION_RESET = `ROLLBACK;
CLOSE ALL;
SET SESSION AUTHORIZATION DEFAULT;
RESET ALL;
DEALLOCATE ALL;
UNLISTEN *;
SELECT pg_advisory_unlock_all();
DISCARD TEMP;
DISCARD SEQUENCES;`;

/** pg's type parsing off: every value stays the text Postgres sent */
const rawText = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Statement {
  query: string;
  params: (string | null)[];
  arrayMode?: boolean;
}

const isLoopback = (host: string) =>
  host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);

/** A JSON parameter as Postgres text (the driver sends strings and nulls already). */
function toPgText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return arrayLiteral(v);
  return JSON.stringify(v);
}

function arrayLiteral(items: unknown[]): string {
  return `{${items
    .map((v) => {
      if (v === null || v === undefined) return 'NULL';
      if (Array.isArray(v)) return arrayLiteral(v);
      return `"${toPgText(v)!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join(',')}}`;
}

function parseStatement(raw: unknown): Statement {
  const o = raw as { query?: unknown; params?: unknown; arrayMode?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.query !== 'string')
    throw new HttpError(400, 'request body: expected {query, params} or {queries: [...]}');
  if (o.params !== undefined && !Array.isArray(o.params))
    throw new HttpError(400, 'request body: params must be an array');
  return {
    query: o.query,
    params: ((o.params as unknown[] | undefined) ?? []).map(toPgText),
    arrayMode: typeof o.arrayMode === 'boolean' ? o.arrayMode : undefined,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(400, `request is too large (max is ${MAX_BODY} bytes)`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function hasSqlState(e: unknown): e is pg.DatabaseError {
  return (
    !!e &&
    typeof e === 'object' &&
    typeof (e as { code?: unknown }).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((e as { code: string }).code)
  );
}

/** One statement's result in Neon's shape. */
function toJson(result: pg.QueryArrayResult, arrayMode: boolean) {
  const fields = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: 'text',
  }));
  const rows = arrayMode
    ? result.rows
    : result.rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i] ?? null])));
  return { rowAsArray: arrayMode, fields, rows, command: result.command ?? '', rowCount: result.rowCount ?? null };
}

export async function startNeonHttp(opts: NeonHttpOptions = {}): Promise<NeonHttp> {
  const host = opts.host ?? '127.0.0.1';
  const latencyMs = Math.max(0, opts.latencyMs ?? 0);
  const allow = opts.allow ?? ((h: string) => isLoopback(h));
  const log = opts.log ?? (() => {});
  const pools = new Map<string, pg.Pool>();
  let requests = 0;

  function poolFor(connectionString: string): pg.Pool {
    let pool = pools.get(connectionString);
    if (!pool) {
      let url: URL;
      try {
        url = new URL(connectionString);
      } catch {
        throw new HttpError(400, 'invalid connection string');
      }
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
        throw new HttpError(400, 'invalid connection string');
      const pgHost = decodeURIComponent(url.hostname);
      if (!allow(pgHost, Number(url.port || 5432)))
        throw new HttpError(400, `this local endpoint does not connect to ${url.host}`);
      pool = new pg.Pool({ connectionString, max: opts.poolMax ?? 10, types: rawText });
      pool.on('error', (e) => log(`idle connection error: ${e.message}`));
      pools.set(connectionString, pool);
    }
    return pool;
  }

  const run = (client: pg.PoolClient, s: Statement) =>
    client.query<unknown[]>({
      text: s.query,
      values: s.params,
      rowMode: 'array',
      queryMode: 'extended',
    } as pg.QueryArrayConfig);

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://endpoint').pathname;
    if (req.method !== 'POST' || !path.endsWith('/sql')) throw new HttpError(404, 'not found: POST /sql');
    const h = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const connectionString = opts.databaseUrl ?? h('neon-connection-string');
    if (!connectionString) throw new HttpError(400, 'missing Neon-Connection-String header');
    if (h('neon-raw-text-output') !== 'true') {
      throw new HttpError(
        400,
        'this local endpoint only implements Neon-Raw-Text-Output: true (what @neondatabase/serverless sends)',
      );
    }
    const defaultArrayMode = h('neon-array-mode') === 'true';
    const level = h('neon-batch-isolation-level');
    if (level !== undefined && !ISOLATION[level]) throw new HttpError(400, 'invalid isolation level');
    const readOnly = h('neon-batch-read-only') === 'true';
    const deferrable = h('neon-batch-deferrable') === 'true';

    let payload: unknown;
    try {
      payload = JSON.parse(await readBody(req));
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, `request body is not valid JSON: ${(e as Error).message}`);
    }
    const batch = payload && typeof payload === 'object' && Array.isArray((payload as { queries?: unknown }).queries);
    const statements = batch
      ? (payload as { queries: unknown[] }).queries.map(parseStatement)
      : [parseStatement(payload)];

    const client = await poolFor(connectionString).connect();
    let discard = false;
    try {
      if (!batch) {
        const s = statements[0]!;
        const out = toJson(await run(client, s), s.arrayMode ?? defaultArrayMode);
        // a statement that left a transaction open (BEGIN) must not leak into the next request
        discard = client.getTransactionStatus?.() !== 'I';
        return send(res, 200, out);
      }
      const modes = [
        level && `ISOLATION LEVEL ${ISOLATION[level]}`,
        readOnly && 'READ ONLY',
        deferrable && 'DEFERRABLE',
      ].filter(Boolean);
      await client.query(`START TRANSACTION ${modes.join(', ')}`);
      const results = [];
      try {
        for (const s of statements) results.push(toJson(await run(client, s), s.arrayMode ?? defaultArrayMode));
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {
          discard = true;
        });
        throw e;
      }
      const headers: Record<string, string> = {};
      if (readOnly) headers['Neon-Batch-Read-Only'] = 'true';
      if (deferrable) headers['Neon-Batch-Deferrable'] = 'true';
      if (level) headers['Neon-Batch-Isolation-Level'] = level;
      return send(res, 200, { results }, headers);
    } catch (e) {
      if (!hasSqlState(e)) discard = true;
      throw e;
    } finally {
      if (discard) client.release(true);
      else {
        // reset in the background, as Neon's proxy does; the connection goes back to the pool now
        // and the next query on it waits in the client's queue behind the reset
        client.query(SESSION_RESET).catch((e: Error) => log(`session reset failed: ${e.message}`));
        client.release();
      }
    }
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'access-control-allow-origin': '*',
      ...headers,
    });
    res.end(text);
  }

  const server = createServer((req, res) => {
    // GET /stats: how many SQL requests were answered (tests count round trips with it); not counted itself
    if (req.method === 'GET' && req.url === '/stats') return send(res, 200, { requests });
    requests += 1;
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      if (e instanceof HttpError) return send(res, e.status, { message: e.message });
      if (hasSqlState(e)) {
        const out: Record<string, unknown> = { message: e.message };
        for (const k of ERROR_FIELDS) out[k] = (e as unknown as Record<string, unknown>)[k] ?? null;
        return send(res, 400, out);
      }
      log(`error: ${(e as Error).message}`);
      send(res, 500, { message: `could not run the query: ${(e as Error).message}` });
    });
  });
  server.keepAliveTimeout = 30_000;

  // behind a delaying front: the HTTP server on an ephemeral port, the front on the asked one
  let front: LatencyFront | undefined;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(latencyMs > 0 ? 0 : (opts.port ?? 0), latencyMs > 0 ? '127.0.0.1' : host, () => resolve());
  });
  let port = (server.address() as AddressInfo).port;
  if (latencyMs > 0) {
    front = await startLatencyFront({ target: { host: '127.0.0.1', port }, latencyMs, host, port: opts.port ?? 0 });
    port = front.port;
  }
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostInUrl}:${port}`;

  return {
    url,
    endpoint: `${url}/sql`,
    host,
    port,
    requests: () => requests,
    async close() {
      await front?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
      pools.clear();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const endpoint = await startNeonHttp({
    port: Number(env.NEON_HTTP_PORT ?? 4444),
    host: env.HOST ?? '127.0.0.1',
    latencyMs: Number(env.EDGE_LATENCY_MS ?? 0),
    databaseUrl: env.DATABASE_URL || undefined,
    log: (m) => console.warn(`[neon-http] ${m}`),
  });
  console.log(
    `Local Neon HTTP endpoint at ${endpoint.endpoint}` +
      (env.EDGE_LATENCY_MS ? ` (each byte held ${Number(env.EDGE_LATENCY_MS)} ms each way)` : '') +
      (env.DATABASE_URL
        ? `, every query to ${new URL(env.DATABASE_URL).host}${new URL(env.DATABASE_URL).pathname}`
        : ''),
  );
  console.log(
    `  neonConfig.fetchEndpoint = '${endpoint.endpoint}'  (or NEON_HTTP_ENDPOINT=${endpoint.endpoint} for the Worker)`,
  );
  const stop = () => void endpoint.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
