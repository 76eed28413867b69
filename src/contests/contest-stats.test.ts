/**
 * contest_stats (the trigger-kept totals behind analytics, entriesCount and the entries-list
 * total) always equals what a full recount of the entries says, whatever the mix of writes.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createTestEnv,
  hasRealPostgres,
  type TeamFixture,
  type TestEnv,
} from '../../test/support/harness.js';
import { query } from '../db/client.js';

async function recount(env: TestEnv, contestId: string) {
  const [stats] = await query<Record<string, string | number>>(
    env.db,
    sql`select coalesce(sum(entries), 0)::int as entries, coalesce(sum(confirmed), 0)::int as confirmed,
          coalesce(sum(disqualified), 0)::int as disqualified, coalesce(sum(points_total), 0)::int as points,
          coalesce(sum(bonus_completions), 0)::int as bonus
        from contest_stats where contest_id = ${contestId}`,
  );
  const [truth] = await query<Record<string, string | number>>(
    env.db,
    sql`select count(*)::int as entries, (count(*) filter (where email_confirmed))::int as confirmed,
          (count(*) filter (where disqualified))::int as disqualified, coalesce(sum(points), 0)::int as points,
          (select count(*)::int from bonus_completions where contest_id = ${contestId} and status = 'verified') as bonus
        from entries where contest_id = ${contestId}`,
  );
  return { stats, truth };
}

async function mix(env: TestEnv, t: TeamFixture, contestId: string, bonusIds: string[], n: number, seed: number) {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const ids: string[] = [];
  const codes: string[] = [];
  const ops: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (ids.length < 3 || r < 0.35) {
      const res = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
        key: t.privateKey,
        body: {
          email: `u${seed}-${i}@example.com`,
          name: `U ${i}`,
          referralCode: codes.length && rnd() < 0.5 ? codes[Math.floor(rnd() * codes.length)] : undefined,
        },
      });
      ids.push(res.body.data.entryId);
      const e = await query<{ referral_code: string }>(
        env.db,
        sql`select referral_code from entries where id = ${res.body.data.entryId}`,
      );
      codes.push(e[0]!.referral_code);
      continue;
    }
    const id = ids[Math.floor(rnd() * ids.length)]!;
    if (r < 0.6)
      ops.push(
        env.request('POST', `/api/v1/entries/${id}/points`, {
          key: t.privateKey,
          body: { points: Math.floor(rnd() * 200) - 100, reason: 'mix' },
        }),
      );
    else if (r < 0.75)
      ops.push(env.request('POST', `/api/v1/entries/${id}/disqualify`, { key: t.privateKey, body: {} }));
    else
      ops.push(
        env.request(
          'POST',
          `/api/v1/entries/${id}/bonus-actions/${bonusIds[Math.floor(rnd() * bonusIds.length)]}/complete`,
          { key: t.publicKey, body: {} },
        ),
      );
    if (ops.length >= 8) await Promise.all(ops.splice(0));
  }
  await Promise.all(ops);
  // confirm some by email link tokens is covered elsewhere; flip confirmation directly too
  await query(
    env.db,
    sql`update entries set email_confirmed = not email_confirmed where contest_id = ${contestId} and name like 'U 1%'`,
  );
}

async function setup(env: TestEnv) {
  const t = await env.team();
  const c = await env.contest(t.teamId, {
    referral: { advocatePoints: 7, friendPoints: 3 },
    requireEmailConfirmation: false,
  });
  const bonusIds: string[] = [];
  for (const p of [5, 0, 12]) {
    const r = await env.request('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { action: `a${p}`, points: p },
    });
    bonusIds.push(r.body.data.id);
  }
  return { t, c, bonusIds };
}

describe('contest_stats on the default backend', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('matches a recount after a random mix of writes, and feeds analytics and entriesCount', async () => {
    const { t, c, bonusIds } = await setup(env);
    await mix(env, t, c.id, bonusIds, 150, 42);
    const { stats, truth } = await recount(env, c.id);
    expect(stats).toEqual(truth);
    expect(truth!.entries).toBeGreaterThan(20);
    const a = await env.request('GET', `/api/v1/contests/${c.id}/analytics`, { key: t.publicKey });
    expect(a.body.data).toMatchObject({
      totalEntries: truth!.entries,
      confirmedEntries: truth!.confirmed,
      disqualifiedEntries: truth!.disqualified,
      totalBonusCompletions: truth!.bonus,
      points: { total: truth!.points },
    });
    const g = await env.request('GET', `/api/v1/contests/${c.id}`, { key: t.publicKey });
    expect(g.body.data.entriesCount).toBe(truth!.entries);
    const l = await env.request('GET', `/api/v1/contests/${c.id}/entries?limit=1`, { key: t.publicKey });
    expect(l.body.pagination.total).toBe(truth!.entries);
  });

  it('forgets a deleted contest’s rows with it and keeps other contests exact', async () => {
    const { t, c, bonusIds } = await setup(env);
    const other = await env.contest(t.teamId, { requireEmailConfirmation: false });
    await mix(env, t, c.id, bonusIds, 30, 7);
    await env.request('POST', `/api/v1/contests/${other.id}/entries`, {
      key: t.privateKey,
      body: { email: 'keep@example.com' },
    });
    await query(env.db, sql`delete from contests where id = ${c.id}`);
    const left = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from contest_stats where contest_id = ${c.id}`,
    );
    expect(left[0]!.n).toBe(0);
    const { stats, truth } = await recount(env, other.id);
    expect(stats).toEqual(truth);
    expect(truth!.entries).toBe(1);
  });
});

describe.skipIf(!hasRealPostgres)('contest_stats under concurrent writers (real Postgres)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ backend: 'postgres', poolMax: 30 });
  });
  afterAll(() => env.close());

  it('stays exact with 3 mixes running at once on one contest', async () => {
    const { t, c, bonusIds } = await setup(env);
    await Promise.all([
      mix(env, t, c.id, bonusIds, 120, 1),
      mix(env, t, c.id, bonusIds, 120, 2),
      mix(env, t, c.id, bonusIds, 120, 3),
    ]);
    const { stats, truth } = await recount(env, c.id);
    expect(stats).toEqual(truth);
  });
});
