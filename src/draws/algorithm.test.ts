import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { drawPicks, u64 } from '../../test/support/fairness.js';
import {
  a,
  addEntries,
  draw,
  type E,
  env,
  FIXED_SNAPSHOT_HASH,
  FIXED_WINNERS,
  replace,
  reveal,
  seedQueue,
  sha256,
  snapshotCsv,
  snapshotOf,
  TWO64,
} from '../../test/support/fixtures/draws.js';
import { query, queryOne } from '../db/client.js';

describe('fixed vector', () => {
  it('seed 00..1f, four entries, public randomness: the published CSV, hashes and winners', async () => {
    const c = await env.contest(a.teamId);
    await addEntries(c.id, [
      { id: 'c0000000-0000-4000-8000-000000000003', email: 'carol@example.com', points: 5 },
      { id: 'a0000000-0000-4000-8000-000000000001', email: 'ann@example.com', points: 1 },
      { id: 'b0000000-0000-4000-8000-000000000002', email: null, phone: '+15550100', points: 2 },
      { id: 'd0000000-0000-4000-8000-000000000004', email: 'dan@example.com', points: 3 },
    ]);
    seedQueue.push(Uint8Array.from({ length: 32 }, (_, i) => i));
    const created = await draw(c.id, { winners: 2, weighting: 'points', label: 'Grand prize' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const csv =
      'entry_id,weight,email_sha256\n' +
      `a0000000-0000-4000-8000-000000000001,1,${sha256('ann@example.com')}\n` +
      'b0000000-0000-4000-8000-000000000002,2,\n' +
      `c0000000-0000-4000-8000-000000000003,5,${sha256('carol@example.com')}\n` +
      `d0000000-0000-4000-8000-000000000004,3,${sha256('dan@example.com')}\n`;
    expect(sha256('ann@example.com')).toBe('71d4f55f72fa128dfb468a1a3901507c804b74316488744d769d7f4b16696476');
    const snap = await snapshotCsv(created.body.data.id);
    expect(snap.status).toBe(200);
    expect(snap.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(snap.text).toBe(csv);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      contestId: c.id,
      label: 'Grand prize',
      status: 'committed',
      winners: 2,
      weighting: 'points',
      confirmedOnly: true,
      minPoints: 0,
      excludePreviousWinners: true,
      eligibleCount: 4,
      totalWeight: 11,
      snapshotHash: sha256(csv),
      seedHash: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
      seed: null,
      publicRandomness: null,
      createdAt: expect.any(String),
      revealedAt: null,
      notifyWinners: false,
      results: [],
    });
    expect(sha256(csv)).toBe(FIXED_SNAPSHOT_HASH);
    const r = await reveal(created.body.data.id, { publicRandomness: 'drand 1234: 5f2c' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      status: 'revealed',
      seed: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
      publicRandomness: 'drand 1234: 5f2c',
      revealedAt: expect.any(String),
    });
    expect(r.body.data.results.map((x: { entryId: string }) => x.entryId)).toEqual(FIXED_WINNERS);
    expect(r.body.data.results[0]).toEqual({
      position: 1,
      entryId: FIXED_WINNERS[0],
      email: expect.anything(),
      name: null,
      weight: expect.any(Number),
      replaced: false,
      replacedReason: null,
    });
    // the same through the reference implementation
    const snapshot = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => ({ id: l.split(',')[0]!, weight: BigInt(l.split(',')[1]!) }));
    expect(
      drawPicks(
        snapshot,
        Uint8Array.from({ length: 32 }, (_, i) => i),
        sha256(csv),
        'drand 1234: 5f2c',
        2,
      ).map((x) => x.id),
    ).toEqual(FIXED_WINNERS);
    // replacing the first winner continues the stream: u_2 picks c...3
    const rep = await replace(created.body.data.id, FIXED_WINNERS[0]!, { reason: 'Prize declined' });
    expect(rep.status, JSON.stringify(rep.body)).toBe(200);
    expect(
      rep.body.data.results.map((x: Record<string, unknown>) => [
        x.position,
        x.entryId,
        x.weight,
        x.replaced,
        x.replacedReason,
      ]),
    ).toEqual([
      [1, 'd0000000-0000-4000-8000-000000000004', 3, true, 'Prize declined'],
      [2, 'b0000000-0000-4000-8000-000000000002', 2, false, null],
      [3, 'c0000000-0000-4000-8000-000000000003', 5, false, null],
    ]);
    // the phone-only winner shows no email; the others theirs
    expect(rep.body.data.results[1].email).toBeNull();
    expect(rep.body.data.results[2].email).toBe('carol@example.com');
  });
});

describe('the algorithm against the reference implementation', () => {
  it('equal and points weighting, many winners, with and without public randomness', async () => {
    const c = await env.contest(a.teamId);
    const list: E[] = [];
    for (let i = 0; i < 60; i++) list.push({ id: crypto.randomUUID(), points: (i * 7) % 13 });
    await addEntries(c.id, list);
    for (const [weighting, pr, winners] of [
      ['equal', null, 10],
      ['points', 'round 42', 25],
      ['points', null, 100],
    ] as const) {
      const created = await draw(c.id, { weighting, winners, excludePreviousWinners: false });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const eligible = list.filter((e) => weighting === 'equal' || (e.points ?? 0) > 0);
      expect(created.body.data.eligibleCount).toBe(eligible.length);
      expect(created.body.data.totalWeight).toBe(
        weighting === 'equal' ? eligible.length : eligible.reduce((s, e) => s + (e.points ?? 0), 0),
      );
      const snap = await snapshotOf(created.body.data.id);
      expect(sha256(snap.text)).toBe(created.body.data.snapshotHash);
      expect(snap.rows.map((r) => r.id)).toEqual(eligible.map((e) => e.id).sort());
      const revealed = (await reveal(created.body.data.id, pr ? { publicRandomness: pr } : {})).body.data;
      expect(sha256(Buffer.from(revealed.seed, 'hex'))).toBe(created.body.data.seedHash);
      const expected = drawPicks(snap.rows, Buffer.from(revealed.seed, 'hex'), revealed.snapshotHash, pr, winners);
      expect(expected).toHaveLength(Math.min(winners, eligible.length));
      expect(revealed.results.map((r: { entryId: string }) => r.entryId)).toEqual(expected.map((x) => x.id));
      expect(revealed.results.map((r: { position: number }) => r.position)).toEqual(expected.map((_, i) => i + 1));
      const streamIdx = await query<{ stream_index: number }>(
        env.db,
        sql`select stream_index from draw_results where draw_id = ${revealed.id} order by position`,
      );
      expect(streamIdx.map((r) => r.stream_index)).toEqual(expected.map((x) => x.streamIndex));
    }
  });

  it('points weighting gives chances proportional to points (the SQL walk, 400 single-winner draws)', async () => {
    const c = await env.contest(a.teamId);
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    await addEntries(c.id, [
      { id: ids[0]!, points: 1 },
      { id: ids[1]!, points: 3 },
    ]);
    let heavy = 0;
    for (let k = 0; k < 400; k++) {
      const created = await draw(c.id, { weighting: 'points', excludePreviousWinners: false });
      const revealed = (await reveal(created.body.data.id)).body.data;
      if (revealed.results[0].entryId === ids[1]) heavy++;
    }
    // expected 300 of 400 (sd ~8.7): within 4.5 sd
    expect(Math.abs(heavy - 300)).toBeLessThan(39);
  }, 120_000);

  it('a rejected u is really skipped: W = 2^62 + 1 rejects about one u in four', async () => {
    // a crafted draw (weights far beyond what points reach) revealed by the real SQL path
    const c = await env.contest(a.teamId);
    const seed = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const w1 = 2n ** 61n;
    const w2 = 2n ** 61n + 1n;
    const W = w1 + w2;
    const limit = TWO64 - (TWO64 % W);
    const u = (h: string, i: number) => u64(seed, `${h}::${i}`);
    // a snapshot hash whose u_0 is rejected, and where u_0 mod W and u_1 mod W pick different entries
    let hash = '';
    for (let k = 0; ; k++) {
      const h = sha256(`crafted ${k}`);
      const u0 = u(h, 0);
      const u1 = u(h, 1);
      if (u0 >= limit && u1 < limit && u0 % W < w1 !== u1 % W < w1) {
        hash = h;
        break;
      }
    }
    const ids = ['10000000-0000-4000-8000-000000000001', '20000000-0000-4000-8000-000000000002'];
    const drawId = crypto.randomUUID();
    const ipad = Buffer.alloc(64, 0x36);
    const opad = Buffer.alloc(64, 0x5c);
    seed.forEach((x, i) => {
      ipad[i] = x ^ 0x36;
      opad[i] = x ^ 0x5c;
    });
    await query(
      env.db,
      sql`insert into draws (id, team_id, contest_id, status, winners, weighting, confirmed_only, min_points, exclude_previous_winners,
                             eligible_count, total_weight, snapshot_hash, seed, seed_hash, hmac_ipad, hmac_opad)
          values (${drawId}, ${a.teamId}, ${c.id}, 'committed', 1, 'points', true, 0, false, 2, ${W.toString()}::bigint, ${hash},
                  decode(${Buffer.from(seed).toString('hex')}, 'hex'), ${sha256(seed)}, decode(${ipad.toString('hex')}, 'hex'), decode(${opad.toString('hex')}, 'hex'))`,
    );
    const csv = `entry_id,weight,email_sha256\n${ids[0]},${w1},\n${ids[1]},${w2},\n`;
    await query(
      env.db,
      sql`insert into draw_blocks (draw_id, cum_end, cum_start, lines)
          values (${drawId}, ${W.toString()}::bigint, 0, ${csv.slice(29)})`,
    );
    const r = await reveal(drawId);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const u1 = u(hash, 1);
    expect(r.body.data.results.map((x: { entryId: string }) => x.entryId)).toEqual([u1 % W < w1 ? ids[0] : ids[1]]);
    const idx = await queryOne<{ stream_index: number }>(
      env.db,
      sql`select stream_index from draw_results where draw_id = ${drawId}`,
    );
    expect(idx!.stream_index).toBe(1);
  });
});
