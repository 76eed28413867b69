/**
 * Entries: create (dedupe, referrals, confirmation email), list, detail, update, disqualify,
 * with bad input and team scoping. PGlite by default; the same file runs on real Postgres when
 * TEST_DATABASE_URL is set.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { a, b, create, entryRow, env, MISSING_ID, snapshot } from '../../test/support/fixtures/entries.js';
import { query, queryOne } from '../db/client.js';

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
      // unconfirmed: not in the contest's order yet; no consent asked
      position: null,
      consent: null,
      referredBy: null,
      source: 'api',
      admittedAt: null,
    });
    // a referred entry names its referrer
    const r1 = (
      await env.request('GET', `/api/v1/contests/${c.id}/entries?search=r1@example.com`, { key: a.publicKey })
    ).body.data[0];
    const referred = await env.request('GET', `/api/v1/entries/${r1.id}`, { key: a.publicKey });
    expect(referred.body.data).toMatchObject({ referredBy: id, source: 'api' });
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
    await env.settle();
    const oldMail = env.sent.find((m) => m.to === 'before@example.com');
    const oldToken = /confirm\/([A-Za-z0-9]{32})/.exec(oldMail!.text)![1]!;
    expect(
      (await env.request('GET', `/api/confirm/${oldToken}`, { headers: { accept: 'application/json' } })).status,
    ).toBe(200);
    expect((await entryRow(id))!.email_confirmed).toBe(true);
    const r = await put(id, { email: 'after@example.com' });
    expect(r.status).toBe(200);
    const row = await entryRow(id);
    expect(row).toMatchObject({ email: 'after@example.com', email_confirmed: false, confirmed_at: null });
    const queued = await queryOne<{ kind: string }>(
      env.db,
      sql`select kind from email_outbox where "to" = 'after@example.com'`,
    );
    expect(queued!.kind).toBe('confirmation');
    // the email as it went out (the stored copy keeps no code once sent); it greets nobody by name
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'after@example.com');
    expect(mail!.text).toMatch(/^Hi,\n/);
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

  it('a reason is kept in the points history and sent in the event; a bad one is a 400 that changes nothing', async () => {
    const c = await env.contest(a.teamId);
    const id = (await create(c.id, { email: 'dq-reason@example.com' })).body.data.entryId;
    // an endpoint subscribed to the two events, so they are recorded (its deliveries are not the point here)
    await env.db.execute(
      sql`insert into webhook_endpoints (team_id, url, events, secret)
          values (${a.teamId}, 'http://127.0.0.1:9/dq', array['entry.disqualified', 'entry.requalified'],
                  ${`whsec_${Buffer.alloc(32, 7).toString('base64')}`})`,
    );
    for (const [body, message] of [
      [{ disqualify: true, reason: 7 }, 'reason must be a string'],
      [{ disqualify: true, reason: 'x'.repeat(501) }, 'reason must be at most 500 characters'],
    ] as const) {
      const r = await dq(id, body);
      expect([r.status, r.body]).toEqual([400, { success: false, error: message }]);
    }
    expect((await entryRow(id))!.disqualified).toBe(false);
    expect((await dq(id, { disqualify: true, reason: '  Same person as ann@example.com  ' })).status).toBe(200);
    env.clock.advance(1000);
    expect((await dq(id, { disqualify: false, reason: 'Checked with support' })).status).toBe(200);
    env.clock.advance(1000);
    expect((await dq(id, { disqualify: true })).status).toBe(200);
    const history = await env.request('GET', `/api/v1/entries/${id}/export`, { key: a.privateKey });
    expect(
      history.body.data.ledger.map((l: { delta: number; reason: string; source: string }) => [
        l.delta,
        l.reason,
        l.source,
      ]),
    ).toEqual([
      [0, 'Disqualified: Same person as ann@example.com', 'manual'],
      [0, 'Re-qualified: Checked with support', 'manual'],
    ]);
    const events = await query<{ type: string; reason: string | null }>(
      env.db,
      sql`select type, data->>'reason' as reason from events where data->>'entryId' = ${id} order by created_at, id`,
    );
    expect(events).toEqual([
      { type: 'entry.disqualified', reason: 'Same person as ann@example.com' },
      { type: 'entry.requalified', reason: 'Checked with support' },
      { type: 'entry.disqualified', reason: null },
    ]);
    await env.db.execute(sql`delete from webhook_endpoints where url = 'http://127.0.0.1:9/dq'`);
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
