/**
 * Entries: create (dedupe, referrals, confirmation email), list, detail, update, disqualify,
 * with bad input and team scoping. PGlite by default; the same file runs on real Postgres when
 * TEST_DATABASE_URL is set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, queryOne } from '../db/client.js';
import { ledgerMismatches } from '../sql/points.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';

let env: TestEnv;
let a: TeamFixture;
let b: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
  b = await env.team('B');
});
afterAll(async () => {
  await emailsSettled();
  await env.close();
});

/**
 * Creating entries triggers email delivery in the background; let it finish before the database
 * goes away (on real Postgres a dropped database kills in-flight connections).
 */
async function emailsSettled() {
  for (let i = 0; i < 100; i++) {
    const row = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from email_outbox where status = 'pending' and locked_until is not null`,
    );
    if (!row?.n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 50));
}

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

const create = (contestId: string, body: unknown, key = a.privateKey) =>
  env.request('POST', `/api/v1/contests/${contestId}/entries`, { key, body });

async function entryRow(id: string) {
  return queryOne<Record<string, any>>(env.db, sql`select * from entries where id = ${id}`);
}

/** Rows of everything an entry request could touch, to prove a refused request changed nothing. */
async function snapshot() {
  return query(
    env.db,
    sql`select (select count(*) from entries) as entries, (select coalesce(sum(points), 0) from entries) as points,
          (select count(*) from points_ledger) as ledger, (select count(*) from email_outbox) as outbox,
          (select coalesce(max(updated_at), 'epoch') from entries) as updated,
          (select string_agg(coalesce(name, '') || coalesce(email, '') || coalesce(phone, '') || disqualified::text
            || coalesce(custom_field_data::text, ''), ',' order by id) from entries) as content`,
  );
}

describe('create entry', () => {
  it('201 with the reference fields; email trimmed and lower-cased; stored with a referral code', async () => {
    const c = await env.contest(a.teamId);
    const r = await create(c.id, { email: '  Ann@Example.COM ', name: ' Ann ', customFieldData: { size: 'M', n: 2 } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      data: {
        entryId: expect.any(String),
        email: 'ann@example.com',
        referralCode: expect.stringMatching(/^[A-Za-z0-9]{10}$/),
        alreadyExists: false,
        isReferred: false,
        pointsAwarded: { advocate: 0, friend: 0 },
      },
    });
    const row = await entryRow(r.body.data.entryId);
    expect(row).toMatchObject({
      email: 'ann@example.com',
      name: 'Ann',
      phone: null,
      points: 0,
      contest_id: c.id,
      custom_field_data: { size: 'M', n: 2 },
    });
    // the answer carries the stored code: the share link can be built without another call
    expect(row!.referral_code).toBe(r.body.data.referralCode);
  });

  it('the same email again (any case) answers 200 alreadyExists with the same entry and changes nothing', async () => {
    const c = await env.contest(a.teamId);
    const first = await create(c.id, { email: 'bob@example.com', name: 'Bob' });
    const before = await snapshot();
    const again = await create(c.id, { email: 'BOB@example.com ', name: 'Robert', phone: '+1 555 0100' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({
      entryId: first.body.data.entryId,
      email: 'bob@example.com',
      referralCode: first.body.data.referralCode,
      alreadyExists: true,
      isReferred: false,
      pointsAwarded: { advocate: 0, friend: 0 },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('phone-only entries are deduplicated by phone (normalised); the same phone with an email is another entry', async () => {
    const c = await env.contest(a.teamId);
    const p1 = await create(c.id, { phone: '+1 (555) 010-0200' });
    expect(p1.status).toBe(201);
    expect(p1.body.data.email).toBeNull();
    expect((await entryRow(p1.body.data.entryId))!.phone).toBe('+15550100200');
    const p2 = await create(c.id, { phone: '+1.555.010.0200', name: 'x' });
    expect(p2.status).toBe(200);
    expect(p2.body.data).toMatchObject({ entryId: p1.body.data.entryId, email: null, alreadyExists: true });
    const withEmail = await create(c.id, { phone: '+15550100200', email: 'p@example.com' });
    expect(withEmail.status).toBe(201);
    expect(withEmail.body.data.entryId).not.toBe(p1.body.data.entryId);
  });

  it('without email and phone: 400 Email or phone is required (blank strings and nulls count as missing)', async () => {
    const c = await env.contest(a.teamId);
    const before = await snapshot();
    for (const body of [
      {},
      { name: 'Ann' },
      { email: '', phone: '  ' },
      { email: null, phone: null },
      { referralCode: 'abc' },
    ]) {
      const r = await create(c.id, body);
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error: 'Email or phone is required' }]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('bad input answers a clear 400 naming the field and creates nothing', async () => {
    const c = await env.contest(a.teamId);
    const before = await snapshot();
    const cases: [unknown, string][] = [
      [{ email: 'not-an-email' }, 'Invalid email'],
      [{ email: 42 }, 'Invalid email'],
      [{ email: `${'a'.repeat(250)}@example.com` }, 'Invalid email'],
      [{ email: 'a@example.com', name: 'x'.repeat(10_000) }, 'name must be at most 200 characters'],
      [{ email: 'a@example.com', name: 5 }, 'Invalid name'],
      [{ email: 'a@example.com', name: 'a\u0000b' }, 'name must not contain NUL characters'],
      [{ email: 'a@example.com', name: 'a\u0007b' }, 'name must not contain control characters'],
      [{ phone: 'call me' }, 'Invalid phone'],
      [{ phone: '12' }, 'Invalid phone'],
      [{ phone: 5551234 }, 'Invalid phone'],
      [{ email: 'a@example.com', referralCode: 12 }, 'Invalid referralCode'],
      [{ email: 'a@example.com', referralCode: 'x'.repeat(101) }, 'referralCode must be at most 100 characters'],
      [{ email: 'a@example.com', customFieldData: [1, 2] }, 'customFieldData must be an object'],
      [{ email: 'a@example.com', customFieldData: 'x' }, 'customFieldData must be an object'],
      [
        { email: 'a@example.com', customFieldData: { big: 'x'.repeat(16_384) } },
        'customFieldData must be at most 16384 bytes as JSON',
      ],
      [
        { email: 'a@example.com', customFieldData: { k: 'a\u0000b' } },
        'customFieldData.k must not contain NUL characters',
      ],
      [[], 'Invalid request body'],
      ['a@example.com', 'Invalid request body'],
    ];
    for (const [body, error] of cases) {
      const r = await create(c.id, body);
      expect([body, r.status, r.body]).toEqual([body, 400, { success: false, error }]);
    }
    const raw = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: a.privateKey,
      rawBody: '{"email":',
    });
    expect([raw.status, raw.body.error]).toEqual([400, 'Invalid request body']);
    expect(await snapshot()).toEqual(before);
  });

  it('unknown fields are ignored, never stored', async () => {
    const c = await env.contest(a.teamId);
    const r = await create(c.id, {
      email: 'mass@example.com',
      points: 1000,
      disqualified: true,
      emailConfirmed: true,
      contestId: MISSING_ID,
      id: MISSING_ID,
    });
    expect(r.status).toBe(201);
    const row = await entryRow(r.body.data.entryId);
    expect(row).toMatchObject({ points: 0, disqualified: false, email_confirmed: false, contest_id: c.id });
    expect(row!.id).not.toBe(MISSING_ID);
  });

  it('another team’s contest, a missing one and a malformed id all answer 404 Contest not found', async () => {
    const other = await env.contest(b.teamId);
    const before = await snapshot();
    for (const id of [other.id, MISSING_ID, 'not-a-uuid']) {
      const r = await create(id, { email: 'x@example.com' });
      expect([id, r.status, r.body]).toEqual([id, 404, { success: false, error: 'Contest not found' }]);
    }
    expect(await snapshot()).toEqual(before);
    // the other team itself can create there
    expect((await create(other.id, { email: 'x@example.com' }, b.privateKey)).status).toBe(201);
  });

  it('a contest that is not open answers 409 Contest is not active (draft, paused, ended, past endDate, future startDate)', async () => {
    const now = env.clock.now().getTime();
    const contests = [
      await env.contest(a.teamId, { status: 'draft' }),
      await env.contest(a.teamId, { status: 'paused' }),
      await env.contest(a.teamId, { status: 'ended' }),
      await env.contest(a.teamId, {
        isEvergreen: false,
        startDate: new Date(now - 2 * 86400e3).toISOString(),
        endDate: new Date(now - 86400e3).toISOString(),
      }),
      await env.contest(a.teamId, { startDate: new Date(now + 86400e3).toISOString() }),
    ];
    const before = await snapshot();
    for (const c of contests) {
      const r = await create(c.id, { email: 'late@example.com' });
      expect([r.status, r.body]).toEqual([409, { success: false, error: 'Contest is not active' }]);
    }
    expect(await snapshot()).toEqual(before);
    // the clock reaching startDate opens it
    const future = contests[4]!;
    env.clock.advance(86400e3 + 1000);
    try {
      expect((await create(future.id, { email: 'late@example.com' })).status).toBe(201);
    } finally {
      env.clock.advance(-(86400e3 + 1000));
    }
  });

  it('a blank contestId answers 400 Missing contestId', async () => {
    for (const path of ['/api/v1/contests//entries', '/api/v1/contests/%20/entries']) {
      const r = await env.request('POST', path, { key: a.privateKey, body: { email: 'x@example.com' } });
      expect([path, r.status, r.body]).toEqual([path, 400, { success: false, error: 'Missing contestId' }]);
      const l = await env.request('GET', path, { key: a.publicKey });
      expect([path, l.status, l.body]).toEqual([path, 400, { success: false, error: 'Missing contestId' }]);
    }
  });
});

describe('referrals', () => {
  it('a valid code credits the referrer advocatePoints and the new entry friendPoints, each as a ledger row', async () => {
    const c = await env.contest(a.teamId, {
      referral: { advocatePoints: 10, friendPoints: 5 },
      requireEmailConfirmation: false,
    });
    const ref = await create(c.id, { email: 'advocate@example.com' });
    const code = (await entryRow(ref.body.data.entryId))!.referral_code;
    const r = await create(c.id, { email: 'friend@example.com', referralCode: ` ${code} ` });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      alreadyExists: false,
      isReferred: true,
      pointsAwarded: { advocate: 10, friend: 5 },
    });
    const friend = await entryRow(r.body.data.entryId);
    expect(friend).toMatchObject({ points: 5, referred_by: ref.body.data.entryId });
    expect((await entryRow(ref.body.data.entryId))!.points).toBe(10);
    const ledger = await query<{
      entry_id: string;
      delta: number;
      requested_delta: number;
      source: string;
      reason: string;
      ref_id: string;
    }>(
      env.db,
      sql`select entry_id, delta, requested_delta, source, reason, ref_id from points_ledger where contest_id = ${c.id} order by delta`,
    );
    expect(ledger).toEqual([
      {
        entry_id: friend!.id,
        delta: 5,
        requested_delta: 5,
        source: 'referral',
        reason: 'Joined with a referral code',
        ref_id: ref.body.data.entryId,
      },
      {
        entry_id: ref.body.data.entryId,
        delta: 10,
        requested_delta: 10,
        source: 'referral',
        reason: 'Referred a new entry',
        ref_id: friend!.id,
      },
    ]);
    // a repeated signup of the friend awards nothing more, and reports the entry as referred
    const again = await create(c.id, { email: 'friend@example.com', referralCode: code });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      alreadyExists: true,
      isReferred: true,
      pointsAwarded: { advocate: 0, friend: 0 },
    });
    expect((await entryRow(ref.body.data.entryId))!.points).toBe(10);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
  });

  it('an unknown code, a code of another contest (even the same team) and a wrongly-cased code do not count', async () => {
    const c = await env.contest(a.teamId, { referral: { advocatePoints: 10, friendPoints: 5 } });
    const other = await env.contest(a.teamId, { referral: { advocatePoints: 10, friendPoints: 5 } });
    const o = await create(other.id, { email: 'elsewhere@example.com' });
    const otherCode = (await entryRow(o.body.data.entryId))!.referral_code as string;
    const local = await create(c.id, { email: 'local@example.com' });
    const localCode = (await entryRow(local.body.data.entryId))!.referral_code as string;
    const flipped = localCode === localCode.toLowerCase() ? localCode.toUpperCase() : localCode.toLowerCase();
    for (const [i, code] of ['NOPE123456', otherCode, flipped].entries()) {
      const r = await create(c.id, { email: `n${i}@example.com`, referralCode: code });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ isReferred: false, pointsAwarded: { advocate: 0, friend: 0 } });
      expect((await entryRow(r.body.data.entryId))!).toMatchObject({ points: 0, referred_by: null });
    }
    expect((await entryRow(o.body.data.entryId))!.points).toBe(0);
    expect((await entryRow(local.body.data.entryId))!.points).toBe(0);
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from points_ledger where contest_id in (${c.id}, ${other.id})`,
    );
    expect(n!.n).toBe(0);
  });

  it('a contest with zero referral points links the referral but writes no ledger rows', async () => {
    const c = await env.contest(a.teamId);
    const ref = await create(c.id, { email: 'zero-a@example.com' });
    const code = (await entryRow(ref.body.data.entryId))!.referral_code;
    const r = await create(c.id, { email: 'zero-b@example.com', referralCode: code });
    expect(r.body.data).toMatchObject({ isReferred: true, pointsAwarded: { advocate: 0, friend: 0 } });
    expect((await entryRow(r.body.data.entryId))!.referred_by).toBe(ref.body.data.entryId);
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from points_ledger where contest_id = ${c.id}`,
    );
    expect(n!.n).toBe(0);
  });
});

describe('confirmation email on create', () => {
  it('requireEmailConfirmation (default): unconfirmed entry, one confirmation email queued with a link; the token is stored only hashed', async () => {
    const c = await env.contest(a.teamId, { title: 'Summer <Giveaway>' });
    const r = await create(c.id, { email: 'conf@example.com', name: 'Conf' });
    const row = await entryRow(r.body.data.entryId);
    expect(row).toMatchObject({ email_confirmed: false, confirmed_at: null });
    expect(row!.confirmation_token_hash).toMatch(/^[0-9a-f]{64}$/);
    const mails = await query<{
      to: string;
      kind: string;
      subject: string;
      text: string;
      html: string;
      team_id: string;
      status: string;
    }>(
      env.db,
      sql`select "to", kind, subject, text, html, team_id, status from email_outbox where contest_id = ${c.id}`,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      to: 'conf@example.com',
      kind: 'confirmation',
      subject: 'Confirm your entry: Summer <Giveaway>',
      team_id: a.teamId,
    });
    const link = /http:\/\/contests\.test\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mails[0]!.text);
    expect(link).not.toBeNull();
    expect(mails[0]!.text).not.toContain(row!.confirmation_token_hash);
    expect(mails[0]!.html).toContain('Summer &lt;Giveaway&gt;');
    expect(mails[0]!.html).not.toContain('<Giveaway>');
    // the admin email log shows it
    const log = await env.request('GET', `/api/admin/teams/${a.teamId}/emails`, {
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
    });
    expect(
      log.body.data.some((m: { to: string; kind: string }) => m.to === 'conf@example.com' && m.kind === 'confirmation'),
    ).toBe(true);
  });

  it('requireEmailConfirmation false: confirmed at creation, no email', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const r = await create(c.id, { email: 'noconf@example.com' });
    const row = await entryRow(r.body.data.entryId);
    expect(row).toMatchObject({ email_confirmed: true, confirmation_token_hash: null });
    expect(row!.confirmed_at).not.toBeNull();
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from email_outbox where contest_id = ${c.id}`,
    );
    expect(n!.n).toBe(0);
  });

  it('phone-only entries get no email; a duplicate signup queues no second email', async () => {
    const c = await env.contest(a.teamId);
    await create(c.id, { phone: '+4930123456' });
    await create(c.id, { email: 'once@example.com' });
    await create(c.id, { email: 'once@example.com' });
    const rows = await query<{ to: string }>(env.db, sql`select "to" from email_outbox where contest_id = ${c.id}`);
    expect(rows).toEqual([{ to: 'once@example.com' }]);
  });
});

describe('list entries', () => {
  let c: { id: string };
  beforeAll(async () => {
    c = await env.contest(a.teamId);
    const people = [
      ['alice@example.com', 'Alice Smith'],
      ['bob@example.com', 'Bob'],
      ['carol_x@example.com', 'Carol'],
      ['dave@sample.org', '100% Dave'],
      ['erin@sample.org', null],
    ] as const;
    for (const [email, name] of people) {
      await create(c.id, { email, name: name ?? undefined });
      env.clock.advance(1000);
    }
  });

  it('newest first with the list fields and pagination', async () => {
    const r = await env.request('GET', `/api/v1/contests/${c.id}/entries`, { key: a.publicKey });
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    expect(r.body.data.map((e: { email: string }) => e.email)).toEqual([
      'erin@sample.org',
      'dave@sample.org',
      'carol_x@example.com',
      'bob@example.com',
      'alice@example.com',
    ]);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(
      [
        'createdAt',
        'disqualified',
        'email',
        'emailConfirmed',
        'id',
        'name',
        'phone',
        'points',
        'referralCode',
        'risk',
      ].sort(),
    );
    expect(r.body.data[4]).toMatchObject({
      name: 'Alice Smith',
      phone: null,
      points: 0,
      emailConfirmed: false,
      disqualified: false,
    });
  });

  it('pages; a page past the end is empty with correct pagination', async () => {
    const p2 = await env.request('GET', `/api/v1/contests/${c.id}/entries?page=2&limit=2`, { key: a.publicKey });
    expect(p2.body.data.map((e: { email: string }) => e.email)).toEqual(['carol_x@example.com', 'bob@example.com']);
    expect(p2.body.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    const past = await env.request('GET', `/api/v1/contests/${c.id}/entries?page=9&limit=2`, { key: a.publicKey });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ success: true, data: [], pagination: { page: 9, limit: 2, total: 5, totalPages: 3 } });
  });

  it('search is a case-insensitive substring of email or name; % and _ are literal', async () => {
    const s = async (q: string) => {
      const r = await env.request('GET', `/api/v1/contests/${c.id}/entries?search=${encodeURIComponent(q)}`, {
        key: a.publicKey,
      });
      expect(r.status).toBe(200);
      return { emails: r.body.data.map((e: { email: string }) => e.email).sort(), total: r.body.pagination.total };
    };
    expect(await s('SMITH')).toEqual({ emails: ['alice@example.com'], total: 1 });
    expect(await s('SAMPLE.ORG')).toEqual({ emails: ['dave@sample.org', 'erin@sample.org'], total: 2 });
    expect(await s('%')).toEqual({ emails: ['dave@sample.org'], total: 1 });
    expect(await s('_')).toEqual({ emails: ['carol_x@example.com'], total: 1 });
    expect(await s('\\')).toEqual({ emails: [], total: 0 });
    expect(await s('  ')).toEqual({ emails: expect.any(Array), total: 5 });
    expect(await s('nobody')).toEqual({ emails: [], total: 0 });
    // email and name are searched each on its own: text spanning the end of the email and the
    // start of the name (one index covers both) matches nothing
    const alice = await s('alice');
    expect(alice.total).toBe(1);
    expect(await s('example.com alice')).toEqual({ emails: [], total: 0 });
    expect(await s('com Alice')).toEqual({ emails: [], total: 0 });
  });

  it('bad page, limit or search: 400 with the field named', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit must be between 1 and 100'],
      ['limit=101', 'limit must be between 1 and 100'],
      ['limit=-5', 'limit must be between 1 and 100'],
      ['limit=2.5', 'limit must be between 1 and 100'],
      ['limit=abc', 'limit must be between 1 and 100'],
      ['page=0', 'page must be a positive integer'],
      ['page=1.5', 'page must be a positive integer'],
      ['page=-1', 'page must be a positive integer'],
      [`search=${'x'.repeat(201)}`, 'search must be at most 200 characters'],
    ];
    for (const [qs, error] of cases) {
      const r = await env.request('GET', `/api/v1/contests/${c.id}/entries?${qs}`, { key: a.publicKey });
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error }]);
    }
  });

  it('another team’s contest answers like a missing one', async () => {
    for (const [id, key] of [
      [c.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['nope', a.publicKey],
    ] as const) {
      const r = await env.request('GET', `/api/v1/contests/${id}/entries`, { key });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
  });
});

describe('get entry', () => {
  it('the detail fields: referralsCount, bonusActionsCompleted, purchases, contest', async () => {
    const c = await env.contest(a.teamId, {
      title: 'Detail contest',
      referral: { advocatePoints: 3, friendPoints: 1 },
    });
    const e = await create(c.id, {
      email: 'detail@example.com',
      name: 'D',
      phone: '+441234567',
      customFieldData: { team: 'red' },
    });
    const id = e.body.data.entryId;
    const code = (await entryRow(id))!.referral_code;
    await create(c.id, { email: 'r1@example.com', referralCode: code });
    await create(c.id, { email: 'r2@example.com', referralCode: code });
    const action = await queryOne<{ id: string }>(
      env.db,
      sql`insert into bonus_actions (contest_id, action, points) values (${c.id}, 'follow', 4) returning id`,
    );
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${action!.id}/complete`, {
      key: a.publicKey,
      body: {},
    });
    expect(done.status).toBe(200);
    await env.db.execute(
      sql`insert into purchases (contest_id, entry_id, order_id, amount, source) values (${c.id}, ${id}, 'o1', 19.99, 'api'), (${c.id}, ${id}, 'o2', 5.01, 'api')`,
    );
    const r = await env.request('GET', `/api/v1/entries/${id}`, { key: a.publicKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id,
      email: 'detail@example.com',
      name: 'D',
      phone: '+441234567',
      points: 10,
      emailConfirmed: false,
      disqualified: false,
      referralCode: code,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      pointsUsed: 0,
      contestId: c.id,
      contestTitle: 'Detail contest',
      referralsCount: 2,
      bonusActionsCompleted: 1,
      totalPurchaseValue: 25,
      totalPurchaseCount: 2,
      customFieldData: { team: 'red' },
      risk: { level: 'none', reasons: [], review: null },
    });
  });

  it('another team’s entry, a missing one and a malformed id answer 404 Entry not found', async () => {
    const c = await env.contest(a.teamId);
    const e = await create(c.id, { email: 'mine@example.com' });
    for (const [id, key] of [
      [e.body.data.entryId, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['x', a.publicKey],
    ]) {
      const r = await env.request('GET', `/api/v1/entries/${id}`, { key });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    }
  });
});

describe('update entry', () => {
  const put = (id: string, body: unknown, key = a.privateKey) =>
    env.request('PUT', `/api/v1/entries/${id}`, { key, body });

  it('changes the given fields only and answers {id, email, name, phone, points}', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const e = await create(c.id, { email: 'upd@example.com', name: 'Old', customFieldData: { a: 1 } });
    const id = e.body.data.entryId;
    const r = await put(id, { name: '  New Name ', phone: '+1 202 555 0123' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: { id, email: 'upd@example.com', name: 'New Name', phone: '+12025550123', points: 0 },
    });
    expect((await entryRow(id))!.custom_field_data).toEqual({ a: 1 });
    const cf = await put(id, { customFieldData: { b: 2 } });
    expect(cf.status).toBe(200);
    expect((await entryRow(id))!.custom_field_data).toEqual({ b: 2 });
    const clear = await put(id, { name: null, customFieldData: null });
    expect(clear.body.data.name).toBeNull();
    expect((await entryRow(id))!.custom_field_data).toBeNull();
  });

  it('a new email in a contest without confirmation stays confirmed and queues nothing', async () => {
    const c = await env.contest(a.teamId, { requireEmailConfirmation: false });
    const id = (await create(c.id, { email: 'keep@example.com' })).body.data.entryId;
    const r = await put(id, { email: 'Keep2@Example.com' });
    expect(r.body.data.email).toBe('keep2@example.com');
    expect((await entryRow(id))!.email_confirmed).toBe(true);
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from email_outbox where contest_id = ${c.id}`,
    );
    expect(n!.n).toBe(0);
  });

  it('a new email in a contest that requires confirmation unconfirms the entry, replaces the token and emails the new address', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'before@example.com', name: 'Zed' })).body.data.entryId;
    const oldMail = await queryOne<{ text: string }>(
      env.db,
      sql`select text from email_outbox where "to" = 'before@example.com'`,
    );
    const oldToken = /confirm\/([A-Za-z0-9]{32})/.exec(oldMail!.text)![1]!;
    expect(
      (await env.request('GET', `/api/confirm/${oldToken}`, { headers: { accept: 'application/json' } })).status,
    ).toBe(200);
    expect((await entryRow(id))!.email_confirmed).toBe(true);
    const r = await put(id, { email: 'after@example.com' });
    expect(r.status).toBe(200);
    const row = await entryRow(id);
    expect(row).toMatchObject({ email: 'after@example.com', email_confirmed: false, confirmed_at: null });
    const mail = await queryOne<{ text: string; kind: string }>(
      env.db,
      sql`select text, kind from email_outbox where "to" = 'after@example.com'`,
    );
    expect(mail!.kind).toBe('confirmation');
    expect(mail!.text).toMatch(/^Hi Zed,/);
    const newToken = /confirm\/([A-Za-z0-9]{32})/.exec(mail!.text)![1]!;
    // the old link is dead, the new one confirms
    const old = await env.request('GET', `/api/confirm/${oldToken}`, { headers: { accept: 'application/json' } });
    expect([old.status, old.body.error]).toEqual([404, 'Confirmation link not found']);
    expect(
      (await env.request('GET', `/api/confirm/${newToken}`, { headers: { accept: 'application/json' } })).status,
    ).toBe(200);
    expect((await entryRow(id))!.email_confirmed).toBe(true);
    // the same email again changes nothing
    await put(id, { email: 'AFTER@example.com' });
    expect((await entryRow(id))!.email_confirmed).toBe(true);
  });

  it('an email or phone another entry of the contest has: 409, nothing changed', async () => {
    const c = await env.contest(a.teamId);
    await create(c.id, { email: 'taken@example.com' });
    await create(c.id, { phone: '+3312345678' });
    const id = (await create(c.id, { phone: '+3399999999' })).body.data.entryId;
    const before = await snapshot();
    const e = await put(id, { email: 'TAKEN@example.com', name: 'will not be saved' });
    expect([e.status, e.body]).toEqual([409, { success: false, error: 'Email already used by another entry' }]);
    const p = await put(id, { phone: '+33 1 23 45 67 8' });
    expect([p.status, p.body]).toEqual([409, { success: false, error: 'Phone already used by another entry' }]);
    expect(await snapshot()).toEqual(before);
    // an email used in ANOTHER contest is fine
    const other = await env.contest(a.teamId);
    const o = (await create(other.id, { email: 'x@example.com' })).body.data.entryId;
    expect((await put(o, { email: 'taken@example.com' })).status).toBe(200);
  });

  it('removing the only contact: 400 Email or phone is required', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { phone: '+3311111111' })).body.data.entryId;
    const r = await put(id, { phone: null });
    expect([r.status, r.body]).toEqual([400, { success: false, error: 'Email or phone is required' }]);
    expect((await entryRow(id))!.phone).toBe('+3311111111');
  });

  it('nothing to update, bad fields, another team’s entry: clear 4xx, nothing changed', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'same@example.com', name: 'Same' })).body.data.entryId;
    const before = await snapshot();
    const cases: [unknown, number, string][] = [
      [{}, 400, 'At least one of name, email, phone or customFieldData is required'],
      [{ points: 5, disqualified: true }, 400, 'At least one of name, email, phone or customFieldData is required'],
      [{ email: 'bad' }, 400, 'Invalid email'],
      [{ name: 'n'.repeat(10_240) }, 400, 'name must be at most 200 characters'],
      [{ name: ['x'] }, 400, 'Invalid name'],
      [{ customFieldData: 3 }, 400, 'customFieldData must be an object'],
      [{ phone: 'abc' }, 400, 'Invalid phone'],
    ];
    for (const [body, status, error] of cases) {
      const r = await put(id, body);
      expect([body, r.status, r.body]).toEqual([body, status, { success: false, error }]);
    }
    for (const [eid, key] of [
      [id, b.privateKey],
      [MISSING_ID, a.privateKey],
      ['123', a.privateKey],
    ]) {
      const r = await put(eid, { name: 'Hijack' }, key);
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('works on a contest that is no longer open', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'closed@example.com' })).body.data.entryId;
    await env.db.execute(sql`update contests set status = 'ended' where id = ${c.id}`);
    expect((await put(id, { name: 'Still' })).status).toBe(200);
  });
});

describe('disqualify', () => {
  const dq = (id: string, body?: unknown, key = a.privateKey) =>
    env.request('POST', `/api/v1/entries/${id}/disqualify`, { key, body });

  it('true disqualifies, false re-qualifies, omitted toggles; idempotent with explicit values', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'dq@example.com' })).body.data.entryId;
    const steps: [unknown, boolean, string][] = [
      [{ disqualify: true }, true, 'Entry has been disqualified'],
      [{ disqualify: true }, true, 'Entry has been disqualified'],
      [{ disqualify: false }, false, 'Entry has been re-qualified'],
      [{}, true, 'Entry has been disqualified'],
      [undefined, false, 'Entry has been re-qualified'],
      [{ unknown: 1 }, true, 'Entry has been disqualified'],
    ];
    for (const [body, disqualified, message] of steps) {
      const r = await dq(id, body);
      expect([body, r.status, r.body]).toEqual([
        body,
        200,
        { success: true, data: { entryId: id, disqualified, message } },
      ]);
      expect((await entryRow(id))!.disqualified).toBe(disqualified);
    }
  });

  it('a non-boolean answers 400; another team’s entry 404; nothing changed', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'dq2@example.com' })).body.data.entryId;
    for (const body of [{ disqualify: 'yes' }, { disqualify: 1 }, { disqualify: null }]) {
      const r = await dq(id, body);
      expect([r.status, r.body]).toEqual([400, { success: false, error: 'disqualify must be a boolean' }]);
    }
    const r = await dq(id, { disqualify: true }, b.privateKey);
    expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
    expect((await entryRow(id))!.disqualified).toBe(false);
  });
});
