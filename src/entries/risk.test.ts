/**
 * Risk signals (referral fraud): the five reason codes, risk {level, reasons, review} on entries,
 * ?risk=, referral.creditOn, risk.mode flag / hold / block, the review endpoint, at the HTTP level
 * and in the database (held points are not in totals, a blocked entry leaves no row, a rejected
 * review leaves the referrer's total exact in the ledger).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { ledgerMismatches } from '../../test/support/ledger.js';
import type { ContestSettings } from '../contests/contest-settings.js';
import { query, queryOne } from '../db/client.js';

let env: TestEnv;
let t: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('R');
});
afterAll(() => env?.close());

const base: Partial<ContestSettings> = {
  requireEmailConfirmation: false,
  referral: { advocatePoints: 10, friendPoints: 5 },
};
const contest = (s: Partial<ContestSettings> = {}) => env.contest(t.teamId, { ...base, ...s });
const create = (contestId: string, body: Record<string, unknown>) =>
  env.request('POST', `/api/v1/contests/${contestId}/entries`, { key: t.privateKey, body });
const detail = async (id: string) =>
  (await env.request('GET', `/api/v1/entries/${id}`, { key: t.privateKey })).body.data;
const points = async (id: string) =>
  (await queryOne<{ points: number }>(env.db, sql`select points from entries where id = ${id}`))!.points;
const stats = async (contestId: string) =>
  (await queryOne<{ total: number; pts: number }>(
    env.db,
    sql`select (select coalesce(sum(points_total), 0)::int from contest_stats where contest_id = ${contestId}) as total,
          (select coalesce(sum(points), 0)::int from entries where contest_id = ${contestId}) as pts`,
  ))!;

async function referrer(contestId: string, email = 'ref@example.com', extra: Record<string, unknown> = {}) {
  const r = await create(contestId, { email, ...extra });
  expect(r.status).toBe(201);
  return { id: r.body.data.entryId as string, code: r.body.data.referralCode as string };
}

describe('input', () => {
  it('ipAddress must be IPv4 or IPv6, userAgent at most 512; nothing stored on refusal', async () => {
    const c = await contest();
    for (const ipAddress of ['999.1.1.1', 'localhost', 12]) {
      const r = await create(c.id, { email: 'x@example.com', ipAddress });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('Invalid ipAddress');
    }
    const ua = await create(c.id, { email: 'x@example.com', userAgent: 'u'.repeat(513) });
    expect(ua.status).toBe(400);
    expect(ua.body.error).toBe('userAgent must be at most 512 characters');
    const none = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from entries where contest_id = ${c.id}`,
    );
    expect(none!.n).toBe(0);
    const ok4 = await create(c.id, { email: 'a@example.com', ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0' });
    const ok6 = await create(c.id, { email: 'b@example.com', ipAddress: '2001:db8::1' });
    expect([ok4.status, ok6.status]).toEqual([201, 201]);
    const rows = await query<{ ip_hash: string; user_agent_hash: string | null }>(
      env.db,
      sql`select ip_hash, user_agent_hash from entries where contest_id = ${c.id} order by email`,
    );
    // only salted hashes: neither the address nor the agent is stored
    expect(rows[0]!.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.user_agent_hash).toMatch(/^[0-9a-f]{64}$/);
    const raw = await queryOne<{ hit: boolean }>(
      env.db,
      sql`select exists (select 1 from entries e where e.contest_id = ${c.id} and (e::text like '%203.0.113.7%' or e::text like '%Mozilla%')) as hit`,
    );
    expect(raw!.hit).toBe(false);
  });
});

describe('signals and levels (mode flag)', () => {
  it('none for a clean entry; risk is on list and detail', async () => {
    const c = await contest();
    const r = await create(c.id, { email: 'clean@example.com', ipAddress: '203.0.113.1' });
    expect((await detail(r.body.data.entryId)).risk).toEqual({ level: 'none', reasons: [], review: null });
    const list = await env.request('GET', `/api/v1/contests/${c.id}/entries`, { key: t.publicKey });
    expect(list.body.data[0].risk).toEqual({ level: 'none', reasons: [], review: null });
  });

  it('disposable_email from the package list; RFC 2606 example domains never count', async () => {
    const c = await contest();
    const d = await create(c.id, { email: 'someone@mailinator.com' });
    expect((await detail(d.body.data.entryId)).risk).toEqual({
      level: 'high',
      reasons: ['disposable_email'],
      review: null,
    });
    for (const email of ['a@example.com', 'a@example.org', 'a@example.net']) {
      const r = await create(c.id, { email });
      expect((await detail(r.body.data.entryId)).risk.level).toBe('none');
    }
    const loaded = await queryOne<{ n: number; example: boolean }>(
      env.db,
      sql`select count(*)::int as n, bool_or(domain in ('example.com', 'example.org', 'example.net')) as example from disposable_domains`,
    );
    expect(loaded!.n).toBeGreaterThan(1000);
    expect(loaded!.example).toBe(false);
  });

  it('email_alias: +tags on any domain, gmail dots, googlemail.com as gmail.com', async () => {
    const c = await contest();
    await create(c.id, { email: 'jane.doe@gmail.com' });
    const cases = ['janedoe@gmail.com', 'j.a.n.e.doe+x@googlemail.com', 'Jane.Doe+promo@gmail.com'];
    for (const email of cases) {
      const r = await create(c.id, { email });
      expect(r.status).toBe(201);
      expect((await detail(r.body.data.entryId)).risk).toEqual({
        level: 'high',
        reasons: ['email_alias'],
        review: null,
      });
    }
    await create(c.id, { email: 'bob@corp.example' });
    const tag = await create(c.id, { email: 'bob+1@corp.example' });
    expect((await detail(tag.body.data.entryId)).risk.reasons).toEqual(['email_alias']);
    // dots only matter on gmail
    const dots = await create(c.id, { email: 'b.ob@corp.example' });
    expect((await detail(dots.body.data.entryId)).risk.level).toBe('none');
    // the same email again is the same entry (200), not an alias
    const same = await create(c.id, { email: 'jane.doe@gmail.com' });
    expect(same.status).toBe(200);
  });

  it('the alias counts follow email changes and deletions (risk_windows kept by triggers)', async () => {
    const c = await contest();
    const first = await create(c.id, { email: 'kim@example.com' });
    const moved = await env.request('PUT', `/api/v1/entries/${first.body.data.entryId}`, {
      key: t.privateKey,
      body: { email: 'kimberly@example.com' },
    });
    expect(moved.status).toBe(200);
    const back = await create(c.id, { email: 'kim+1@example.com' });
    expect((await detail(back.body.data.entryId)).risk.level).toBe('none');
    const alias = await create(c.id, { email: 'kimberly+1@example.com' });
    expect((await detail(alias.body.data.entryId)).risk.reasons).toEqual(['email_alias']);
    await query(env.db, sql`delete from entries where contest_id = ${c.id} and email like 'kimberly%'`);
    const counts = await query<{ key: string; n: number }>(
      env.db,
      sql`select key, n::int as n from risk_windows where contest_id = ${c.id} and kind = 'email' order by key`,
    );
    // a counter whose address no entry has any more is removed (erasure must not leave it behind)
    expect(counts).toEqual([{ key: 'kim@example.com', n: 1 }]);
    const again = await create(c.id, { email: 'kimberly@example.com' });
    expect((await detail(again.body.data.entryId)).risk.level).toBe('none');
  });

  it('self_referral by normalised email or by IP hash', async () => {
    const c = await contest();
    const a = await referrer(c.id, 'amy@example.com', { ipAddress: '198.51.100.20' });
    const byEmail = await create(c.id, { email: 'amy+2@example.com', referralCode: a.code });
    expect((await detail(byEmail.body.data.entryId)).risk.reasons).toEqual(['email_alias', 'self_referral']);
    const byIp = await create(c.id, { email: 'other@example.com', referralCode: a.code, ipAddress: '198.51.100.20' });
    expect((await detail(byIp.body.data.entryId)).risk).toEqual({
      level: 'high',
      reasons: ['self_referral'],
      review: null,
    });
    const fine = await create(c.id, { email: 'third@example.com', referralCode: a.code, ipAddress: '198.51.100.21' });
    expect((await detail(fine.body.data.entryId)).risk.level).toBe('none');
  });

  it('ip_velocity from the (N+1)-th entry of an IP within the hour; a new hour starts over; no ipAddress, no signal', async () => {
    const c = await contest({ risk: { maxEntriesPerIpPerHour: 2 } });
    const levels: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await create(c.id, { email: `v${i}@example.com`, ipAddress: '192.0.2.50' });
      levels.push((await detail(r.body.data.entryId)).risk.reasons.join());
    }
    expect(levels).toEqual(['', '', 'ip_velocity', 'ip_velocity']);
    const r = await create(c.id, { email: 'noip@example.com' });
    expect((await detail(r.body.data.entryId)).risk.level).toBe('none');
    env.clock.advance(3_601_000);
    const later = await create(c.id, { email: 'later@example.com', ipAddress: '192.0.2.50' });
    expect((await detail(later.body.data.entryId)).risk).toEqual({ level: 'none', reasons: [], review: null });
    const other = await contest({ risk: { maxEntriesPerIpPerHour: 1 } });
    await create(other.id, { email: 'o1@example.com', ipAddress: '192.0.2.50' });
    const o2 = await create(other.id, { email: 'o2@example.com', ipAddress: '192.0.2.50' });
    expect((await detail(o2.body.data.entryId)).risk).toEqual({
      level: 'review',
      reasons: ['ip_velocity'],
      review: null,
    });
  });

  it('an IPv6 /64 is one address: ip_velocity across its addresses, self_referral too; the next /64 is another', async () => {
    const c = await contest({ risk: { maxEntriesPerIpPerHour: 2 } });
    const levels: string[] = [];
    for (const ipAddress of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3', '2001:0db8:0001:0002::4']) {
      const r = await create(c.id, { email: `six-${levels.length}@example.com`, ipAddress });
      levels.push((await detail(r.body.data.entryId)).risk.reasons.join());
    }
    expect(levels).toEqual(['', '', 'ip_velocity', 'ip_velocity']);
    const next = await create(c.id, { email: 'six-next@example.com', ipAddress: '2001:db8:1:3::1' });
    expect((await detail(next.body.data.entryId)).risk.level).toBe('none');
    // a friend from the referrer's own /64 is a self-referral
    const a = await referrer(c.id, 'six-ref@example.com', { ipAddress: '2001:db8:9:9::1' });
    const friend = await create(c.id, {
      email: 'six-friend@example.com',
      referralCode: a.code,
      ipAddress: '2001:db8:9:9::beef',
    });
    expect((await detail(friend.body.data.entryId)).risk.reasons).toEqual(['self_referral']);
  });

  it("referral_velocity on the referrer's (M+1)-th referral within the hour, carried by the new entry", async () => {
    const c = await contest({ risk: { maxReferralsPerHour: 2 } });
    const a = await referrer(c.id);
    const got: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await create(c.id, { email: `f${i}@example.com`, referralCode: a.code });
      got.push((await detail(r.body.data.entryId)).risk.level);
    }
    expect(got).toEqual(['none', 'none', 'review']);
    expect((await detail(a.id)).risk.level).toBe('none');
    const rv = await env.request('GET', `/api/v1/contests/${c.id}/entries?risk=review`, { key: t.privateKey });
    expect(rv.body.data.map((e: { email: string }) => e.email)).toEqual(['f2@example.com']);
    expect(rv.body.pagination.total).toBe(1);
    const hi = await env.request('GET', `/api/v1/contests/${c.id}/entries?risk=high`, { key: t.privateKey });
    expect(hi.body.data).toEqual([]);
    const bad = await env.request('GET', `/api/v1/contests/${c.id}/entries?risk=none`, { key: t.privateKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('risk must be review or high');
  });
});

describe('entries created by an instant-win claim', () => {
  it("get the signals of their email and the claimer's address (recorded, never blocking a prize)", async () => {
    const g = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: 'Prize', oddsPercent: 100, redeemCode: 'WIN' },
          { name: 'Miss', oddsPercent: 0, isMiss: true },
        ],
      },
    });
    expect(g.status, g.text).toBe(201);
    const claimAs = async (email: string, ip: string) => {
      const p = await env.request('POST', `/api/v1/instant-win-games/${g.body.data.id}/play`, {
        key: t.publicKey,
        body: {},
        headers: { 'x-forwarded-for': ip },
      });
      const c = await env.request(
        'POST',
        `/api/v1/instant-win-games/${g.body.data.id}/plays/${p.body.data.playId}/claim`,
        {
          key: t.publicKey,
          body: { email, playCookie: p.body.data.playCookie },
          headers: { 'x-forwarded-for': ip },
        },
      );
      expect([c.status, c.body.data?.prizeName], c.text).toEqual([200, 'Prize']);
      const row = await queryOne<{ id: string; ip_hash: string | null }>(
        env.db,
        sql`select id, ip_hash from entries where contest_id = ${g.body.data.id} and email = ${email}`,
      );
      expect(row!.ip_hash).toMatch(/^[0-9a-f]{64}$/);
      return (await detail(row!.id)).risk;
    };
    expect(await claimAs('fan@gmail.com', '192.0.2.80')).toEqual({ level: 'none', reasons: [], review: null });
    expect(await claimAs('f.a.n+again@gmail.com', '192.0.2.81')).toEqual({
      level: 'high',
      reasons: ['email_alias'],
      review: null,
    });
    expect(await claimAs('prize@mailinator.com', '192.0.2.82')).toEqual({
      level: 'high',
      reasons: ['disposable_email'],
      review: null,
    });
  });
});

describe('modes', () => {
  it('flag: points credited as before, signals recorded', async () => {
    const c = await contest();
    const a = await referrer(c.id, 'fl@example.com');
    const r = await create(c.id, { email: 'fl+1@example.com', referralCode: a.code });
    expect(r.body.data.pointsAwarded).toEqual({ advocate: 10, friend: 5 });
    expect(r.body.data.pointsPending).toBeUndefined();
    expect(await points(a.id)).toBe(10);
  });

  it('hold: referral points of a flagged entry are pending ledger rows, not in totals, until approved', async () => {
    const c = await contest({ risk: { mode: 'hold' } });
    const a = await referrer(c.id, 'ho@example.com');
    const clean = await create(c.id, { email: 'clean@example.com', referralCode: a.code });
    expect(clean.body.data.pointsAwarded).toEqual({ advocate: 10, friend: 5 });
    const r = await create(c.id, { email: 'ho+1@example.com', referralCode: a.code });
    expect(r.status).toBe(201);
    expect(r.body.data.pointsAwarded).toEqual({ advocate: 0, friend: 0 });
    expect(r.body.data.pointsPending).toEqual({ advocate: 10, friend: 5 });
    const id = r.body.data.entryId;
    expect(await points(a.id)).toBe(10);
    expect(await points(id)).toBe(0);
    const held = await query<{ entry_id: string; delta: number; requested_delta: number; status: string }>(
      env.db,
      sql`select entry_id, delta, requested_delta, status from points_ledger where held_for = ${id} order by requested_delta`,
    );
    expect(held).toEqual([
      { entry_id: id, delta: 0, requested_delta: 5, status: 'pending' },
      { entry_id: a.id, delta: 0, requested_delta: 10, status: 'pending' },
    ]);
    let s = await stats(c.id);
    expect(s.total).toBe(s.pts);
    expect(s.total).toBe(15); // the referrer 10 + the clean friend 5; the held 15 is not in it
    const ok = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.privateKey,
      body: { decision: 'approve' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      id,
      points: 5,
      risk: { level: 'high', reasons: ['email_alias', 'self_referral'], review: 'approved' },
      disqualified: false,
    });
    expect(await points(a.id)).toBe(20);
    s = await stats(c.id);
    expect(s.total).toBe(s.pts);
    expect(s.total).toBe(30);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const again = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.privateKey,
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Entry already reviewed');
  });

  it('hold + reject: held points dropped, entry disqualified, referrer total exact', async () => {
    const c = await contest({ risk: { mode: 'hold' } });
    const a = await referrer(c.id, 'hr@example.com');
    const r = await create(c.id, { email: 'hr+1@example.com', referralCode: a.code });
    const id = r.body.data.entryId;
    const rej = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.privateKey,
      body: { decision: 'reject' },
    });
    expect(rej.status).toBe(200);
    expect(rej.body.data).toMatchObject({ disqualified: true, points: 0, risk: { review: 'rejected' } });
    expect(await points(a.id)).toBe(0);
    const rows = await query<{ status: string }>(env.db, sql`select status from points_ledger where held_for = ${id}`);
    expect(rows.map((x) => x.status)).toEqual(['dropped', 'dropped']);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it("flag + reject: the advocate's referral points are taken back (a negative ledger row, never below 0)", async () => {
    const c = await contest();
    const a = await referrer(c.id, 'fr@example.com');
    const r = await create(c.id, { email: 'fr+1@example.com', referralCode: a.code });
    expect(await points(a.id)).toBe(10);
    // the advocate spent some: the take-back stops at 0
    await env.request('POST', `/api/v1/entries/${a.id}/points`, {
      key: t.privateKey,
      body: { points: -4, reason: 'spent' },
    });
    const rej = await env.request('POST', `/api/v1/entries/${r.body.data.entryId}/review`, {
      key: t.privateKey,
      body: { decision: 'reject' },
    });
    expect(rej.status).toBe(200);
    expect(await points(a.id)).toBe(0);
    const last = await queryOne<{ delta: number; requested_delta: number; source: string }>(
      env.db,
      sql`select delta, requested_delta, source from points_ledger where entry_id = ${a.id} order by created_at desc, delta limit 1`,
    );
    expect(last).toEqual({ delta: -6, requested_delta: -10, source: 'referral' });
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const s = await stats(c.id);
    expect(s.total).toBe(s.pts);
  });

  it('block: a high entry is refused with 403 and nothing is stored; review-level entries pass', async () => {
    const c = await contest({ risk: { mode: 'block', maxEntriesPerIpPerHour: 1 } });
    const a = await referrer(c.id, 'bl@example.com');
    const before = await queryOne<{ n: number; l: number; o: number }>(
      env.db,
      sql`select (select count(*)::int from entries where contest_id = ${c.id}) as n,
            (select count(*)::int from points_ledger where contest_id = ${c.id}) as l,
            (select count(*)::int from email_outbox where contest_id = ${c.id}) as o`,
    );
    for (const body of [{ email: 'x@mailinator.com' }, { email: 'bl+9@example.com', referralCode: a.code }]) {
      const r = await create(c.id, body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, error: 'Entry refused by risk rules' });
    }
    const after = await queryOne<{ n: number; l: number; o: number }>(
      env.db,
      sql`select (select count(*)::int from entries where contest_id = ${c.id}) as n,
            (select count(*)::int from points_ledger where contest_id = ${c.id}) as l,
            (select count(*)::int from email_outbox where contest_id = ${c.id}) as o`,
    );
    expect(after).toEqual(before);
    expect(await points(a.id)).toBe(0);
    await create(c.id, { email: 'p1@example.com', ipAddress: '192.0.2.9' });
    const p2 = await create(c.id, { email: 'p2@example.com', ipAddress: '192.0.2.9' });
    expect(p2.status).toBe(201);
    expect((await detail(p2.body.data.entryId)).risk.level).toBe('review');
  });
});

describe('referral.creditOn confirm', () => {
  it('points deferred until the new entry confirms its email, then credited once', async () => {
    const c = await contest({
      requireEmailConfirmation: true,
      referral: { advocatePoints: 10, friendPoints: 5, creditOn: 'confirm' },
    });
    const a = await referrer(c.id, 'co@example.com');
    const r = await create(c.id, { email: 'friend@example.com', referralCode: a.code });
    expect(r.body.data.pointsAwarded).toEqual({ advocate: 0, friend: 0 });
    expect(r.body.data.pointsPending).toEqual({ advocate: 10, friend: 5 });
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'friend@example.com')!;
    const token = /\/api\/confirm\/([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    for (let i = 0; i < 2; i++) {
      const conf = await env.request('GET', `/api/confirm/${token}`, { headers: { accept: 'application/json' } });
      expect(conf.status).toBe(200);
    }
    expect(await points(a.id)).toBe(10);
    expect(await points(r.body.data.entryId)).toBe(5);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const s = await stats(c.id);
    expect(s.total).toBe(s.pts);
  });

  it('a contest without confirmation credits at creation either way', async () => {
    const c = await contest({ referral: { advocatePoints: 10, friendPoints: 5, creditOn: 'confirm' } });
    const a = await referrer(c.id, 'nc@example.com');
    const r = await create(c.id, { email: 'nf@example.com', referralCode: a.code });
    expect(r.body.data.pointsAwarded).toEqual({ advocate: 10, friend: 5 });
    expect(r.body.data.pointsPending).toBeUndefined();
  });
});

describe('admin settings and review errors', () => {
  it('risk and referral.creditOn are contest settings; bad values are 400', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const c = await env.request('POST', `/api/admin/teams/${t.teamId}/contests`, {
      headers: admin,
      body: { title: 'Risky', referral: { creditOn: 'confirm' }, risk: { mode: 'hold', maxEntriesPerIpPerHour: 3 } },
    });
    expect(c.status).toBe(201);
    expect(c.body.data.referral.creditOn).toBe('confirm');
    expect(c.body.data.risk).toEqual({ mode: 'hold', maxEntriesPerIpPerHour: 3, maxReferralsPerHour: 20 });
    const bad = await env.request('PATCH', `/api/admin/contests/${c.body.data.id}`, {
      headers: admin,
      body: { risk: { mode: 'ban' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('risk.mode must be one of flag, hold, block');
    const bad2 = await env.request('PATCH', `/api/admin/contests/${c.body.data.id}`, {
      headers: admin,
      body: { risk: { maxReferralsPerHour: 0 } },
    });
    expect(bad2.body.error).toBe('risk.maxReferralsPerHour must be between 1 and 1000');
  });

  it("review: private key, decision approve|reject, another team's entry is not found", async () => {
    const c = await contest();
    const r = await create(c.id, { email: 'rv@example.com' });
    const id = r.body.data.entryId;
    const pub = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.publicKey,
      body: { decision: 'approve' },
    });
    expect(pub.status).toBe(403);
    const bad = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: t.privateKey,
      body: { decision: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('decision must be approve or reject');
    const other = await env.team('Other');
    const nf = await env.request('POST', `/api/v1/entries/${id}/review`, {
      key: other.privateKey,
      body: { decision: 'approve' },
    });
    expect(nf.status).toBe(404);
    expect(nf.body.error).toBe('Entry not found');
    expect((await detail(id)).risk.review).toBeNull();
  });
});
