/**
 * Entries, referrals, points and bonus actions under real concurrency: requests fired at once
 * through the app over a pg pool of 40 connections to the real Postgres (TEST_DATABASE_URL).
 * Skipped (and reported as skipped) without it.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBonusAction } from '../src/admin/admin.js';
import { queryOne } from '../src/db/client.js';
import { createTestEnv, hasRealPostgres, type TeamFixture, type TestEnv } from './support/harness.js';
import { ledgerMismatches } from './support/ledger.js';

describe.skipIf(!hasRealPostgres)('entries under concurrency (real Postgres)', () => {
  let env: TestEnv;
  let t: TeamFixture;

  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 40 });
    // env.close() drops the database (with force) while idle pool clients may still be open;
    // pg-pool re-emits their "terminating connection" error on the pool, which throws without a
    // listener (see the report: src/db/drivers/pg.ts should have one too)
    env.pool!.on('error', () => {});
    t = await env.team();
  });
  afterAll(async () => {
    await env.close();
  });

  const create = (contestId: string, body: unknown) =>
    env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body });
  const countStatuses = (rs: { status: number }[]) =>
    rs.reduce<Record<number, number>>((m, r) => {
      m[r.status] = (m[r.status] ?? 0) + 1;
      return m;
    }, {});

  it('20 concurrent creates of the same email make one entry (one 201, nineteen 200 alreadyExists) and one email', async () => {
    const c = await env.contest(t.teamId);
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(c.id, { email: i % 2 ? 'Same@Example.com' : ' same@example.com', name: `n${i}` }),
      ),
    );
    const statuses = countStatuses(rs);
    console.log('[concurrency] same email x20:', statuses);
    expect(statuses).toEqual({ 201: 1, 200: 19 });
    const ids = new Set(rs.map((r) => r.body.data.entryId));
    expect(ids.size).toBe(1);
    expect(rs.filter((r) => r.body.data.alreadyExists).length).toBe(19);
    const n = await queryOne<{ entries: number; mails: number }>(
      env.db,
      sql`select (select count(*)::int from entries where contest_id = ${c.id}) as entries,
            (select count(*)::int from email_outbox where contest_id = ${c.id}) as mails`,
    );
    expect(n).toEqual({ entries: 1, mails: 1 });
  });

  it('20 concurrent phone-only creates of the same phone make one entry', async () => {
    const c = await env.contest(t.teamId);
    const rs = await Promise.all(Array.from({ length: 20 }, () => create(c.id, { phone: '+1 555 010 9999' })));
    const statuses = countStatuses(rs);
    console.log('[concurrency] same phone x20:', statuses);
    expect(statuses).toEqual({ 201: 1, 200: 19 });
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from entries where contest_id = ${c.id}`,
    );
    expect(n!.n).toBe(1);
  });

  it('20 concurrent signups with one referral code credit the referrer exactly 20 times', async () => {
    const c = await env.contest(t.teamId, { referral: { advocatePoints: 10, friendPoints: 5 } });
    const ref = await create(c.id, { email: 'advocate@example.com' });
    const referrerId = ref.body.data.entryId;
    const code = (await queryOne<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where id = ${referrerId}`,
    ))!.referral_code;
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(c.id, { email: `friend${i}@example.com`, referralCode: code })),
    );
    console.log('[concurrency] one code x20 signups:', countStatuses(rs));
    expect(
      rs.every(
        (r) =>
          r.status === 201 &&
          r.body.data.isReferred &&
          r.body.data.pointsAwarded.advocate === 10 &&
          r.body.data.pointsAwarded.friend === 5,
      ),
    ).toBe(true);
    const s = await queryOne<{ points: number; advocate_rows: number; friend_rows: number; referred: number }>(
      env.db,
      sql`select (select points from entries where id = ${referrerId}) as points,
            (select count(*)::int from points_ledger where entry_id = ${referrerId} and source = 'referral') as advocate_rows,
            (select count(*)::int from points_ledger where contest_id = ${c.id} and entry_id <> ${referrerId}) as friend_rows,
            (select count(*)::int from entries where referred_by = ${referrerId}) as referred`,
    );
    console.log('[concurrency] referrer after 20 signups:', s);
    expect(s).toEqual({ points: 200, advocate_rows: 20, friend_rows: 20, referred: 20 });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('20 concurrent creates of the same email with a referral code credit the referrer once', async () => {
    const c = await env.contest(t.teamId, { referral: { advocatePoints: 10, friendPoints: 5 } });
    const ref = await create(c.id, { email: 'adv2@example.com' });
    const referrerId = ref.body.data.entryId;
    const code = (await queryOne<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where id = ${referrerId}`,
    ))!.referral_code;
    const rs = await Promise.all(
      Array.from({ length: 20 }, () => create(c.id, { email: 'dup-friend@example.com', referralCode: code })),
    );
    const statuses = countStatuses(rs);
    console.log('[concurrency] same email + code x20:', statuses);
    expect(statuses).toEqual({ 201: 1, 200: 19 });
    const points = (await queryOne<{ points: number }>(
      env.db,
      sql`select points from entries where id = ${referrerId}`,
    ))!.points;
    expect(points).toBe(10);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('20 concurrent completions of one bonus action add its points once', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const entryId = (await create(c.id, { email: 'busy@example.com' })).body.data.entryId;
    const act = await createBonusAction(env.db, c.id, { action: 'share', points: 25 });
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${act.id}/complete`, {
          key: t.publicKey,
          body: { proof: `p${i}` },
        }),
      ),
    );
    const fresh = rs.filter((r) => r.status === 200 && r.body.data.alreadyCompleted === false);
    const repeats = rs.filter((r) => r.status === 200 && r.body.data.alreadyCompleted === true);
    console.log('[concurrency] one bonus action x20:', {
      statuses: countStatuses(rs),
      firstCompletions: fresh.length,
      alreadyCompleted: repeats.length,
    });
    expect(fresh).toHaveLength(1);
    expect(repeats).toHaveLength(19);
    expect(new Set(repeats.map((r) => r.body.data.completedAt))).toEqual(new Set([fresh[0]!.body.data.completedAt]));
    const s = await queryOne<{ points: number; completions: number; ledger: number }>(
      env.db,
      sql`select (select points from entries where id = ${entryId}) as points,
            (select count(*)::int from bonus_completions where entry_id = ${entryId}) as completions,
            (select count(*)::int from points_ledger where entry_id = ${entryId}) as ledger`,
    );
    console.log('[concurrency] entry after 20 completions:', s);
    expect(s).toEqual({ points: 25, completions: 1, ledger: 1 });
  });

  it('200 concurrent point adjustments on one entry lose none (no clamping: total = start + sum)', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const entryId = (await create(c.id, { email: 'adjust@example.com' })).body.data.entryId;
    const start = 100_000;
    await env.request('POST', `/api/v1/entries/${entryId}/points`, {
      key: t.privateKey,
      body: { points: start, reason: 'start' },
    });
    const deltas = Array.from({ length: 200 }, (_, i) => ((i * 37) % 101) - 50 || 7);
    const rs = await Promise.all(
      deltas.map((d, i) =>
        env.request('POST', `/api/v1/entries/${entryId}/points`, {
          key: t.privateKey,
          body: { points: d, reason: `r${i}` },
        }),
      ),
    );
    expect(countStatuses(rs)).toEqual({ 200: 200 });
    const sum = deltas.reduce((x, y) => x + y, 0);
    const s = await queryOne<{ points: number; ledger_sum: string; ledger_rows: number }>(
      env.db,
      sql`select (select points from entries where id = ${entryId}) as points,
            (select sum(delta) from points_ledger where entry_id = ${entryId}) as ledger_sum,
            (select count(*)::int from points_ledger where entry_id = ${entryId}) as ledger_rows`,
    );
    console.log('[concurrency] 200 adjustments, no clamping:', { start, sumOfDeltas: sum, ...s });
    expect(s!.points).toBe(start + sum);
    expect(Number(s!.ledger_sum)).toBe(start + sum);
    expect(s!.ledger_rows).toBe(201);
    // every response is one link of a single chain from start to the final total
    expect(
      chainIsConsistent(
        start,
        s!.points,
        rs.map((r) => r.body.data),
      ),
    ).toBe(true);
  });

  it('200 concurrent point adjustments with clamping at zero: total = clamped sequence, ledger consistent', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const entryId = (await create(c.id, { email: 'clamp@example.com' })).body.data.entryId;
    const deltas = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 20 : -15));
    const rs = await Promise.all(
      deltas.map((d, i) =>
        env.request('POST', `/api/v1/entries/${entryId}/points`, {
          key: t.privateKey,
          body: { points: d, reason: `c${i}` },
        }),
      ),
    );
    expect(countStatuses(rs)).toEqual({ 200: 200 });
    const data = rs.map((r) => r.body.data as { previousTotal: number; newTotal: number; adjustment: number });
    for (const [i, d] of data.entries()) {
      expect(d.previousTotal + d.adjustment).toBe(d.newTotal);
      expect(d.newTotal).toBe(Math.max(0, d.previousTotal + deltas[i]!));
    }
    const s = await queryOne<{ points: number; ledger_sum: string; ledger_rows: number; clamped: number }>(
      env.db,
      sql`select (select points from entries where id = ${entryId}) as points,
            (select coalesce(sum(delta), 0) from points_ledger where entry_id = ${entryId}) as ledger_sum,
            (select count(*)::int from points_ledger where entry_id = ${entryId}) as ledger_rows,
            (select count(*)::int from points_ledger where entry_id = ${entryId} and delta <> requested_delta) as clamped`,
    );
    console.log('[concurrency] 200 adjustments with clamping:', s);
    expect(s!.ledger_rows).toBe(200);
    expect(Number(s!.ledger_sum)).toBe(s!.points);
    expect(s!.points).toBe(data.reduce((x, d) => x + d.adjustment, 0));
    expect(chainIsConsistent(0, s!.points, data)).toBe(true);
  });
});

/**
 * The responses of concurrent adjustments form one chain start → … → final: the multiset of
 * previous totals equals {start} plus the multiset of new totals minus {final}. A lost update
 * (two requests reading the same previous total) breaks it.
 */
function chainIsConsistent(start: number, final: number, data: { previousTotal: number; newTotal: number }[]): boolean {
  const count = new Map<number, number>();
  const add = (k: number, d: number) => count.set(k, (count.get(k) ?? 0) + d);
  add(start, 1);
  for (const d of data) add(d.newTotal, 1);
  add(final, -1);
  for (const d of data) add(d.previousTotal, -1);
  return [...count.values()].every((v) => v === 0);
}
