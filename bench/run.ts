/**
 * npm run bench [-- --entries N] [--quick] [--smoke] [--duration S] [--connections C] [--only WORD] [--draw] [--no-data-out] [--admit]
 * npm run bench -- --edge [--samples N]     (round trips as the edge feels them: bench/edge.ts)
 * npm run bench -- --call-cost [--samples N]  (what a statement function's call costs Postgres by itself: bench/call-cost.ts)
 * npm run bench -- --pg-cost [--samples N] [--only WORD]  (Postgres CPU per request, Node beside the Worker: bench/edge.ts)
 * npm run bench -- --bodies [--samples N]   (what a hostile body costs, /health meanwhile, Node and the Worker: bench/bodies.ts)
 *
 * --draw: instead of the HTTP load, times a giveaway draw over the seeded contest (commit and
 * reveal of 100 winners, equal and points weighting, in SQL) and the snapshot CSV read back in
 * its keyset pages, checked against snapshotHash.
 *
 * Creates a fresh database on BENCH_DATABASE_URL's server (default the machine's Postgres), seeds
 * a contest with N entries in SQL (generate_series), starts the bench server (bench/server.ts: the
 * real app + a SELECT 1 floor route + round-trip counting) as a child process, measures each
 * endpoint's round trips with sequential requests, then drives load with autocannon and prints
 * requests/s, ratio to the floor, p50, p99, errors and round trips; for each write endpoint also
 * its own floor (its exact statements replayed straight from pg, see ownFloor) and the ratio to
 * it. Writes bench/results.json.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createApiKey, createBonusAction, createTeam } from '../src/admin/admin.js';
import { createContest } from '../src/contests/contest-settings.js';
import { query } from '../src/db/client.js';
import { openPg } from '../src/db/drivers/pg.js';
import { teamById } from '../src/db/team.js';
import { cryptoRandom } from '../src/deps.js';
import { createDraw, revealDraw, SNAPSHOT_HEADER, snapshotPage } from '../src/draws/draws.js';
import { SNAPSHOT_PAGE_BYTES } from '../src/draws/draws.routes.js';
import { hashCookie } from '../src/instant-win/hashing.js';
import { bodiesBench } from './bodies.js';
import { callCostBench } from './call-cost.js';
import { cpuMeter } from './cpu.js';
import { edgeBench, pgCostBench } from './edge.js';
import { explainWrites } from './explain.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
/** --keep: leave the bench database behind (to EXPLAIN its queries); it is named in the output */
const keep = args.includes('--keep');
const drawMode = args.includes('--draw');
const N = Number(arg('entries') ?? 1_000_000);
/** --smoke: CI's check that the harness still runs end to end (implies --quick; small samples, numbers meaningless) */
const smoke = args.includes('--smoke');
const duration = Number(arg('duration') ?? (quick || smoke ? 2 : 10));
const connections = Number(arg('connections') ?? 10);
/** --only WORD[,WORD...]: measure only the endpoints whose name contains one of the words (the floors always) */
const only = arg('only');
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** BENCH_PORT, or a free port chosen now (before the seed, so a taken port never wastes it) */
const port = process.env.BENCH_PORT
  ? Number(process.env.BENCH_PORT)
  : await new Promise<number>((resolve, reject) => {
      const s = createNetServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
const dbName = `ce_bench_${process.pid}`;

const withDb = (u: string, db: string) => {
  const x = new URL(u);
  x.pathname = `/${db}`;
  return x.toString();
};
const log = (...a: unknown[]) => console.log(...a);
// realistic contact data: 50 first names x 50 last names x 10 domains, numbered
const FIRST = sql.raw(
  `(array['olivia','liam','emma','noah','ava','oliver','sophia','elijah','isabella','james','mia','william','amelia','benjamin','harper','lucas','evelyn','henry','abigail','alexander','emily','michael','ella','daniel','elizabeth','jacob','camila','logan','luna','jackson','sofia','sebastian','avery','jack','mila','aiden','aria','owen','scarlett','samuel','penelope','matthew','layla','joseph','chloe','levi','victoria','mateo','madison','david'])`,
);
const LAST = sql.raw(
  `(array['smith','johnson','williams','brown','jones','garcia','miller','davis','rodriguez','martinez','hernandez','lopez','gonzalez','wilson','anderson','thomas','taylor','moore','jackson','martin','lee','perez','thompson','white','harris','sanchez','clark','ramirez','lewis','robinson','walker','young','allen','king','wright','scott','torres','nguyen','hill','flores','green','adams','nelson','baker','hall','rivera','campbell','mitchell','carter','roberts'])`,
);
const DOMAINS = sql.raw(
  `(array['gmail.com','yahoo.com','outlook.com','icloud.com','proton.me','hey.com','fastmail.com','acme.io','shop.co','mail.de'])`,
);

async function main() {
  const t0 = Date.now();
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.query(`create database ${dbName}`);
  const url = withDb(baseUrl, dbName);
  let child: ChildProcess | undefined;
  try {
    const h = await openPg(url, { max: 4 });
    const db = h.db;
    log(`database ${dbName} migrated`);

    // ---------- seed ----------
    const team = await createTeam(db, 'Bench team');
    const pub = (await createApiKey(db, cryptoRandom, team.id, 'public', 'bench')).key;
    const priv = (await createApiKey(db, cryptoRandom, team.id, 'private', 'bench')).key;
    const contest = await createContest(
      db,
      cryptoRandom,
      team.id,
      {
        title: 'Bench contest',
        status: 'active',
        isEvergreen: true,
        mode: 'leaderboard',
        requireEmailConfirmation: false,
        referral: { advocatePoints: 10, friendPoints: 5 },
        purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 1 },
        // its visitors' calls without a key (share-link visits)
        publicSignup: true,
      },
      new Date(),
    );
    const actions: { id: string }[] = [];
    for (let i = 0; i < 5; i++)
      actions.push(await createBonusAction(db, contest.id, { action: `action_${i}`, points: 5 + i }));
    const seedStart = Date.now();
    const advocates = Math.max(1, Math.floor(N / 10));
    /** seconds between two seeded entries: N entries over the last 30 days, as a real contest's would be */
    const spread = (30 * 86_400) / N;
    await query(
      db,
      sql`insert into entries (contest_id, email, name, referral_code, points, email_confirmed, confirmed_at, disqualified, created_at)
          select ${contest.id}, ${FIRST}[1 + i % 50] || '.' || ${LAST}[1 + (i / 50) % 50] || i || '@' || ${DOMAINS}[1 + (i / 7) % 10], initcap(${FIRST}[1 + i % 50]) || ' ' || initcap(${LAST}[1 + (i / 50) % 50]), 'R' || lpad(i::text, 9, '0'),
                 floor(power(random(), 3) * 1000)::int, x.ok, case when x.ok then x.at + interval '10 minutes' end, random() < 0.01, x.at
          from generate_series(1, ${advocates}::int) i,
               lateral (select random() < 0.9 + i * 0 as ok, now() - interval '30 days' + (i * ${spread}::float8) * interval '1 second' as at) x`,
    );
    if (N > advocates) {
      await query(
        db,
        sql`insert into entries (contest_id, email, name, referral_code, referred_by, points, email_confirmed, confirmed_at, disqualified, created_at)
            select ${contest.id}, ${FIRST}[1 + i % 50] || '.' || ${LAST}[1 + (i / 50) % 50] || i || '@' || ${DOMAINS}[1 + (i / 7) % 10], initcap(${FIRST}[1 + i % 50]) || ' ' || initcap(${LAST}[1 + (i / 50) % 50]), 'R' || lpad(i::text, 9, '0'),
                   case when i % 3 = 0 then (select id from entries r where r.referral_code = 'R' || lpad(((i % ${advocates}::int) + 1)::text, 9, '0')) end,
                   floor(power(random(), 3) * 1000)::int, x.ok, case when x.ok then x.at + interval '10 minutes' end, random() < 0.01, x.at
            from generate_series(${advocates + 1}::int, ${N}::int) i,
                 lateral (select random() < 0.9 + i * 0 as ok, now() - interval '30 days' + (i * ${spread}::float8) * interval '1 second' as at) x`,
      );
    }
    await query(
      db,
      sql`insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason)
          select id, contest_id, points, points, 'manual', 'bench seed' from entries where contest_id = ${contest.id} and points > 0`,
    );
    await query(
      db,
      sql`insert into bonus_completions (entry_id, bonus_action_id, contest_id, points_awarded, completed_at)
          select id, ${actions[0]!.id}, contest_id, 0, created_at + interval '5 minutes' from entries where contest_id = ${contest.id} and random() < 0.2`,
    );
    await query(db, sql`create table bench_writes (id bigserial primary key)`);
    // what autovacuum does after a bulk load: statistics, visibility map, GIN pending lists merged
    await query(db, sql`vacuum analyze`);
    log(`seeded ${N.toLocaleString()} entries in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    if (drawMode) {
      await benchDraws(db, team.id, contest.id);
      return;
    }

    const sample = await query<{ id: string; email: string; referral_code: string }>(
      db,
      sql`select id, email, referral_code from entries where contest_id = ${contest.id} and not disqualified
          order by random() limit 20000`,
    );

    // the seed's position deltas folded into the totals, as the every-minute job would have done
    await query(db, sql`select ce_fold_positions()`);
    await query(db, sql`analyze position_points`);
    await query(db, sql`analyze position_hours`);

    // entry tokens of the first, a middle and the last entry in the contest's order (GET /api/v1/me)
    const meTokens: Record<'first' | 'middle' | 'last', string> = { first: '', middle: '', last: '' };
    {
      const counting = sql`contest_id = ${contest.id} and email_confirmed and not disqualified and erased_at is null`;
      const total = Number(
        (await query<{ n: string }>(db, sql`select count(*) as n from entries where ${counting}`))[0]!.n,
      );
      const at: Record<keyof typeof meTokens, number> = { first: 0, middle: Math.floor(total / 2), last: total - 1 };
      for (const which of Object.keys(at) as (keyof typeof meTokens)[]) {
        const token = `et_${createHash('sha256').update(`${which}-${contest.id}`).digest('hex').slice(0, 40)}`;
        await query(
          db,
          sql`insert into entry_tokens (token_hash, entry_id)
              select ${createHash('sha256').update(token).digest('hex')}, id from entries where ${counting}
              order by points desc, created_at, id offset ${at[which]} limit 1`,
        );
        meTokens[which] = token;
      }
    }

    // ---------- server ----------
    child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
        '--import',
        'tsx',
        'bench/server.ts',
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: url,
          PORT: String(port),
          DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '10',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // BENCH_SERVER_FIFO=1 (a diagnostic, needs root): the server's event loop under SCHED_FIFO, so
    // it never waits for a core behind Postgres backends; shows how much of the gap to the own
    // floor is that wait (docs/design-decisions.md)
    if (process.env.BENCH_SERVER_FIFO) execFileSync('chrt', ['-f', '-p', '1', String(child.pid)]);
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('bench server ready')) resolve();
      });
      child!.on('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, path: string, key: string | null, body?: unknown, auth?: string) => {
      const res = await fetch(base + path, {
        method,
        headers: {
          ...(key ? { 'x-api-key': key } : {}),
          ...(auth ? { authorization: auth } : {}),
          'content-type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: res.status,
        roundTrips: Number(res.headers.get('x-round-trips')),
        body: (await res.json()) as any,
      };
    };

    // instant-win game with an unlimited prize, and pending wins to claim
    const game = await call('POST', '/api/v1/instant-win-games', priv, {
      slug: 'spin-to-win',
      title: 'Bench wheel',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'landing',
      tiers: [
        {
          name: '10% off',
          oddsPercent: 50,
          isMiss: false,
          color: '#16a34a',
          deliveryType: 'code',
          redeemCode: 'SAVE10',
        },
        { name: 'Try again', oddsPercent: 50, isMiss: true, color: '#9ca3af' },
      ],
    });
    if (game.status !== 201) throw new Error(`game create failed: ${JSON.stringify(game.body)}`);
    const gameId: string = game.body.data.id;
    const prizeTier = game.body.data.tiers.find((t: { isMiss: boolean }) => !t.isMiss).id as string;
    const claimCookie = 'benchcookie0123456789abcdefghijklmnop';
    const pendingCount = smoke ? 5_000 : quick ? 20_000 : 200_000;
    const pending = await query<{ id: string }>(
      db,
      sql`insert into instant_win_plays (game_id, tier_id, drawn_tier_id, status, random_value, cookie_hash, play_day, expires_at, created_at)
          select ${gameId}, ${prizeTier}, ${prizeTier}, 'pending', 1, ${await hashCookie(claimCookie)}, current_date, now() + interval '24 hours',
                 now() - interval '7 days' + (i * ${(7 * 86_400) / pendingCount}::float8) * interval '1 second'
          from generate_series(1, ${pendingCount}::int) i returning id`,
    );
    // statistics of the plays just made, as autovacuum would take them after a bulk insert (without,
    // the claim's plan scanned the game's 20,000 pending plays instead of taking one by its key)
    await query(db, sql`analyze instant_win_plays`);
    await h.close();

    // ---------- endpoints ----------
    let k = 0;
    const next = () => k++;
    const pick = <T>(a: T[]) => a[Math.floor(Math.random() * a.length)]!;
    const runTag = Date.now().toString(36);
    /** write: measured against its own floor too; ownFloor: a read measured against its own floor (docs/capacity.md uses it) */
    type Ep = {
      name: string;
      method: string;
      key: string | null;
      path: () => string;
      body?: () => unknown;
      write?: boolean;
      ownFloor?: boolean;
      /** an Authorization header (a visitor's entry token) */
      auth?: string;
    };
    const endpoints: Ep[] = [
      { name: 'floor (SELECT 1)', method: 'GET', key: null, path: () => '/bench/floor' },
      {
        name: 'write floor (INSERT)',
        method: 'POST',
        key: null,
        write: true,
        path: () => '/bench/write-floor',
        body: () => ({}),
      },
      {
        name: 'leaderboard',
        method: 'GET',
        key: pub,
        ownFloor: true,
        path: () => `/api/v1/contests/${contest.id}/leaderboard?limit=25`,
      },
      {
        // a person looked up by the local part of their email, as a support agent would
        name: 'entries search',
        method: 'GET',
        key: pub,
        path: () =>
          `/api/v1/contests/${contest.id}/entries?search=${encodeURIComponent(pick(sample).email.split('@')[0]!)}&limit=20`,
      },
      { name: 'analytics', method: 'GET', key: pub, path: () => `/api/v1/contests/${contest.id}/analytics` },
      { name: 'entry get', method: 'GET', key: pub, ownFloor: true, path: () => `/api/v1/entries/${pick(sample).id}` },
      // the visitor's own entry with its exact position: the first, a middle and the last in the order
      ...(['first', 'middle', 'last'] as const).map((which) => ({
        name: `me (${which} entry)`,
        method: 'GET',
        key: null,
        auth: `Bearer ${meTokens[which]}`,
        path: () => '/api/v1/me',
      })),
      {
        name: 'entry create (referral)',
        method: 'POST',
        key: priv,
        write: true,
        path: () => `/api/v1/contests/${contest.id}/entries`,
        body: () => ({
          email: `new-${runTag}-${next()}@example.com`,
          name: 'New',
          referralCode: pick(sample).referral_code,
        }),
      },
      // share-link visits, keyless: one referrer's code opened by everyone at once (a viral link),
      // and codes spread over the contest; neither may wait on a row another visit holds
      {
        name: 'visit (hot code)',
        method: 'POST',
        key: null,
        write: true,
        path: () => `/api/v1/contests/${contest.id}/visits`,
        body: () => ({ referralCode: sample[0]!.referral_code, channel: 'x' }),
      },
      {
        name: 'visit (spread codes)',
        method: 'POST',
        key: null,
        write: true,
        path: () => `/api/v1/contests/${contest.id}/visits`,
        body: () => ({ referralCode: pick(sample).referral_code, channel: 'whatsapp' }),
      },
      {
        name: 'bonus complete',
        method: 'POST',
        key: pub,
        write: true,
        path: () =>
          `/api/v1/entries/${sample[next() % sample.length]!.id}/bonus-actions/${actions[1 + (Math.floor(k / sample.length) % 4)]!.id}/complete`,
        body: () => ({}),
      },
      {
        name: 'purchase',
        method: 'POST',
        key: priv,
        write: true,
        path: () => `/api/v1/contests/${contest.id}/purchases`,
        body: () => ({ email: pick(sample).email, orderId: `order-${runTag}-${next()}`, amount: 19.99 }),
      },
      {
        name: 'instant-win play',
        method: 'POST',
        key: pub,
        write: true,
        path: () => `/api/v1/instant-win-games/${gameId}/play`,
        body: () => ({}),
      },
      {
        name: 'instant-win claim',
        method: 'POST',
        key: pub,
        write: true,
        path: () => `/api/v1/instant-win-games/${gameId}/plays/${pending[next() % pending.length]!.id}/claim`,
        body: () => ({ email: `winner-${runTag}-${k}@example.com`, playCookie: claimCookie }),
      },
      // the console's entries table: its filters and sorts over the whole contest, with exact totals
      {
        name: 'entries: review queue',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/entries?review=pending&limit=25`,
      },
      {
        name: 'entries: unconfirmed',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/entries?confirmed=false&limit=25`,
      },
      {
        name: 'entries: most points',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/entries?sort=points&limit=25`,
      },
      {
        name: 'entries: referred by',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/entries?referredBy=${pick(sample).id}&limit=25`,
      },
      {
        name: 'entries: referral code',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/entries?search=${pick(sample).referral_code}&limit=25`,
      },
      {
        name: 'contest series (48 hours)',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/series`,
      },
      {
        name: 'contest series (30 days)',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/series?interval=day`,
      },
      // the console's overview: the funnel of the last 30 days by day (the whole seeded history), of
      // 7 days, and of 24 hours by hour
      {
        name: 'funnel (30 days)',
        method: 'GET',
        key: priv,
        path: () => `/api/v1/contests/${contest.id}/funnel`,
      },
      {
        name: 'funnel (7 days)',
        method: 'GET',
        key: priv,
        path: () =>
          `/api/v1/contests/${contest.id}/funnel?from=${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}`,
      },
      {
        name: 'funnel (24 hours)',
        method: 'GET',
        key: priv,
        path: () =>
          `/api/v1/contests/${contest.id}/funnel?interval=hour&from=${new Date(Date.now() - 23 * 3_600_000).toISOString()}`,
      },
      {
        name: 'game series (7 days)',
        method: 'GET',
        key: priv,
        path: () =>
          `/api/v1/instant-win-games/${gameId}/series?interval=day&from=${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}`,
      },
    ].filter((ep) => !only || only.split(',').some((w) => ep.name.includes(w)) || ep.name.includes('floor'));

    // the time series' first read counts the whole history once (src/analytics/series.ts); timed here, then warm in the load
    for (const path of [
      `/api/v1/contests/${contest.id}/series?interval=day`,
      `/api/v1/instant-win-games/${gameId}/series?interval=day`,
    ]) {
      const t0 = performance.now();
      const r = await call('GET', path, priv);
      log(
        `  ${path.split('?')[0]!.split('/')[3]} series, first read (counts the history once): ${(performance.now() - t0).toFixed(0)} ms, ${r.status}`,
      );
    }

    // round trips, from sequential requests
    const trips: Record<string, { roundTrips: number; status: number }> = {};
    for (const ep of endpoints) {
      const r = await call(ep.method, ep.path(), ep.key, ep.body?.(), ep.auth);
      trips[ep.name] = { roundTrips: r.roundTrips, status: r.status };
      if (r.status >= 400) log(`  ! ${ep.name} answered ${r.status}: ${JSON.stringify(r.body)}`);
    }

    // load
    const results: Record<string, unknown>[] = [];
    let floorRps = 0;
    let writeFloorRps = 0;
    const load = (ep: Ep, conns: number, seconds: number) =>
      autocannon({
        url: base,
        connections: conns,
        duration: seconds,
        requests: [
          {
            method: ep.method as 'GET',
            setupRequest: ((req: Record<string, unknown>) => ({
              ...req,
              path: ep.path(),
              headers: {
                ...(ep.key ? { 'x-api-key': ep.key } : {}),
                ...(ep.auth ? { authorization: ep.auth } : {}),
                'content-type': 'application/json',
              },
              body: ep.body ? JSON.stringify(ep.body()) : undefined,
            })) as never,
          },
        ],
      });
    // CHECKPOINT needs a superuser (or pg_checkpoint): on a server where the bench's role has
    // neither, the measurements run without it, and the bench says so once
    let checkpointRefused = false;
    const checkpoint = async () => {
      if (checkpointRefused) return;
      await admin.query('checkpoint').catch((e: unknown) => {
        checkpointRefused = true;
        log(`  (no CHECKPOINT before each measurement: ${String(e).slice(0, 200)})`);
      });
    };
    /**
     * An endpoint's own floor: the statements it sends (captured by a dry run of the app over
     * fresh inputs from the same generator: new emails, order ids, entries not yet completed,
     * pending plays not yet claimed), replayed straight from pg with the same concurrency and
     * the same named prepared statements, each once. What the endpoint adds on top (HTTP,
     * routing, validation, JSON, hashing the key) is the gap between the two.
     */
    const ownFloor = async (ep: Ep) => {
      const count = smoke ? 300 : quick ? 3000 : Math.max(20_000, duration * 3000);
      const stmts: { name?: string; text: string; values: unknown[] }[] = [];
      for (let done = 0; done < count; done += 2000) {
        const reqs = Array.from({ length: Math.min(2000, count - done) }, () => ({
          method: ep.method,
          path: ep.path(),
          headers: {
            ...(ep.key ? { 'x-api-key': ep.key } : {}),
            ...(ep.auth ? { authorization: ep.auth } : {}),
            'content-type': 'application/json',
          },
          body: ep.body ? JSON.stringify(ep.body()) : undefined,
        }));
        const res = await fetch(`${base}/bench/dry`, {
          method: 'POST',
          body: JSON.stringify(reqs),
          headers: { 'content-type': 'application/json' },
        });
        stmts.push(...((await res.json()) as typeof stmts));
      }
      const pool = new pg.Pool({ connectionString: url, max: connections });
      await checkpoint();
      let next = 0;
      let ok = 0;
      let failed = 0;
      const started = Date.now();
      const end = started + duration * 1000;
      const meter = cpuMeter(undefined);
      await Promise.all(
        Array.from({ length: connections }, async () => {
          const client = await pool.connect();
          try {
            while (Date.now() < end && next < stmts.length) {
              const st = stmts[next++]!;
              try {
                await client.query({ name: st.name, text: st.text, values: st.values });
                ok++;
              } catch (e) {
                if (failed++ === 0) log(`  (${ep.name}: own floor: first failure: ${String(e).slice(0, 300)})`);
              }
            }
          } finally {
            client.release();
          }
        }),
      );
      const secs = (Date.now() - started) / 1000;
      const cpu = meter(ok);
      await pool.end();
      if (next >= stmts.length)
        log(`  (${ep.name}: own floor ran out of captured statements after ${secs.toFixed(1)} s)`);
      return { rps: ok / secs, failed, statements: stmts.length, pgMs: cpu.pgMs };
    };

    for (const ep of endpoints) {
      // latency of one request at a time (no queueing), then throughput under `connections`
      // each measurement starts after a checkpoint: one landing inside it (the seed wrote a
      // million rows; Postgres checkpoints every 5 minutes) writes back dirty pages meanwhile and
      // makes the next writes log whole pages, which the other measurements would not pay
      await checkpoint();
      const single = await load(ep, 1, Math.max(1, Math.round(duration / 2)));
      const meter = cpuMeter(child?.pid);
      const res = await load(ep, connections, duration);
      const cpu = meter(res.requests.total);
      const rps = res.requests.average;
      const own =
        (ep.write || ep.ownFloor) && !ep.name.startsWith('floor') && !ep.name.startsWith('write floor')
          ? await ownFloor(ep)
          : undefined;
      if (ep.name.startsWith('floor')) floorRps = rps;
      if (ep.name.startsWith('write floor')) writeFloorRps = rps;
      const row = {
        endpoint: ep.name,
        rps: Math.round(rps),
        ratio: floorRps ? Number((rps / floorRps).toFixed(2)) : null,
        ratioWriteFloor: ep.write && writeFloorRps ? Number((rps / writeFloorRps).toFixed(2)) : null,
        ownFloorRps: own ? Math.round(own.rps) : null,
        ratioOwnFloor: own ? Number((rps / own.rps).toFixed(2)) : null,
        ownFloorErrors: own?.failed ?? null,
        p50single: single.latency.p50,
        p50: res.latency.p50,
        p99: res.latency.p99,
        errors: res.non2xx + res.errors + res.timeouts + single.non2xx + single.errors + single.timeouts,
        roundTrips: trips[ep.name]!.roundTrips,
        write: !!ep.write,
        // CPU per request under load (bench/cpu.ts): the app server, Postgres, the load generator; idle share of the machine
        appCpuMs: cpu.appMs === null ? null : Number(cpu.appMs.toFixed(2)),
        pgCpuMs: cpu.pgMs === null ? null : Number(cpu.pgMs.toFixed(2)),
        loadCpuMs: Number(cpu.loadMs.toFixed(2)),
        idlePct: cpu.idle === null ? null : Math.round(cpu.idle * 100),
        // the app's event loop: share of the time running, and runnable but waiting for a core
        appThreadOnCpuPct: cpu.appThread ? Math.round(cpu.appThread.onCpu * 100) : null,
        appThreadWaitingPct: cpu.appThread ? Math.round(cpu.appThread.waiting * 100) : null,
        ownFloorPgCpuMs: own?.pgMs == null ? null : Number(own.pgMs.toFixed(2)),
      };
      results.push(row);
      log(
        `  ${ep.name}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, p50 one at a time ${row.p50single} ms, errors ${row.errors}` +
          (own
            ? `; its own statements straight from pg: ${row.ownFloorRps} req/s (x ${row.ratioOwnFloor}, ${own.failed} failed, Postgres ${row.ownFloorPgCpuMs ?? '?'} ms CPU each)`
            : '') +
          `; CPU per request: app ${row.appCpuMs ?? '?'} ms, Postgres ${row.pgCpuMs ?? '?'} ms, load generator ${row.loadCpuMs} ms, machine ${row.idlePct ?? '?'}% idle; the app's event loop ran ${row.appThreadOnCpuPct ?? '?'}% of the time and waited for a core ${row.appThreadWaitingPct ?? '?'}%`,
      );
    }

    const pad = (s: unknown, n: number) => String(s).padEnd(n);
    const lines = [
      `\nContest Engine bench: ${N.toLocaleString()} entries, ${connections} connections, ${duration} s per endpoint${smoke ? ' (smoke: numbers meaningless)' : quick ? ' (quick)' : ''}`,
      `${pad('endpoint', 26)}${pad('req/s', 9)}${pad('x floor', 9)}${pad('x wfloor', 10)}${pad('own flr', 9)}${pad('x own', 7)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('p50 1c', 8)}${pad('errors', 8)}${pad('trips', 7)}${pad('app cpu', 9)}${pad('pg cpu', 8)}${pad('idle', 6)}loop run/wait`,
      ...results.map(
        (r) =>
          `${pad(r.endpoint, 26)}${pad(r.rps, 9)}${pad(r.ratio, 9)}${pad(r.ratioWriteFloor ?? '', 10)}${pad(r.ownFloorRps ?? '', 9)}${pad(r.ratioOwnFloor ?? '', 7)}${pad(r.p50, 8)}${pad(r.p99, 8)}${pad(r.p50single, 8)}${pad(r.errors, 8)}${pad(r.roundTrips, 7)}${pad(r.appCpuMs ?? '', 9)}${pad(r.pgCpuMs ?? '', 8)}${pad(r.idlePct == null ? '' : `${r.idlePct}%`, 6)}${r.appThreadOnCpuPct == null ? '' : `${r.appThreadOnCpuPct}/${r.appThreadWaitingPct}%`}`,
      ),
    ];
    console.log(lines.join('\n'));
    mkdirSync('bench', { recursive: true });
    writeFileSync(
      'bench/results.json',
      JSON.stringify({ date: new Date().toISOString(), entries: N, connections, duration, quick, results }, null, 2),
    );
    log(`\nwrote bench/results.json (total ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    // getting data out (bench/data-out.ts): CSV export of N entries (s, peak RSS) and event throughput
    if (!args.includes('--no-data-out')) {
      const { dataOutBench } = await import('./data-out.js');
      await dataOutBench({ entries: N, events: smoke ? 300 : quick ? 2000 : 20_000, baseUrl, port: port + 1, log });
    }
    // --admit (bench/admit.ts): a waitlist of N entries lets 10,000 in, twice, through the app
    if (args.includes('--admit')) {
      const { admitBench } = await import('./admit.js');
      await admitBench({ entries: N, count: Math.min(10_000, Math.floor(N / 4)), baseUrl, port: port + 2, log });
    }
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (keep) log(`kept database ${dbName}`);
    else await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

/** --draw: commit and reveal over the whole contest, then the snapshot read back page by page. */
async function benchDraws(db: Parameters<typeof createDraw>[0], teamId: string, contestId: string) {
  const team = teamById(teamId);
  const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(2);
  const lines: string[] = [];
  for (const weighting of ['equal', 'points'] as const) {
    let t = performance.now();
    const d = await createDraw(
      db,
      cryptoRandom,
      team,
      contestId,
      { winners: 100, weighting, confirmedOnly: false, minPoints: 0, excludePreviousWinners: false, label: null },
      new Date(),
    );
    const commit = secs(t);
    t = performance.now();
    const revealed = await revealDraw(db, team, d.id, 'bench public randomness', new Date());
    const reveal = secs(t);
    t = performance.now();
    const hash = createHash('sha256').update(SNAPSHOT_HEADER);
    let after = -1;
    let pages = 0;
    for (;;) {
      const page = await snapshotPage(db, team, d.id, after, SNAPSHOT_PAGE_BYTES);
      hash.update(page.text);
      pages++;
      after = page.last;
      if (!page.more) break;
    }
    const same = hash.digest('hex') === d.snapshotHash;
    lines.push(
      `draw (${weighting}): ${d.eligibleCount.toLocaleString()} eligible, total weight ${d.totalWeight.toLocaleString()}: commit ${commit} s, reveal of ${revealed.results.length} winners ${reveal} s; snapshot CSV ${pages} pages in ${secs(t)} s, hash ${same ? 'matches' : 'DIFFERS'}`,
    );
    log(lines.at(-1));
  }
  mkdirSync('bench', { recursive: true });
  writeFileSync(
    'bench/draw-results.json',
    JSON.stringify({ date: new Date().toISOString(), entries: N, lines }, null, 2),
  );
}

const run = args.includes('--explain')
  ? explainWrites(withDb(baseUrl, arg('explain') ?? ''), log, Number(arg('runs') ?? 200)).then((r) => {
      writeFileSync(
        'bench/explain-results.json',
        JSON.stringify({ date: new Date().toISOString(), results: r }, null, 2),
      );
      log('wrote bench/explain-results.json');
    })
  : args.includes('--bodies')
    ? bodiesBench({ baseUrl, samples: Number(arg('samples') ?? 20), log }).then((r) => {
        writeFileSync(
          'bench/bodies-results.json',
          JSON.stringify({ date: new Date().toISOString(), results: r }, null, 2),
        );
        log('wrote bench/bodies-results.json');
      })
    : args.includes('--call-cost')
      ? callCostBench({ baseUrl, samples: Number(arg('samples') ?? 1000), log }).then((r) => {
          writeFileSync(
            'bench/call-cost-results.json',
            JSON.stringify({ date: new Date().toISOString(), results: r }, null, 2),
          );
          log('wrote bench/call-cost-results.json');
        })
      : args.includes('--pg-cost')
        ? pgCostBench({ baseUrl, samples: Number(arg('samples') ?? (quick ? 30 : 300)), only, log }).then((r) => {
            writeFileSync(
              'bench/pg-cost-results.json',
              JSON.stringify({ date: new Date().toISOString(), results: r }, null, 2),
            );
            log('wrote bench/pg-cost-results.json');
          })
        : args.includes('--edge') || args.includes('--edge-cache')
          ? edgeBench({
              baseUrl,
              samples: Number(arg('samples') ?? (quick ? 5 : 15)),
              log,
              cacheOnly: args.includes('--edge-cache'),
              connections: Number(arg('connections') ?? 50),
              seconds: Number(arg('duration') ?? 20),
            }).then((r) => {
              writeFileSync(
                'bench/edge-results.json',
                JSON.stringify({ date: new Date().toISOString(), results: r }, null, 2),
              );
              log('wrote bench/edge-results.json');
            })
          : main();
run.catch((e) => {
  console.error(e);
  process.exit(1);
});
