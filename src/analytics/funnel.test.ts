/**
 * The funnel (private key): sign-ups, confirmations, referred sign-ups and referred confirmations
 * per bucket and in total equal a direct count, before and after the hours settle; the viral
 * coefficient; sign-ups by source (API, public sign-up, inbound webhook); the top referrers of the
 * range; bad ranges are 400s; a public key, another team's contest and a game are refused.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv, wheelGameBody } from '../../test/support/harness.js';
import { runScheduledJobs } from '../jobs.js';

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;
const HOUR = 3_600_000;
const T0 = new Date('2026-03-10T10:15:00.000Z');

beforeAll(async () => {
  env = await createTestEnv();
  env.clock.set(T0);
  env.clock.freeze();
  t = await env.team('Funnel');
  other = await env.team('Other funnel');
});
afterAll(() => env.close());

const CHANNELS = ['x', 'facebook', 'linkedin', 'whatsapp', 'telegram', 'reddit', 'email', 'sms', 'copy', 'native'];
const funnel = (id: string, q = '', key = t.privateKey) =>
  env.request('GET', `/api/v1/contests/${id}/funnel${q}`, { key });
let n = 0;
const enter = (contestId: string, body: Record<string, unknown> = {}) =>
  env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: t.privateKey,
    body: { email: `f${++n}@example.com`, ...body },
  });

describe('GET /contests/{contestId}/funnel', () => {
  it('counts equal a direct count, settled or live; viral coefficient, sources and top referrers', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const on = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
      key: t.privateKey,
      body: { publicSignup: true },
    });
    expect(on.status, on.text).toBe(200);
    // hour 10: three page views; Ann and Bob by the API; two referred by Ann, one by Bob
    for (let i = 0; i < 3; i++) expect((await env.request('POST', `/api/v1/contests/${c.id}/views`)).status).toBe(200);
    const ann = await enter(c.id, { name: 'Ann' });
    const bob = await enter(c.id, { name: 'Bob' });
    await enter(c.id, { referralCode: ann.body.data.referralCode });
    await enter(c.id, { referralCode: ann.body.data.referralCode });
    await enter(c.id, { referralCode: bob.body.data.referralCode });
    // hour 11: a view with the public key; a public sign-up referred by Bob (public sign-ups
    // confirm by email: not confirmed yet)
    env.clock.set(new Date(T0.getTime() + HOUR));
    expect((await env.request('POST', `/api/v1/contests/${c.id}/views`, { key: t.publicKey })).status).toBe(200);
    const s = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
      key: t.publicKey,
      body: { email: 'page@example.com', referralCode: bob.body.data.referralCode },
    });
    expect(s.status, s.text).toBe(201);

    const q = '?interval=hour&from=2026-03-10T10:00:00Z&to=2026-03-10T11:00:00Z';
    const live = await funnel(c.id, q);
    expect(live.status, live.text).toBe(200);
    const expected = {
      interval: 'hour',
      from: '2026-03-10T10:00:00.000Z',
      to: '2026-03-10T11:00:00.000Z',
      totals: {
        views: 4,
        visits: 0,
        signups: 6,
        confirmed: 5,
        referredSignups: 4,
        referredConfirmed: 3,
        viralCoefficient: 0.6,
      },
      sources: { api: 5, signup: 1, instantWin: 0, webhook: 0 },
      buckets: [
        {
          start: '2026-03-10T10:00:00.000Z',
          views: 3,
          visits: 0,
          signups: 5,
          confirmed: 5,
          referredSignups: 3,
          referredConfirmed: 3,
          viralCoefficient: 0.6,
        },
        {
          start: '2026-03-10T11:00:00.000Z',
          views: 1,
          visits: 0,
          signups: 1,
          confirmed: 0,
          referredSignups: 1,
          referredConfirmed: 0,
          viralCoefficient: null,
        },
      ],
      topReferrers: [
        { entryId: ann.body.data.entryId, email: ann.body.data.email, name: 'Ann', visits: 0, referredSignups: 2 },
        { entryId: bob.body.data.entryId, email: bob.body.data.email, name: 'Bob', visits: 0, referredSignups: 2 },
      ].sort((a, b) => (a.entryId < b.entryId ? -1 : 1)),
      channels: CHANNELS.map((channel) => ({ channel, visits: 0, shares: 0, signups: 0, confirmed: 0 })),
    };
    expect(live.body.data).toEqual(expected);

    // the same figures once the hours have settled into kept totals (read again, twice)
    env.clock.set(new Date(T0.getTime() + 5 * HOUR));
    for (let i = 0; i < 2; i++) expect((await funnel(c.id, q)).body.data).toEqual(expected);
    const kept = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from series_hours where owner_id = ${c.id} and metric like 'source:%'`,
    );
    expect(kept[0]!.n).toBeGreaterThan(0);

    // a narrower range: hour 11 alone has Bob's one referral, and the sign-up's source
    const h11 = await funnel(c.id, '?interval=hour&from=2026-03-10T11:00:00Z&to=2026-03-10T11:00:00Z');
    expect(h11.body.data.topReferrers).toEqual([
      { entryId: bob.body.data.entryId, email: bob.body.data.email, name: 'Bob', visits: 0, referredSignups: 1 },
    ]);
    expect(h11.body.data.sources).toEqual({ api: 0, signup: 1, instantWin: 0, webhook: 0 });

    // the default: the last 30 days by day, today included
    const d = await funnel(c.id);
    expect(d.body.data).toMatchObject({ interval: 'day', to: '2026-03-10T00:00:00.000Z' });
    expect(d.body.data.buckets).toHaveLength(30);
    expect(d.body.data.totals.signups).toBe(6);
  });

  it('top referrers equal a direct count over every range, whichever way is read; readers at once keep each referral once', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    const T = new Date('2026-05-01T00:30:00.000Z');
    env.clock.set(T);
    // six referrers; over 12 hours, each hour a few referred sign-ups spread unevenly among them
    const refs: { id: string; code: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await enter(c.id, { name: `Referrer ${i}` });
      refs.push({ id: r.body.data.entryId, code: r.body.data.referralCode });
    }
    for (let h = 0; h < 12; h++) {
      env.clock.set(new Date(T.getTime() + h * HOUR));
      for (let k = 0; k < 1 + (h % 4); k++) {
        const r = await enter(c.id, { referralCode: refs[(h * 5 + k * k) % 6]!.code });
        expect(r.status, r.text).toBe(201);
      }
    }
    const direct = async (from: string, to: string) =>
      (
        await query<{ id: string; n: number }>(
          env.db,
          sql`select referred_by as id, count(*)::int as n from entries where contest_id = ${c.id} and referred_by is not null
              and created_at >= date_trunc('hour', ${from}::timestamptz) and created_at < date_trunc('hour', ${to}::timestamptz) + interval '1 hour'
              group by 1 order by 2 desc, 1`,
        )
      ).map((r) => [r.id, r.n]);
    const ranges = (): [string, string][] => {
      const out: [string, string][] = [];
      for (const [a, b] of [
        [0, 11],
        [0, 0],
        [1, 10],
        [5, 11],
        [11, 11],
        [3, 4],
        [0, 13],
      ] as const)
        out.push([
          `${new Date(T.getTime() + a * HOUR).toISOString().slice(0, 13)}:00:00Z`,
          `${new Date(T.getTime() + b * HOUR).toISOString().slice(0, 13)}:00:00Z`,
        ]);
      return out;
    };
    const check = async () => {
      for (const [from, to] of ranges()) {
        const r = await funnel(c.id, `?interval=hour&from=${from}&to=${to}`);
        expect(r.status, r.text).toBe(200);
        expect(
          r.body.data.topReferrers.map((x: { entryId: string; referredSignups: number }) => [
            x.entryId,
            x.referredSignups,
          ]),
          `${from} to ${to}`,
        ).toEqual((await direct(from, to)).slice(0, 10));
      }
    };
    // all live (nothing settled), then all settled (eight readers at once), then partly settled
    env.clock.set(new Date(T.getTime() + 11 * HOUR + 30_000));
    await check();
    env.clock.set(new Date(T.getTime() + 14 * HOUR));
    await Promise.all(Array.from({ length: 8 }, () => funnel(c.id, '?interval=hour&from=2026-05-01T00:00:00Z')));
    const kept = await query<{ id: string; n: number }>(
      env.db,
      sql`select referrer_id as id, n from referral_counts where contest_id = ${c.id} order by n desc, referrer_id`,
    );
    expect(kept.map((k) => [k.id, k.n])).toEqual(await direct('2026-05-01T00:00:00Z', '2026-05-01T23:00:00Z'));
    await check();
    for (let k = 0; k < 3; k++) await enter(c.id, { referralCode: refs[5]!.code });
    await check();
    // a referrer erased keeps its count, its name gone
    const erased = await env.request('DELETE', `/api/v1/entries/${refs[0]!.id}`, { key: t.privateKey });
    expect(erased.status, erased.text).toBe(200);
    const all = await funnel(c.id, '?interval=hour&from=2026-05-01T00:00:00Z&to=2026-05-01T14:00:00Z');
    const gone = all.body.data.topReferrers.find((x: { entryId: string }) => x.entryId === refs[0]!.id);
    expect(gone).toMatchObject({ email: null, name: null });
  });

  it('visits, share clicks and sign-ups by channel equal a direct count over every range, live or settled', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body: { publicSignup: true } });
    const T = new Date('2026-06-01T00:30:00.000Z');
    env.clock.set(T);
    const refs: { id: string; code: string; token: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
        body: { email: `ch-ref${i}@example.com` },
      });
      expect(r.status, r.text).toBe(201);
      refs.push({ id: r.body.data.entryId, code: r.body.data.referralCode, token: r.body.data.entryToken });
    }
    let k = 0;
    for (let h = 0; h < 8; h++) {
      env.clock.set(new Date(T.getTime() + h * HOUR));
      for (let i = 0; i < 1 + (h % 3); i++) {
        const ref = refs[(h + i) % 3]!;
        const channel = CHANNELS[(h * 3 + i) % 10]!;
        const v = await env.request('POST', `/api/v1/contests/${c.id}/visits`, {
          body: { referralCode: ref.code, ...(i === 2 ? {} : { channel }) },
        });
        expect(v.status, v.text).toBe(202);
        if (h % 2 === 0) {
          const sh = await env.request('POST', '/api/v1/me/shares', {
            body: { channel },
            headers: { authorization: `Bearer ${ref.token}` },
          });
          expect(sh.status, sh.text).toBe(201);
        }
        if (i === 0) {
          const s = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
            body: { email: `ch-friend${++k}@example.com`, referralCode: ref.code, channel },
          });
          expect(s.status, s.text).toBe(201);
        }
      }
    }
    // some friends confirm in hour 9
    env.clock.set(new Date(T.getTime() + 9 * HOUR));
    await env.settle();
    for (const email of ['ch-friend1@example.com', 'ch-friend4@example.com', 'ch-friend6@example.com']) {
      const mail = env.sent.filter((m) => m.to === email).at(-1)!;
      const code = /\/api\/confirm\/([A-Za-z0-9]{32})\b/.exec(mail.text)![1]!;
      expect((await env.app.request(`/api/confirm/${code}`, { headers: { accept: 'application/json' } })).status).toBe(
        200,
      );
    }
    const count = async (q: ReturnType<typeof sql>) => (await query<{ n: number }>(env.db, q))[0]!.n;
    const bounds = (from: string, to: string) => (col: string) =>
      sql`${sql.raw(col)} >= date_trunc('hour', ${from}::timestamptz) and ${sql.raw(col)} < date_trunc('hour', ${to}::timestamptz) + interval '1 hour'`;
    const directChannels = async (from: string, to: string) => {
      const out = [];
      for (const channel of CHANNELS) {
        const range = bounds(from, to);
        out.push({
          channel,
          visits:
            await count(sql`select count(*)::int as n from link_visits where contest_id = ${c.id} and channel = ${channel}
            and ${range('created_at')}`),
          shares:
            await count(sql`select count(*)::int as n from link_shares where contest_id = ${c.id} and channel = ${channel}
            and ${range('created_at')}`),
          signups:
            await count(sql`select count(*)::int as n from entries where contest_id = ${c.id} and channel = ${channel}
            and ${range('created_at')}`),
          confirmed:
            await count(sql`select count(*)::int as n from entries where contest_id = ${c.id} and channel = ${channel}
            and ${range('confirmed_at')}`),
        });
      }
      return out;
    };
    const check = async () => {
      for (const [a, b] of [
        [0, 9],
        [0, 0],
        [1, 6],
        [4, 9],
        [7, 7],
        [2, 3],
      ] as const) {
        const from = `${new Date(T.getTime() + a * HOUR).toISOString().slice(0, 13)}:00:00Z`;
        const to = `${new Date(T.getTime() + b * HOUR).toISOString().slice(0, 13)}:00:00Z`;
        const r = await funnel(c.id, `?interval=hour&from=${from}&to=${to}`);
        expect(r.status, r.text).toBe(200);
        const at = `${from} to ${to}`;
        const range = bounds(from, to);
        expect(r.body.data.channels, at).toEqual(await directChannels(from, to));
        expect(r.body.data.totals.visits, at).toBe(
          await count(
            sql`select count(*)::int as n from link_visits where contest_id = ${c.id} and ${range('created_at')}`,
          ),
        );
        for (const b of r.body.data.buckets)
          expect(b.visits, `${at} ${b.start}`).toBe(
            await count(sql`select count(*)::int as n from link_visits where contest_id = ${c.id}
              and created_at >= ${b.start}::timestamptz and created_at < ${b.start}::timestamptz + interval '1 hour'`),
          );
        for (const x of r.body.data.topReferrers)
          expect(x.visits, `${at} ${x.entryId}`).toBe(
            await count(
              sql`select count(*)::int as n from link_visits where entry_id = ${x.entryId} and ${range('created_at')}`,
            ),
          );
      }
    };
    // live, then settled (kept hours), then settled with more after
    await check();
    // the visits' fold (the every-minute job) up to the middle of hour 4: the referrers' visits
    // are their kept hours (hour 4 in part) plus the visits after the watermark
    env.clock.set(new Date(T.getTime() + 4 * HOUR + 30 * 60_000));
    expect((await runScheduledJobs(env.deps)).visitsFolded).toBeGreaterThan(0);
    expect(await count(sql`select count(*)::int as n from visit_hours`)).toBeGreaterThan(0);
    env.clock.set(new Date(T.getTime() + 20 * HOUR));
    await check();
    await check();
    // every visit folded: the kept hours alone
    expect((await runScheduledJobs(env.deps)).visitsFolded).toBeGreaterThan(0);
    await check();
    await env.request('POST', `/api/v1/contests/${c.id}/visits`, {
      body: { referralCode: refs[0]!.code, channel: 'x' },
    });
    await check();
  });

  it('an empty contest: zeros, null coefficients, no referrers', async () => {
    const c = await env.contest(t.teamId);
    const r = await funnel(c.id, '?interval=day&from=2026-03-09&to=2026-03-10');
    expect(r.body.data).toMatchObject({
      totals: {
        views: 0,
        visits: 0,
        signups: 0,
        confirmed: 0,
        referredSignups: 0,
        referredConfirmed: 0,
        viralCoefficient: null,
      },
      sources: { api: 0, signup: 0, instantWin: 0, webhook: 0 },
      topReferrers: [],
    });
    expect(r.body.data.buckets).toHaveLength(2);
  });

  it('refused: a public key, another team, a game, a bad range (nothing written)', async () => {
    const c = await env.contest(t.teamId);
    expect((await funnel(c.id, '', t.publicKey)).status).toBe(403);
    const theirs = await funnel(c.id, '', other.privateKey);
    expect([theirs.status, theirs.body.error]).toEqual([404, 'Contest not found']);
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: wheelGameBody(),
    });
    expect(game.status, game.text).toBe(201);
    expect((await funnel(game.body.data.id)).body.error).toBe('Contest not found');
    const before = await query<{ n: number }>(env.db, sql`select count(*)::int as n from series_filled`);
    for (const [q, message] of [
      ['?interval=week', 'interval must be hour or day'],
      ['?from=2026-03-10&to=2026-03-01', 'from must not be after to'],
      ['?from=yesterday', 'from must be a date (2026-11-01) or a date-time with its offset (2026-11-01T09:00:00Z)'],
    ] as const) {
      const r = await funnel(c.id, q);
      expect([r.status, r.body.error]).toEqual([400, message]);
    }
    expect(await query<{ n: number }>(env.db, sql`select count(*)::int as n from series_filled`)).toEqual(before);
  });
});
