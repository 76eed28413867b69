import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { verifyDraw } from '../../scripts/verify-draw.js';
import {
  a,
  addEntries,
  b,
  draw,
  env,
  MISSING,
  replace,
  reveal,
  sha256,
  snapshotCsv,
  snapshotOf,
  state,
  uuidN,
} from '../../test/support/fixtures/draws.js';
import { createApiKey } from '../admin/admin.js';
import { query } from '../db/client.js';
import { cryptoRandom } from '../deps.js';

describe('eligibility', () => {
  it('filters: disqualified, unconfirmed, minPoints, zero points with points weighting; frozen at commit', async () => {
    const c = await env.contest(a.teamId);
    const ok1 = uuidN(1, 'e');
    const ok2 = uuidN(2, 'e');
    const dq = uuidN(3, 'e');
    const unconf = uuidN(4, 'e');
    const low = uuidN(5, 'e');
    const zero = uuidN(6, 'e');
    await addEntries(c.id, [
      { id: ok1, points: 10 },
      { id: ok2, points: 4 },
      { id: dq, points: 50, disqualified: true },
      { id: unconf, points: 9, confirmed: false },
      { id: low, points: 1 },
      { id: zero, points: 0 },
    ]);
    const ids = async (body: Record<string, unknown>) =>
      (await snapshotOf((await draw(c.id, { excludePreviousWinners: false, ...body })).body.data.id)).rows.map(
        (r) => r.id,
      );
    expect(await ids({})).toEqual([ok1, ok2, low, zero].sort());
    expect(await ids({ confirmedOnly: false })).toEqual([ok1, ok2, unconf, low, zero].sort());
    expect(await ids({ minPoints: 4 })).toEqual([ok1, ok2].sort());
    expect(await ids({ weighting: 'points' })).toEqual([ok1, ok2, low].sort());
    // frozen: an entry disqualified after the commit stays in the snapshot and may be picked
    const d = (await draw(c.id, { winners: 100, excludePreviousWinners: false })).body.data;
    await query(env.db, sql`update entries set disqualified = true where id = ${ok1}`);
    const revealed = (await reveal(d.id)).body.data;
    expect(revealed.results.map((r: { entryId: string }) => r.entryId).sort()).toEqual([ok1, ok2, low, zero].sort());
    expect(await ids({})).toEqual([ok2, low, zero].sort());
  });

  it('excludePreviousWinners: current winners of draws revealed before the commit are left out (replaced ones come back)', async () => {
    const c = await env.contest(a.teamId);
    const list = [uuidN(1, 'f'), uuidN(2, 'f'), uuidN(3, 'f'), uuidN(4, 'f')];
    await addEntries(
      c.id,
      list.map((id) => ({ id })),
    );
    const first = (await draw(c.id, { winners: 2 })).body.data;
    const committedBefore = (await draw(c.id, { winners: 1 })).body.data; // committed before the reveal
    const won = (await reveal(first.id)).body.data.results.map((r: { entryId: string }) => r.entryId) as string[];
    expect(committedBefore.eligibleCount).toBe(4);
    const second = (await draw(c.id, { winners: 4 })).body.data;
    expect(second.eligibleCount).toBe(2);
    expect((await snapshotOf(second.id)).rows.map((r) => r.id)).toEqual(list.filter((id) => !won.includes(id)));
    expect((await draw(c.id, { excludePreviousWinners: false })).body.data.eligibleCount).toBe(4);
    // a replaced winner is no longer a current winner
    const rep = (await replace(first.id, won[0]!)).body.data;
    const now = rep.results
      .filter((r: { replaced: boolean }) => !r.replaced)
      .map((r: { entryId: string }) => r.entryId) as string[];
    const third = (await draw(c.id)).body.data;
    expect((await snapshotOf(third.id)).rows.map((r) => r.id)).toEqual(list.filter((id) => !now.includes(id)));
    // another contest's winners do not count
    const other = await env.contest(a.teamId);
    await addEntries(other.id, [{ id: uuidN(9, 'f') }]);
    expect((await draw(other.id)).body.data.eligibleCount).toBe(1);
  });
});

describe('erasure, masked keys, the draw.revealed event', () => {
  it('an erased entry is not eligible; erased after the commit it stays in the snapshot, and as a winner shows no email or name', async () => {
    const c = await env.contest(a.teamId);
    const [x, y, z] = [uuidN(1, 'a9'), uuidN(2, 'a9'), uuidN(3, 'a9')];
    await addEntries(c.id, [
      { id: x, email: 'xavier@example.com', name: 'Xavier Lane' },
      { id: y, email: 'yara@example.com', name: 'Yara Holt' },
      { id: z, email: 'zoe@example.com', name: 'Zoe Park' },
    ]);
    const erase = async (id: string) =>
      expect((await env.request('DELETE', `/api/v1/entries/${id}`, { key: a.privateKey })).status).toBe(200);
    await erase(z);
    const d = (await draw(c.id, { winners: 2, excludePreviousWinners: false })).body.data;
    expect(d.eligibleCount).toBe(2);
    const before = (await snapshotOf(d.id)).text;
    expect(before).toBe(
      `entry_id,weight,email_sha256\n${x},1,${sha256('xavier@example.com')}\n${y},1,${sha256('yara@example.com')}\n`,
    );
    await erase(x);
    const r = (await reveal(d.id)).body.data;
    // both remaining lines are picked (two winners); the erased one shows null email and name
    const byId = Object.fromEntries(r.results.map((w: { entryId: string }) => [w.entryId, w]));
    expect(byId[x]).toMatchObject({ email: null, name: null, weight: 1, replaced: false });
    expect(byId[y]).toMatchObject({ email: 'yara@example.com', name: 'Yara Holt' });
    // the published snapshot still has the erased entry's line and hash: snapshotHash still holds
    expect((await snapshotOf(d.id)).text).toBe(before);
    expect(sha256(before)).toBe(d.snapshotHash);
    expect((await draw(c.id, { excludePreviousWinners: false })).body.data.eligibleCount).toBe(1);
  });

  it('a masked public key sees the winners masked (the draw otherwise unchanged); a full key sees them whole', async () => {
    const c = await env.contest(a.teamId);
    const id = uuidN(1, 'a8');
    await addEntries(c.id, [{ id, email: 'marguerite@example.com', name: 'Marguerite Anne Duval' }]);
    const d = (await draw(c.id, { excludePreviousWinners: false })).body.data;
    await reveal(d.id);
    const masked = (await createApiKey(env.db, cryptoRandom, a.teamId, 'public', 'page', 'masked')).key;
    const full = await env.request('GET', `/api/v1/draws/${d.id}`, { key: a.publicKey });
    const seen = await env.request('GET', `/api/v1/draws/${d.id}`, { key: masked });
    expect(full.body.data.results[0]).toMatchObject({
      entryId: id,
      email: 'marguerite@example.com',
      name: 'Marguerite Anne Duval',
    });
    expect(seen.status).toBe(200);
    expect(seen.body.data).toEqual({
      ...full.body.data,
      results: [{ ...full.body.data.results[0], email: 'm***@example.com', name: 'Marguerite D.' }],
    });
    // the snapshot has no personal data beyond the email hash: the same bytes for both keys
    expect((await snapshotCsv(d.id, masked)).text).toBe((await snapshotCsv(d.id)).text);
  });

  it('the reveal records one draw.revealed event with the draw (drawId, seed, winners) in the same transaction; a refused reveal records none', async () => {
    const team = await env.team('events');
    const sent: { type: string; contestId: string; data: Record<string, unknown> }[] = [];
    const saved = env.deps.fetch;
    env.deps.fetch = async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)));
      return new Response('ok');
    };
    try {
      const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
        key: team.privateKey,
        body: { url: 'https://hooks.example.test/draws', events: ['draw.revealed'] },
      });
      expect(ep.status, JSON.stringify(ep.body)).toBe(201);
      const c = await env.contest(team.teamId);
      await addEntries(c.id, [
        { id: uuidN(1, 'a7'), email: 'wendy@example.com', name: 'Wendy Ng' },
        { id: uuidN(2, 'a7') },
      ]);
      const d = (await draw(c.id, { winners: 1, label: 'A bike' }, team.privateKey)).body.data;
      const r = await reveal(d.id, { publicRandomness: 'drand 123' }, team.privateKey);
      expect(r.status).toBe(200);
      expect((await reveal(d.id, {}, team.privateKey)).status).toBe(409);
      await env.settle();
      const events = await query<{ type: string; contest_id: string; data: Record<string, unknown> }>(
        env.db,
        sql`select type, contest_id, data from events where team_id = ${team.teamId} order by created_at`,
      );
      const { id: drawId, ...rest } = r.body.data;
      expect(events).toEqual([{ type: 'draw.revealed', contest_id: c.id, data: { drawId, ...rest } }]);
      expect(sent).toMatchObject([{ type: 'draw.revealed', contestId: c.id, data: { drawId, ...rest } }]);
    } finally {
      env.deps.fetch = saved;
    }
  });
});

describe('errors, statuses, scoping', () => {
  it('every refusal answers its status and message and changes nothing', async () => {
    const c = await env.contest(a.teamId);
    const empty = await env.contest(a.teamId);
    const ids = [uuidN(1, 'a1'), uuidN(2, 'a1')];
    await addEntries(
      c.id,
      ids.map((id) => ({ id })),
    );
    const d = (await draw(c.id, { winners: 1 })).body.data;
    const before = await state();
    const cases: [Promise<{ status: number; body: unknown }>, number, string][] = [
      [draw(MISSING), 404, 'Contest not found'],
      [draw('not-a-uuid'), 404, 'Contest not found'],
      [draw(c.id, {}, b.privateKey), 404, 'Contest not found'],
      [draw(empty.id), 409, 'No eligible entries'],
      [draw(c.id, {}, a.publicKey), 403, 'This endpoint requires a private API key'],
      [draw(c.id, { winners: 0 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { winners: 101 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { winners: 1.5 }), 400, 'winners must be an integer between 1 and 100'],
      [draw(c.id, { weighting: 'votes' }), 400, 'weighting must be equal or points'],
      [draw(c.id, { confirmedOnly: 'yes' }), 400, 'confirmedOnly must be true or false'],
      [draw(c.id, { minPoints: -1 }), 400, 'minPoints must be an integer >= 0'],
      [draw(c.id, { excludePreviousWinners: 1 }), 400, 'excludePreviousWinners must be true or false'],
      [draw(c.id, { label: 'x'.repeat(201) }), 400, 'label must be at most 200 characters'],
      [reveal(MISSING), 404, 'Draw not found'],
      [reveal('nope'), 404, 'Draw not found'],
      [reveal(d.id, {}, b.privateKey), 404, 'Draw not found'],
      [reveal(d.id, {}, a.publicKey), 403, 'This endpoint requires a private API key'],
      [reveal(d.id, { publicRandomness: '' }), 400, 'publicRandomness must be 1 to 512 printable ASCII characters'],
      [
        reveal(d.id, { publicRandomness: 'x'.repeat(513) }),
        400,
        'publicRandomness must be 1 to 512 printable ASCII characters',
      ],
      [
        reveal(d.id, { publicRandomness: 'tab\there' }),
        400,
        'publicRandomness must be 1 to 512 printable ASCII characters',
      ],
      [reveal(d.id, { publicRandomness: 'café' }), 400, 'publicRandomness must be 1 to 512 printable ASCII characters'],
      [replace(d.id, ids[0]!), 409, 'Draw is not revealed'],
      [replace(d.id, 'not-an-entry'), 409, 'Draw is not revealed'],
      [replace(d.id, ids[0]!, {}), 400, 'reason is required'],
      [replace(d.id, ids[0]!, { reason: '' }), 400, 'reason must be 1 to 500 characters'],
      [replace(d.id, ids[0]!, { reason: 'x'.repeat(501) }), 400, 'reason must be 1 to 500 characters'],
      [replace(MISSING, ids[0]!), 404, 'Draw not found'],
      [replace(d.id, ids[0]!, undefined, b.privateKey), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${d.id}`, { key: b.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${MISSING}`, { key: a.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/${d.id}/snapshot`, { key: b.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/draws/x/snapshot`, { key: a.publicKey }), 404, 'Draw not found'],
      [env.request('GET', `/api/v1/contests/${c.id}/draws`, { key: b.privateKey }), 404, 'Contest not found'],
      [
        env.request('GET', `/api/v1/contests/${c.id}/draws`, { key: a.publicKey }),
        403,
        'This endpoint requires a private API key',
      ],
      [
        env.request('GET', `/api/v1/contests/${c.id}/draws?limit=0`, { key: a.privateKey }),
        400,
        'limit must be between 1 and 100',
      ],
      [env.request('GET', `/api/v1/draws/${d.id}`, {}), 401, 'Missing or invalid API key'],
    ];
    for (const [p, status, error] of cases) {
      const r = await p;
      expect([r.status, r.body]).toEqual([status, { success: false, error }]);
    }
    expect(await state()).toEqual(before);
    // revealed: again is refused; winner checks; no entry left
    const revealed = (await reveal(d.id)).body.data;
    const after = await state();
    for (const [p, status, error] of [
      [reveal(d.id), 409, 'Draw already revealed'],
      [replace(d.id, MISSING), 404, 'Winner not found'],
      [replace(d.id, 'not-a-uuid'), 404, 'Winner not found'],
      [replace(d.id, ids.find((x) => x !== revealed.results[0].entryId)!), 404, 'Winner not found'],
    ] as const) {
      const r = await p;
      expect([r.status, r.body]).toEqual([status, { success: false, error }]);
    }
    expect(await state()).toEqual(after);
    const once = (await replace(d.id, revealed.results[0].entryId)).body.data;
    expect(once.results).toHaveLength(2);
    const twice = await replace(d.id, revealed.results[0].entryId);
    expect([twice.status, twice.body]).toEqual([404, { success: false, error: 'Winner not found' }]);
    const beforeLast = await state();
    const last = await replace(d.id, once.results[1].entryId);
    expect([last.status, last.body]).toEqual([409, { success: false, error: 'No eligible entries' }]);
    expect(await state()).toEqual(beforeLast);
  });

  it('get (public key), list (private, newest first, paginated)', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(c.id, [{ id: uuidN(1, 'b2') }]);
    const made = [];
    for (let i = 0; i < 3; i++) {
      env.clock.advance(1000);
      made.push((await draw(c.id, { label: `prize ${i}`, excludePreviousWinners: false })).body.data);
    }
    const got = await env.request('GET', `/api/v1/draws/${made[0].id}`, { key: a.publicKey });
    expect([got.status, got.body]).toEqual([200, { success: true, data: made[0] }]);
    const list = await env.request('GET', `/api/v1/contests/${c.id}/draws?limit=2`, { key: a.privateKey });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(list.body.data).toEqual([made[2], made[1]]);
    const p2 = await env.request('GET', `/api/v1/contests/${c.id}/draws?limit=2&page=2`, { key: a.privateKey });
    expect(p2.body.data).toEqual([made[0]]);
    expect(p2.body.data[0].seed).toBeNull();
  });
});

describe('snapshot CSV', () => {
  it('streams in keyset pages: 45,000 lines, hash of the whole body = snapshotHash', async () => {
    const c = await env.contest(a.teamId);
    await query(
      env.db,
      sql`insert into entries (contest_id, email, referral_code, points, email_confirmed)
          select ${c.id}::uuid, 'bulk' || g || '@example.com', 'BULK' || replace(${c.id}::text, '-', '') || g, g % 5, true
          from generate_series(1, 45000) g`,
    );
    const d = (await draw(c.id, { weighting: 'points' })).body.data;
    expect(d.eligibleCount).toBe(36000);
    const snap = await snapshotCsv(d.id);
    const lines = snap.text.split('\n');
    expect(lines).toHaveLength(36002);
    expect(lines[36001]).toBe('');
    expect(sha256(snap.text)).toBe(d.snapshotHash);
    const rows = lines.slice(1, -1);
    expect(rows.every((l, i) => i === 0 || l > rows[i - 1]!)).toBe(true);
    expect(rows[0]).toMatch(/^[0-9a-f-]{36},[1-4],[0-9a-f]{64}$/);
  }, 120_000);
});

describe('the verifier script', () => {
  it('confirms a real draw and catches a tampered one', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(
      c.id,
      Array.from({ length: 25 }, (_, i) => ({ id: crypto.randomUUID(), points: 1 + (i % 4) })),
    );
    const d = (await draw(c.id, { winners: 3, weighting: 'points' })).body.data;
    await reveal(d.id, { publicRandomness: 'drand round 123' });
    const rep = (
      await replace(
        d.id,
        (
          await env.request('GET', `/api/v1/draws/${d.id}`, { key: a.publicKey })
        ).body.data.results[1].entryId,
      )
    ).body.data;
    const server = serve({ fetch: env.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const good = await verifyDraw(base, d.id, a.publicKey);
      expect(good.ok, good.difference).toBe(true);
      expect(good.log.filter((l) => /^position \d: .* OK \(u_\d+\)$/.test(l))).toHaveLength(4);
      // tampered: a winner swapped for another entry of the snapshot
      const other = (await snapshotOf(d.id)).rows.find(
        (r) => !rep.results.some((x: { entryId: string }) => x.entryId === r.id),
      )!.id;
      await query(env.db, sql`update draw_results set entry_id = ${other} where draw_id = ${d.id} and position = 2`);
      const bad = await verifyDraw(base, d.id, a.publicKey);
      expect(bad.ok).toBe(false);
      expect(bad.difference).toMatch(/^position 2: the algorithm picks [0-9a-f-]{36}, the draw shows /);
    } finally {
      server.close();
    }
  });
});
