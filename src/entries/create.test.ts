/**
 * Entries: create (dedupe, referrals, confirmation email), list, detail, update, disqualify,
 * with bad input and team scoping. PGlite by default; the same file runs on real Postgres when
 * TEST_DATABASE_URL is set.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { a, b, create, entryRow, env, MISSING_ID, snapshot } from '../../test/support/fixtures/entries.js';
import { ledgerMismatches } from '../../test/support/ledger.js';
import { query, queryOne } from '../db/client.js';

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
    // the email as it went out (the stored copy keeps no code once sent)
    await env.settle();
    const sent = env.sent.find((m) => m.to === 'conf@example.com')!;
    const link = /http:\/\/contests\.test\/api\/confirm\/([A-Za-z0-9]{32})/.exec(sent.text);
    expect(link).not.toBeNull();
    expect(sent.text).not.toContain(row!.confirmation_token_hash);
    expect(sent.html).toContain('Summer &lt;Giveaway&gt;');
    expect(sent.html).not.toContain('<Giveaway>');
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
