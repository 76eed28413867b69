/**
 * Time series of a contest and of a game (private key): the counts per hour and per day equal a
 * direct count of the base tables, before and after hours settle into series_hours, live hours
 * follow new rows, every bucket of the range is present; bad ranges are 400s that change
 * nothing; a public key, another team's contest, a game id on the contest route are refused.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;
const HOUR = 3_600_000;
const T0 = new Date('2026-03-10T10:15:00.000Z');

beforeAll(async () => {
  env = await createTestEnv();
  env.clock.set(T0);
  env.clock.freeze();
  t = await env.team('Series');
  other = await env.team('Other');
});
afterAll(() => env.close());

const priv = () => ({ key: t.privateKey });
const series = (id: string, q = '', key = t.privateKey) =>
  env.request('GET', `/api/v1/contests/${id}/series${q}`, { key });
let n = 0;
const enter = (contestId: string, body: Record<string, unknown> = {}) =>
  env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: t.privateKey,
    body: { email: `p${++n}@example.com`, ...body },
  });

/** The same figures counted straight from the base tables. */
async function direct(contestId: string, unit: 'hour' | 'day') {
  const rows = await query<{
    b: Date | string;
    entries: number;
    referrals: number;
    confirmations: number;
    bonus: number;
  }>(
    env.db,
    sql`with e as (select date_trunc(${unit}, created_at, 'UTC') b, count(*)::int n, (count(*) filter (where referred_by is not null))::int r
                   from entries where contest_id = ${contestId} group by 1),
             c as (select date_trunc(${unit}, confirmed_at, 'UTC') b, count(*)::int n from entries where contest_id = ${contestId} and confirmed_at is not null group by 1),
             k as (select date_trunc(${unit}, completed_at, 'UTC') b, count(*)::int n from bonus_completions where contest_id = ${contestId} group by 1),
             bs as (select b from e union select b from c union select b from k)
        select bs.b, coalesce(e.n, 0) entries, coalesce(e.r, 0) referrals, coalesce(c.n, 0) confirmations, coalesce(k.n, 0) bonus
        from bs left join e using (b) left join c using (b) left join k using (b) order by 1`,
  );
  return new Map(
    rows.map((r) => [
      new Date(r.b).toISOString(),
      { entries: r.entries, confirmations: r.confirmations, referrals: r.referrals, bonusCompletions: r.bonus },
    ]),
  );
}

function nonZero(
  buckets: { start: string; entries: number; confirmations: number; referrals: number; bonusCompletions: number }[],
) {
  return new Map(
    buckets
      .filter((b) => b.entries + b.confirmations + b.referrals + b.bonusCompletions > 0)
      .map(({ start, ...rest }) => [start, rest]),
  );
}

describe('contest series', () => {
  it('counts per hour and per day equal a direct count, before and after the hours settle; live hours follow', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const action = await createBonusAction(env.db, c.id, { action: 'follow', points: 3 });
    // hour 10: three entries, one referred; a bonus completion
    const a = await enter(c.id);
    expect(a.status, a.text).toBe(201);
    await enter(c.id, { referralCode: a.body.data.referralCode });
    await enter(c.id);
    const done = await env.request(
      'POST',
      `/api/v1/entries/${a.body.data.entryId}/bonus-actions/${action.id}/complete`,
      { key: t.publicKey, body: {} },
    );
    expect(done.status, done.text).toBe(200);
    // hour 12: two more, both referred
    env.clock.advance(2 * HOUR);
    await enter(c.id, { referralCode: a.body.data.referralCode });
    await enter(c.id, { referralCode: a.body.data.referralCode });

    // read at 12:15: hour 10 and 11 settle (kept), hour 12 is live
    const r = await series(c.id);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
    expect(r.body.data).toMatchObject({
      interval: 'hour',
      from: '2026-03-08T13:00:00.000Z',
      to: '2026-03-10T12:00:00.000Z',
    });
    expect(r.body.data.buckets).toHaveLength(48);
    expect(r.body.data.buckets[47]).toEqual({
      start: '2026-03-10T12:00:00.000Z',
      entries: 2,
      confirmations: 2,
      referrals: 2,
      bonusCompletions: 0,
    });
    expect(r.body.data.buckets[45]).toEqual({
      start: '2026-03-10T10:00:00.000Z',
      entries: 3,
      confirmations: 3,
      referrals: 1,
      bonusCompletions: 1,
    });
    expect(nonZero(r.body.data.buckets)).toEqual(await direct(c.id, 'hour'));
    const kept = await query<{ hour: Date; metric: string; n: number }>(
      env.db,
      sql`select hour, metric, n::int as n from series_hours where owner_id = ${c.id} order by hour, metric`,
    );
    expect(kept.map((k) => [new Date(k.hour).toISOString(), k.metric, k.n])).toEqual([
      ['2026-03-10T10:00:00.000Z', 'bonus_completions', 1],
      ['2026-03-10T10:00:00.000Z', 'confirmations', 3],
      ['2026-03-10T10:00:00.000Z', 'entries', 3],
      ['2026-03-10T10:00:00.000Z', 'referrals', 1],
      ['2026-03-10T10:00:00.000Z', 'referred_confirmations', 1],
      ['2026-03-10T10:00:00.000Z', 'source:api', 3],
    ]);

    // more rows in the live hour, then a day later: the same read follows them; kept hours are read, not recounted
    await enter(c.id);
    const again = await series(c.id, '?from=2026-03-10T12:30:00Z&to=2026-03-10T12:59:59Z');
    expect(again.body.data.buckets).toEqual([
      { start: '2026-03-10T12:00:00.000Z', entries: 3, confirmations: 3, referrals: 2, bonusCompletions: 0 },
    ]);
    env.clock.advance(24 * HOUR);
    await enter(c.id);
    const hours = await series(c.id, '?from=2026-03-10&to=2026-03-11T23:00:00Z');
    expect(hours.body.data.buckets).toHaveLength(48);
    expect(nonZero(hours.body.data.buckets)).toEqual(await direct(c.id, 'hour'));
    const days = await series(c.id, '?interval=day&from=2026-03-01&to=2026-03-12');
    expect(days.status, days.text).toBe(200);
    expect(days.body.data).toMatchObject({
      interval: 'day',
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-12T00:00:00.000Z',
    });
    expect(days.body.data.buckets).toHaveLength(12);
    expect(nonZero(days.body.data.buckets)).toEqual(await direct(c.id, 'day'));
    expect(days.body.data.buckets[9]).toEqual({
      start: '2026-03-10T00:00:00.000Z',
      entries: 6,
      confirmations: 6,
      referrals: 3,
      bonusCompletions: 1,
    });
    const watermark = await query<{ until: Date }>(
      env.db,
      sql`select until from series_filled where owner_id = ${c.id}`,
    );
    expect(new Date(watermark[0]!.until).toISOString()).toBe('2026-03-11T12:14:00.000Z');
  });

  it('readers at once add each row once (the watermark is a compare-and-set)', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    for (let i = 0; i < 5; i++) await enter(c.id);
    env.clock.advance(5 * 60_000);
    const reads = await Promise.all(Array.from({ length: 8 }, () => series(c.id, '?interval=day')));
    for (const r of reads) expect(r.status, r.text).toBe(200);
    for (const r of reads) expect(nonZero(r.body.data.buckets)).toEqual(await direct(c.id, 'day'));
    const kept = await query<{ metric: string; n: number }>(
      env.db,
      sql`select metric, sum(n)::int n from series_hours where owner_id = ${c.id} group by 1 order by 1`,
    );
    expect(kept).toEqual([
      { metric: 'confirmations', n: 5 },
      { metric: 'entries', n: 5 },
      { metric: 'source:api', n: 5 },
    ]);
    // and once more later: the next rows are added to the same hour, not counted twice
    for (let i = 0; i < 3; i++) await enter(c.id);
    env.clock.advance(5 * 60_000);
    await Promise.all(Array.from({ length: 8 }, () => series(c.id, '?interval=day')));
    const after = await query<{ metric: string; n: number }>(
      env.db,
      sql`select metric, sum(n)::int n from series_hours where owner_id = ${c.id} group by 1 order by 1`,
    );
    expect(after).toEqual([
      { metric: 'confirmations', n: 8 },
      { metric: 'entries', n: 8 },
      { metric: 'source:api', n: 8 },
    ]);
  });

  it('bad ranges answer 400 with a sentence and keep nothing', async () => {
    const c = await env.contest(t.teamId);
    const cases: [string, string][] = [
      ['?interval=week', 'interval must be hour or day'],
      ['?from=yesterday', 'from must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)'],
      ['?to=2026-03-10T10:00', 'to must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)'],
      ['?from=2026-02-30', 'from must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)'],
      ['?from=2026-03-10&to=2026-03-09', 'from must not be after to'],
      [
        '?from=2026-01-01&to=2026-03-10',
        'from and to span 1633 hours; at most 1000 buckets, so use interval=day or a shorter range',
      ],
      [
        '?interval=day&from=2020-01-01&to=2026-03-10',
        'from and to span 2261 days; at most 1000 buckets, so use interval=day or a shorter range',
      ],
    ];
    for (const [q, message] of cases) {
      const r = await series(c.id, q);
      expect([q, r.status, r.body]).toEqual([q, 400, { success: false, error: message }]);
    }
    const kept = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int n from series_filled where owner_id = ${c.id}`,
    );
    expect(kept[0]!.n).toBe(0);
  });

  it("refuses a public key, another team's contest, a game, an unknown id", async () => {
    const c = await env.contest(t.teamId);
    const pub = await series(c.id, '', t.publicKey);
    expect([pub.status, pub.body]).toEqual([
      403,
      { success: false, error: 'This endpoint requires a private API key' },
    ]);
    const theirs = await env.contest(other.teamId);
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await series(id);
      expect([id, r.status, r.body]).toEqual([id, 404, { success: false, error: 'Contest not found' }]);
    }
    const none = await env.request('GET', `/api/v1/contests/${c.id}/series`, {});
    expect(none.status).toBe(401);
    const kept = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int n from series_filled where owner_id = ${theirs.id}`,
    );
    expect(kept[0]!.n).toBe(0);
  });
});

describe('game series', () => {
  it('plays, prizes given and numbers drawn per tier, per hour', async () => {
    env.clock.set(new Date('2026-03-11T12:15:00.000Z'));
    const g = await env.request('POST', '/api/v1/instant-win-games', {
      ...priv(),
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: 'Prize', oddsPercent: 50, redeemCode: 'SAVE', quantity: 1 },
          { name: 'Try again', oddsPercent: 50, isMiss: true },
        ],
      },
    });
    expect(g.status, g.text).toBe(201);
    const game = g.body.data as { id: string; tiers: { id: string; name: string }[] };
    const [prize, missTier] = game.tiers;
    for (let i = 0; i < 12; i++) {
      const p = await env.request('POST', `/api/v1/instant-win-games/${game.id}/play`, {
        key: t.publicKey,
        body: {},
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      });
      expect(p.status, p.text).toBe(200);
    }
    const drawn = await query<{ tier: string; n: number }>(
      env.db,
      sql`select coalesce(coalesce(drawn_tier_id, tier_id)::text, 'none') tier, count(*)::int n from instant_win_plays where game_id = ${game.id} group by 1`,
    );
    const r = await env.request(
      'GET',
      `/api/v1/instant-win-games/${game.id}/series?interval=day&from=2026-03-11&to=2026-03-11`,
      priv(),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"$/);
    const [b] = r.body.data.buckets;
    expect(b.start).toBe('2026-03-11T00:00:00.000Z');
    expect(b.plays).toBe(12);
    // the prize had one in stock: at most one given, whatever the numbers drew
    const given = await query<{ tier: string; n: number }>(
      env.db,
      sql`select tier_id::text tier, count(*)::int n from instant_win_plays where game_id = ${game.id} and status <> 'miss' and tier_id is not null group by 1`,
    );
    expect(given.length).toBeLessThanOrEqual(1);
    expect(b.wins).toEqual(Object.fromEntries(given.map((d) => [d.tier, d.n])));
    expect(b.drawn).toEqual(Object.fromEntries(drawn.map((d) => [d.tier, d.n])));
    expect(Object.values(b.drawn as Record<string, number>).reduce((s, x) => s + x, 0)).toBe(12);
    expect(Object.keys(b.drawn).every((k) => [prize!.id, missTier!.id].includes(k))).toBe(true);

    // an hour later the plays are counted into series_hours: the same figures
    env.clock.advance(HOUR);
    const later = await env.request(
      'GET',
      `/api/v1/instant-win-games/${game.id}/series?interval=day&from=2026-03-11&to=2026-03-11`,
      priv(),
    );
    expect(later.status, later.text).toBe(200);
    expect(later.body.data.buckets).toEqual(r.body.data.buckets);
    const kept = await query<{ metric: string; n: number }>(
      env.db,
      sql`select metric, n::int n from series_hours where owner_id = ${game.id} and metric = 'plays'`,
    );
    expect(kept).toEqual([{ metric: 'plays', n: 12 }]);

    const onContest = await series(game.id);
    expect([onContest.status, onContest.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    const c = await env.contest(t.teamId);
    const onGame = await env.request('GET', `/api/v1/instant-win-games/${c.id}/series`, priv());
    expect([onGame.status, onGame.body]).toEqual([404, { success: false, error: 'Game not found' }]);
    const pub = await env.request('GET', `/api/v1/instant-win-games/${game.id}/series`, { key: t.publicKey });
    expect(pub.status).toBe(403);
  });
});
