/**
 * npm run bench -- --edge [--samples N]
 *
 * Round trips as the edge feels them. Runs the real Worker (`npm run dev`: wrangler dev, workerd)
 * four times: over each database transport (`ws`: Neon's WebSocket Pool; `http`: SQL over HTTP)
 * with EDGE_LATENCY_MS = 0 and = 40 (every byte chunk held 40 ms each way between the Worker and
 * its local database endpoint). Each endpoint is called one request at a time; from the medians:
 *
 *   effective round trips = (p50 at 40 ms - p50 at 0 ms) / 80 ms
 *
 * A connection's set-up counts (WebSocket upgrade, Postgres start-up) as it does in production.
 * Work an answer leaves to ctx.waitUntil (email delivery) is not on its path.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { createApiKey, createBonusAction, createTeam } from '../src/admin/admin.js';
import { createContest } from '../src/contests/contest-settings.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { cryptoRandom } from '../src/deps.js';
import { hashCookie } from '../src/instant-win/hashing.js';
import { schedOf } from './cpu.js';
import { freshDatabase } from './support.js';

const LATENCY = 40;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

interface Ep {
  name: string;
  method: string;
  key: 'pub' | 'priv' | null;
  path: () => string;
  body?: () => unknown;
  headers?: () => Record<string, string>;
}

export async function startDev(
  databaseUrl: string,
  transport: string,
  latencyMs: number,
  extraEnv: Record<string, string> = {},
  /** `npm start` (the Node runner on the same database) instead of `npm run dev` */
  node = false,
) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', node ? 'src/node.ts' : 'scripts/dev.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DB_TRANSPORT: transport,
      EDGE_LATENCY_MS: String(latencyMs),
      ADMIN_TOKEN: 'bench-admin-token',
      JOBS_INTERVAL_MS: String(3_600_000),
      WRANGLER_LOG_LEVEL: 'error',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited: ${out.slice(-2000)}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not yet */
    }
    if (i > 300) throw new Error(`npm run dev did not become healthy: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, child, output: () => out };
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/**
 * The Worker's own socket under wrangler dev. A request to the dev port crosses wrangler's dev
 * proxy first (a ProxyWorker in a second workerd process, which queues each request in a Durable
 * Object and fetches it again from the runtime hosting the Worker); production has no such hop.
 * That runtime listens on a port of its own: found among the workerd processes' listening sockets
 * as the one, other than the dev port, whose /health is our app's (it carries x-request-id).
 * Null where `ss` is missing or nothing answers.
 */
async function workerSocket(devPort: number): Promise<string | null> {
  let listing = '';
  try {
    listing = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  } catch {
    return null;
  }
  const ports = new Set<number>();
  for (const line of listing.split('\n')) {
    if (!line.includes('"workerd"')) continue;
    const local = line.trim().split(/\s+/)[3] ?? '';
    const port = Number(/:(\d+)$/.exec(local)?.[1]);
    if (port && port !== devPort && /^(127\.0\.0\.1|\[::1\]|\*|0\.0\.0\.0|\[::\]):/.test(local)) ports.add(port);
  }
  for (const port of ports) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok && res.headers.get('x-request-id')) return `http://127.0.0.1:${port}`;
    } catch {
      /* not this one */
    }
  }
  return null;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The public cache under load (`--edge`, or alone with `--edge-cache`): the Worker in wrangler dev
 * over the HTTP transport, `connections` clients reading one leaderboard whose contest has
 * `publicCacheSeconds: 5` for `seconds` seconds. Counts the SQL requests the local endpoint
 * received meanwhile (the target: at most one per 5 s per distinct URL) and the p50 of a cached
 * answer read one at a time (target: under 2 ms), next to the same read with the setting at 0.
 */
async function cacheBench(
  url: string,
  keys: { pub: string },
  contests: { cached: string; exact: string },
  opts: { connections: number; seconds: number; samples: number; log: (...a: unknown[]) => void },
) {
  const httpPort = await freePort();
  // npm run dev's front door sets CF-Connecting-IP from the connection (as Cloudflare does), so
  // every read here comes from 127.0.0.1: the per-address limit is lifted, as a page read by many
  // people from their own addresses never meets it
  const { base, child } = await startDev(url, 'http', 0, {
    NEON_HTTP_PORT: String(httpPort),
    PUBLIC_RATE_LIMIT: '1000000',
  });
  try {
    const stats = async () =>
      ((await (await fetch(`http://127.0.0.1:${httpPort}/stats`)).json()) as { requests: number }).requests;
    // every read names its own visitor address (what a Worker behind Cloudflare reads; npm run
    // dev's front replaces it with the connection's, hence the lifted limit above)
    let visitor = 0;
    const leaderboard = (contestId: string, at: string) => {
      const v = visitor++;
      return {
        url: `${at}/api/v1/contests/${contestId}/leaderboard`,
        headers: { 'x-api-key': keys.pub, 'cf-connecting-ip': `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}` },
      };
    };
    const read = async (contestId: string) => {
      const { url, headers } = leaderboard(contestId, base);
      const t = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`leaderboard: ${res.status}`);
      return performance.now() - t;
    };
    // one at a time, over one kept-alive connection with node:http (fetch adds about 0.25 ms of
    // its own per request on this machine: the client's cost, not the Worker's)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const timedGet = (url: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const t = performance.now();
        httpGet(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`${url}: ${res.statusCode}`)),
          );
        }).on('error', reject);
      });
    const oneAtATime = async (contestId: string, at = base) => {
      const times: number[] = [];
      for (let i = 0; i < opts.samples * 20 + 2; i++) {
        const { url, headers } = leaderboard(contestId, at);
        const ms = await timedGet(url, headers);
        if (i >= 2) times.push(ms);
      }
      return median(times);
    };
    // the floor of wrangler dev itself: a Worker answer that needs nothing (no key, no database)
    const noDatabase = async (at: string) => {
      const floorTimes: number[] = [];
      for (let i = 0; i < opts.samples * 20 + 2; i++) {
        const ms = await timedGet(`${at}/draws/verify.js`, {});
        if (i >= 2) floorTimes.push(ms);
      }
      return median(floorTimes);
    };
    const p50Floor = await noDatabase(base);
    const p50Exact = await oneAtATime(contests.exact);
    await read(contests.cached);
    const p50Cached = await oneAtATime(contests.cached);
    // the same three at the Worker's own socket, without wrangler's dev proxy in front
    const own = await workerSocket(Number(new URL(base).port));
    const atWorker = own
      ? {
          floor: await noDatabase(own),
          exact: await oneAtATime(contests.exact, own),
          cached: await oneAtATime(contests.cached, own),
        }
      : null;
    agent.destroy();
    // under load
    const before = await stats();
    const started = performance.now();
    const deadline = started + opts.seconds * 1000;
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        while (performance.now() < deadline) times.push(await read(contests.cached));
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 300));
    const statements = (await stats()) - before;
    const sorted = [...times].sort((a, b) => a - b);
    const result = {
      connections: opts.connections,
      seconds: Number(elapsed.toFixed(1)),
      requests: times.length,
      reqPerSec: Math.round(times.length / elapsed),
      statements,
      allowedStatements: Math.ceil(elapsed / 5),
      p50LoadedMs: Number(median(times).toFixed(1)),
      p99LoadedMs: Number(sorted[Math.floor(sorted.length * 0.99)]!.toFixed(1)),
      p50CachedOneAtATimeMs: Number(p50Cached.toFixed(2)),
      p50ExactOneAtATimeMs: Number(p50Exact.toFixed(2)),
      p50NoDatabaseOneAtATimeMs: Number(p50Floor.toFixed(2)),
      workerSocket: atWorker
        ? {
            p50CachedOneAtATimeMs: Number(atWorker.cached.toFixed(2)),
            p50ExactOneAtATimeMs: Number(atWorker.exact.toFixed(2)),
            p50NoDatabaseOneAtATimeMs: Number(atWorker.floor.toFixed(2)),
          }
        : null,
    };
    opts.log(
      `\nPublic cache (wrangler dev, HTTP transport, publicCacheSeconds 5): ${result.connections} connections on one leaderboard for ${result.seconds} s: ` +
        `${result.requests.toLocaleString()} answers (${result.reqPerSec} req/s, p50 ${result.p50LoadedMs} ms, p99 ${result.p99LoadedMs} ms), ` +
        `${result.statements} SQL requests at the endpoint (at most ${result.allowedStatements} allowed: one per 5 s); ` +
        `one at a time: cached p50 ${result.p50CachedOneAtATimeMs} ms, exact (setting 0) p50 ${result.p50ExactOneAtATimeMs} ms, ` +
        `GET /draws/verify.js (the Worker under wrangler dev answering from memory: no key, no database) p50 ${result.p50NoDatabaseOneAtATimeMs} ms` +
        (result.workerSocket
          ? `; at the Worker's own socket (no dev proxy): cached p50 ${result.workerSocket.p50CachedOneAtATimeMs} ms, exact p50 ${result.workerSocket.p50ExactOneAtATimeMs} ms, GET /draws/verify.js p50 ${result.workerSocket.p50NoDatabaseOneAtATimeMs} ms`
          : "; the Worker's own socket was not found (needs ss)"),
    );
    return result;
  } finally {
    await stop(child);
  }
}

/** The small database every edge measurement runs on: a team, its keys, a contest of 5,000 entries, another with a public cache. */
async function edgeFixtures(url: string) {
  // small: latency and cost per request, not scale, are measured here
  const h = await openPg(url, { max: 2 });
  const db = h.db;
  const now = new Date();
  const team = await createTeam(db, 'Edge bench');
  const keys = {
    pub: (await createApiKey(db, cryptoRandom, team.id, 'public', 'edge')).key,
    priv: (await createApiKey(db, cryptoRandom, team.id, 'private', 'edge')).key,
  };
  const contest = await createContest(
    db,
    cryptoRandom,
    team.id,
    {
      title: 'Edge contest',
      status: 'active',
      isEvergreen: true,
      mode: 'leaderboard',
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 1 },
      externalTracking: { enabled: true },
      // its page's visitors need no key: the sign-up, visits and the hosted page are measured too
      publicSignup: true,
    },
    now,
  );
  const actions: { id: string }[] = [];
  for (let i = 0; i < 4; i++) actions.push(await createBonusAction(db, contest.id, { action: `a${i}`, points: 5 }));
  await query(
    db,
    sql`insert into entries (contest_id, email, name, referral_code, points, email_confirmed)
        select ${contest.id}, 'person' || i || '@example.com', 'Person ' || i, 'E' || lpad(i::text, 9, '0'), i % 500, true
        from generate_series(1, 5000) i`,
  );
  const people = await query<{ id: string; email: string; referral_code: string }>(
    db,
    sql`select id, email, referral_code from entries where contest_id = ${contest.id} order by email limit 2000`,
  );
  const cachedContest = await createContest(
    db,
    cryptoRandom,
    team.id,
    {
      title: 'Edge cached contest',
      status: 'active',
      isEvergreen: true,
      requireEmailConfirmation: false,
      publicCacheSeconds: 5,
    },
    now,
  );
  await query(
    db,
    sql`insert into entries (contest_id, email, name, referral_code, points, email_confirmed)
        select ${cachedContest.id}, 'cached' || i || '@example.com', 'Cached ' || i, 'C' || lpad(i::text, 9, '0'), i % 500, true
        from generate_series(1, 5000) i`,
  );
  // a visitor's entry token (GET /api/v1/me): the entry in the middle of the contest's order
  const meToken = `et_${createHash('sha256').update(`edge-${contest.id}`).digest('hex').slice(0, 40)}`;
  await query(
    db,
    sql`insert into entry_tokens (token_hash, entry_id)
        select ${createHash('sha256').update(meToken).digest('hex')}, id from entries where contest_id = ${contest.id}
        order by points desc, created_at, id offset 2500 limit 1`,
  );
  await h.close();
  return { keys, contest, actions, people, cachedContest, meToken };
}

type Call = (
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ ms: number; status: number; text: string }>;

/** The endpoints measured, each with a fresh request every call, and the games they need (made per server run). */
function edgeEndpoints(url: string, f: Awaited<ReturnType<typeof edgeFixtures>>) {
  const { keys, contest, actions, people } = f;
  let k = 0;
  const runTag = Date.now().toString(36);
  const games: { play: string; claim: string; pending: string[] } = { play: '', claim: '', pending: [] };
  const cookie = 'edgebenchcookie0123456789abcdefghijkl';
  const endpoints: Ep[] = [
    { name: 'contest get', method: 'GET', key: 'pub', path: () => `/api/v1/contests/${contest.id}` },
    { name: 'contests list', method: 'GET', key: 'pub', path: () => '/api/v1/contests' },
    {
      name: 'entry get',
      method: 'GET',
      key: 'pub',
      path: () => `/api/v1/entries/${people[k++ % people.length]!.id}`,
    },
    {
      name: 'entries list',
      method: 'GET',
      key: 'pub',
      path: () => `/api/v1/contests/${contest.id}/entries?limit=20`,
    },
    {
      name: 'entries search',
      method: 'GET',
      key: 'pub',
      path: () => `/api/v1/contests/${contest.id}/entries?search=person1${k++ % 100}`,
    },
    {
      name: 'leaderboard',
      method: 'GET',
      key: 'pub',
      path: () => `/api/v1/contests/${contest.id}/leaderboard?limit=25`,
    },
    { name: 'analytics', method: 'GET', key: 'pub', path: () => `/api/v1/contests/${contest.id}/analytics` },
    {
      name: 'me (entry token)',
      method: 'GET',
      key: null,
      path: () => '/api/v1/me',
      // a new address each time: /me allows 120 reads a minute per address
      headers: () => ({ authorization: `Bearer ${f.meToken}`, 'cf-connecting-ip': `10.7.${k % 250}.${k++ % 250}` }),
    },
    {
      name: 'me shares (entry token)',
      method: 'POST',
      key: null,
      path: () => '/api/v1/me/shares',
      body: () => ({ channel: 'x' }),
      headers: () => ({ authorization: `Bearer ${f.meToken}`, 'cf-connecting-ip': `10.6.${k % 250}.${k++ % 250}` }),
    },
    {
      name: 'visit (keyless)',
      method: 'POST',
      key: null,
      path: () => `/api/v1/contests/${contest.id}/visits`,
      body: () => ({ referralCode: people[k++ % people.length]!.referral_code, channel: 'whatsapp' }),
    },
    {
      name: 'sign-up (keyless)',
      method: 'POST',
      key: null,
      path: () => `/api/v1/contests/${contest.id}/signup`,
      body: () => ({ email: `signup-${runTag}-${k++}@example.com` }),
      headers: () => ({ 'cf-connecting-ip': `10.5.${k % 250}.${k++ % 250}` }),
    },
    { name: 'hosted page', method: 'GET', key: null, path: () => `/c/${contest.id}` },
    {
      name: 'contest view',
      method: 'POST',
      key: 'pub',
      path: () => `/api/v1/contests/${contest.id}/views`,
      body: () => ({}),
    },
    {
      name: 'entry create (referral)',
      method: 'POST',
      key: 'priv',
      path: () => `/api/v1/contests/${contest.id}/entries`,
      body: () => ({
        email: `edge-${runTag}-${k++}@example.com`,
        referralCode: people[k % people.length]!.referral_code,
      }),
    },
    {
      name: 'entry update',
      method: 'PUT',
      key: 'priv',
      path: () => `/api/v1/entries/${people[k++ % people.length]!.id}`,
      body: () => ({ name: `Renamed ${k}` }),
    },
    {
      name: 'points adjust',
      method: 'POST',
      key: 'priv',
      path: () => `/api/v1/entries/${people[k++ % people.length]!.id}/points`,
      body: () => ({ points: 1, reason: 'edge' }),
    },
    {
      name: 'bonus complete',
      method: 'POST',
      key: 'pub',
      path: () =>
        `/api/v1/entries/${people[k % people.length]!.id}/bonus-actions/${actions[Math.floor(k++ / people.length) % actions.length]!.id}/complete`,
      body: () => ({}),
    },
    {
      name: 'purchase',
      method: 'POST',
      key: 'priv',
      path: () => `/api/v1/contests/${contest.id}/purchases`,
      body: () => ({ email: people[k % people.length]!.email, orderId: `edge-${runTag}-${k++}`, amount: 12.5 }),
    },
    { name: 'game get', method: 'GET', key: 'pub', path: () => `/api/v1/instant-win-games/${games.play}` },
    {
      name: 'game update (read + batch)',
      method: 'PUT',
      key: 'priv',
      path: () => `/api/v1/instant-win-games/${games.play}`,
      body: () => ({ title: `Edge wheel ${k++}` }),
    },
    {
      name: 'instant-win play',
      method: 'POST',
      key: 'pub',
      path: () => `/api/v1/instant-win-games/${games.play}/play`,
      body: () => ({}),
      headers: () => ({ 'cf-connecting-ip': `10.9.${k % 250}.${k++ % 250}` }),
    },
    {
      name: 'instant-win claim',
      method: 'POST',
      key: 'pub',
      path: () => `/api/v1/instant-win-games/${games.claim}/plays/${games.pending.shift()}/claim`,
      body: () => ({ email: `winner-${runTag}-${k++}@example.com`, playCookie: cookie }),
      headers: () => ({ 'cf-connecting-ip': `10.8.${k % 250}.${k++ % 250}` }),
    },
    {
      name: 'plays list',
      method: 'GET',
      key: 'priv',
      path: () => `/api/v1/instant-win-games/${games.play}/plays?limit=20`,
    },
  ];

  const prepareGames = async (call: Call, pending: number) => {
    // a game to play (new per run: the per-IP limit) and one whose pending wins are claimed
    const gameBody = (title: string) => ({
      slug: 'spin-to-win',
      title,
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'landing',
      tiers: [
        { name: 'Prize', oddsPercent: 50, redeemCode: 'EDGE' },
        { name: 'Miss', oddsPercent: 50, isMiss: true },
      ],
    });
    const g1 = await call('POST', '/api/v1/instant-win-games', keys.priv, gameBody('Edge wheel'));
    const g2 = await call('POST', '/api/v1/instant-win-games', keys.priv, gameBody('Edge claims'));
    games.play = JSON.parse(g1.text).data.id;
    games.claim = JSON.parse(g2.text).data.id;
    const prizeTier = JSON.parse(g2.text).data.tiers[0].id as string;
    const hp = await openPg(url, { max: 1, migrate: false });
    games.pending = (
      await query<{ id: string }>(
        hp.db,
        sql`insert into instant_win_plays (game_id, tier_id, status, random_value, cookie_hash, play_day, expires_at)
            select ${games.claim}, ${prizeTier}, 'pending', 1, ${await hashCookie(cookie)}, current_date, now() + interval '24 hours'
            from generate_series(1, ${pending}::int) returning id`,
      )
    ).map((r) => r.id);
    await hp.close();
  };
  return { endpoints, prepareGames };
}

/**
 * Requests to one server, timed. An address in CF-Connecting-IP (what the Worker reads) also goes
 * as X-Forwarded-For (what Node reads behind TRUST_PROXY), so per-address limits see the same one.
 */
function callerAt(base: string): Call {
  return async (method, path, key, body, headers = {}) => {
    const t = performance.now();
    const res = await fetch(base + path, {
      method,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        'content-type': 'application/json',
        ...headers,
        ...(headers['cf-connecting-ip'] ? { 'x-forwarded-for': headers['cf-connecting-ip'] } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { ms: performance.now() - t, status: res.status, text };
  };
}

export async function edgeBench(opts: {
  baseUrl: string;
  samples: number;
  log: (...a: unknown[]) => void;
  cacheOnly?: boolean;
  connections?: number;
  seconds?: number;
}) {
  const { log, samples } = opts;
  const dbName = `ce_edge_${process.pid}`;
  const fresh = await freshDatabase(opts.baseUrl, dbName);
  const { url } = fresh;
  const children: ChildProcess[] = [];
  try {
    const f = await edgeFixtures(url);
    const { keys, cachedContest, contest } = f;
    const cacheArgs = { connections: opts.connections ?? 50, seconds: opts.seconds ?? 20, samples, log };
    if (opts.cacheOnly)
      return { publicCache: await cacheBench(url, keys, { cached: cachedContest.id, exact: contest.id }, cacheArgs) };
    const { endpoints, prepareGames } = edgeEndpoints(url, f);

    const rows: Record<string, Record<string, number>> = {};
    const failures: string[] = [];
    for (const transport of ['ws', 'http']) {
      for (const latency of [0, LATENCY]) {
        const { base, child } = await startDev(url, transport, latency);
        children.push(child);
        const call = callerAt(base);
        await prepareGames(call, samples + 5);

        for (const ep of endpoints) {
          const times: number[] = [];
          for (let i = 0; i < samples + 2; i++) {
            const r = await call(ep.method, ep.path(), ep.key ? keys[ep.key] : null, ep.body?.(), ep.headers?.());
            if (r.status >= 400)
              failures.push(`${transport}@${latency} ${ep.name}: ${r.status} ${r.text.slice(0, 200)}`);
            if (i >= 2) times.push(r.ms); // the first two warm the isolate and the connection cache
          }
          const row = rows[ep.name] ?? {};
          rows[ep.name] = row;
          row[`${transport}@${latency}`] = median(times);
        }
        await stop(child);
        log(`  edge bench: ${transport} at ${latency} ms done`);
      }
    }

    const trips = (name: string, transport: string) =>
      (rows[name]![`${transport}@${LATENCY}`]! - rows[name]![`${transport}@0`]!) / (2 * LATENCY);
    const pad = (s: unknown, n: number) => String(s).padEnd(n);
    const lines = [
      `\nEdge round trips: Worker in wrangler dev, ${LATENCY} ms each way between the Worker and its database endpoint, ${samples} sequential requests per endpoint (p50)`,
      `${pad('endpoint', 28)}${pad('ws p50@0', 10)}${pad('ws p50@40', 11)}${pad('ws trips', 10)}${pad('http p50@0', 12)}${pad('http p50@40', 13)}http trips`,
      ...endpoints.map((ep) => {
        const r = rows[ep.name]!;
        return `${pad(ep.name, 28)}${pad(r['ws@0']!.toFixed(0), 10)}${pad(r[`ws@${LATENCY}`]!.toFixed(0), 11)}${pad(trips(ep.name, 'ws').toFixed(2), 10)}${pad(r['http@0']!.toFixed(0), 12)}${pad(r[`http@${LATENCY}`]!.toFixed(0), 13)}${trips(ep.name, 'http').toFixed(2)}`;
      }),
    ];
    log(lines.join('\n'));
    if (failures.length) log(`\n${failures.length} requests failed, e.g.:\n  ${failures.slice(0, 5).join('\n  ')}`);
    const publicCache = await cacheBench(url, keys, { cached: cachedContest.id, exact: contest.id }, cacheArgs);
    return {
      ...Object.fromEntries(
        endpoints.map((ep) => [
          ep.name,
          { ...rows[ep.name], wsTrips: trips(ep.name, 'ws'), httpTrips: trips(ep.name, 'http') },
        ]),
      ),
      publicCache,
    };
  } finally {
    for (const c of children) await stop(c);
    await fresh.drop();
  }
}

/** CPU time (ms, from the scheduler's nanoseconds) the Postgres backends `pids` have used so far; a backend gone meanwhile reads as absent. */
function backendCpuMs(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const sched = schedOf(pid);
    if (sched) out.set(pid, sched[0] / 1e6);
  }
  return out;
}

const RUNTIMES = ['node', 'worker'] as const;
type Runtime = (typeof RUNTIMES)[number];

/**
 * npm run bench -- --pg-cost [--samples N] [--only WORD]
 *
 * Postgres CPU per request, per endpoint, on both runtimes over the same database at the same
 * time: the Node runner (`npm start`, node-postgres, prepared statements) and the Worker (`npm run
 * dev`: workerd, the Neon driver's SQL over HTTP through scripts/neon-http.ts, whose connections
 * are pooled across requests as Neon's proxy pools them). Both servers run side by side and the
 * requests ALTERNATE between them (node, worker, worker, node, ...), one at a time, N per runtime
 * after a warm-up. Each runtime's backends are told apart by their application_name (Node's PGAPPNAME),
 * and a backend's CPU is its scheduler time (/proc/<pid>/schedstat), so the machine's other work
 * does not count. Alternating matters: a backend's CPU for the same statement depends on how long
 * and how busy the machine was since its last one (caches gone cold: 0.35 ms back to back, 0.7 to
 * 0.9 ms with 10 ms between, measured on one connection), and the Worker's path is longer, so one
 * runtime after the other charges the slower one for its own latency. Alternated, each backend
 * waits through the same two requests between its own. The N requests are split in three blocks:
 * the ratio is printed for the whole and its spread over the blocks. Linux only.
 */
export async function pgCostBench(opts: {
  baseUrl: string;
  samples: number;
  only?: string;
  log: (...a: unknown[]) => void;
}) {
  const { log, samples } = opts;
  const dbName = `ce_pgcost_${process.pid}`;
  const fresh = await freshDatabase(opts.baseUrl, dbName);
  const { url, admin } = fresh;
  const children: ChildProcess[] = [];
  // Node's backends carry its PGAPPNAME; the Worker's are the local Neon endpoint's (whose
  // application_name the Neon driver sets in the connection string it sends)
  const backends = async () => {
    const rows = (
      await admin.query<{ pid: number; node: boolean }>(
        `select pid, application_name = 'ce-pgcost-node' as node from pg_stat_activity
         where datname = $1 and backend_type = 'client backend'`,
        [dbName],
      )
    ).rows;
    return {
      node: rows.filter((r) => r.node).map((r) => r.pid),
      worker: rows.filter((r) => !r.node).map((r) => r.pid),
    };
  };
  try {
    const f = await edgeFixtures(url);
    const { endpoints: all, prepareGames } = edgeEndpoints(url, f);
    const endpoints = all.filter((ep) => !opts.only || ep.name.includes(opts.only));
    const calls = {} as Record<Runtime, Call>;
    // one after the other: each runs the migrations on start
    for (const runtime of RUNTIMES) {
      // no rate limit in the way of the requests from one address; on Node, the address the Worker
      // reads from CF-Connecting-IP comes as X-Forwarded-For (play and claim limit per address)
      const env = {
        PUBLIC_RATE_LIMIT: '1000000',
        ...(runtime === 'node' ? { TRUST_PROXY: '1', PGAPPNAME: 'ce-pgcost-node' } : {}),
      };
      const { base, child } = await startDev(url, 'http', 0, env, runtime === 'node');
      children.push(child);
      calls[runtime] = callerAt(base);
    }
    await prepareGames(calls.node, 2 * (samples + 15));
    const BLOCKS = 3;
    const cost: Record<string, Record<Runtime, number> & { blocks: number[]; failed: number }> = {};
    for (const ep of endpoints) {
      // the private key for every endpoint: a public key's reads are rate limited per address (the
      // Worker's limiter binding under wrangler dev too), and the statements are the same
      const send = (rt: Runtime) =>
        calls[rt](ep.method, ep.path(), ep.key ? f.keys.priv : null, ep.body?.(), ep.headers?.());
      // warm: the isolate, the connections, their plan caches
      for (let i = 0; i < 10; i++) for (const rt of RUNTIMES) await send(rt);
      const used = { node: 0, worker: 0 } as Record<Runtime, number>;
      const blocks: number[] = [];
      let failed = 0;
      for (let b = 0; b < BLOCKS; b++) {
        const n = Math.floor(samples / BLOCKS) + (b < samples % BLOCKS ? 1 : 0);
        const pids = await backends();
        const before = { node: backendCpuMs(pids.node), worker: backendCpuMs(pids.worker) };
        for (let i = 0; i < n; i++) {
          for (const rt of i % 2 ? [...RUNTIMES].reverse() : RUNTIMES) if ((await send(rt)).status >= 400) failed++;
        }
        const later = await backends();
        const block = {} as Record<Runtime, number>;
        for (const rt of RUNTIMES) {
          const after = backendCpuMs([...new Set([...before[rt].keys(), ...later[rt]])]);
          block[rt] = 0;
          for (const [pid, ms] of after) block[rt] += ms - (before[rt].get(pid) ?? 0);
          used[rt] += block[rt];
        }
        blocks.push(block.worker / block.node);
      }
      cost[ep.name] = { node: used.node / samples, worker: used.worker / samples, blocks, failed };
    }
    const pad = (s: unknown, n: number) => String(s).padEnd(n);
    log(
      [
        `\nPostgres CPU per request (ms), ${samples} requests per endpoint and runtime, alternating between Node (npm start) and the Worker (npm run dev, SQL over HTTP) on the same database`,
        `${pad('endpoint', 28)}${pad('Node', 8)}${pad('Worker', 8)}${pad('ratio', 7)}${pad('blocks', 18)}failed`,
        ...endpoints.map((ep) => {
          const r = cost[ep.name]!;
          return `${pad(ep.name, 28)}${pad(r.node.toFixed(2), 8)}${pad(r.worker.toFixed(2), 8)}${pad((r.worker / r.node).toFixed(2), 7)}${pad(r.blocks.map((x) => x.toFixed(2)).join(' '), 18)}${r.failed}`;
        }),
      ].join('\n'),
    );
    return cost;
  } finally {
    for (const c of children) await stop(c);
    await fresh.drop();
  }
}
