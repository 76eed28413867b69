/**
 * Email delivery from the outbox (src/mail/outbox.ts): sent once, retried with exponential
 * backoff on the injected clock, failed after the limit or on a permanent refusal, never lost
 * and never sent twice by concurrent deliverers; a crash between send and mark is retried with
 * the same idempotency key.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createTestEnv,
  hasRealPostgres,
  query,
  queryOne,
  type TestEnv,
} from '../../test/support/harness.js';
import { type FakeResend, startFakeResend } from '../../test/worker/support/fake-resend.js';
import { type Db, dbTiming } from '../db/client.js';
import type { Mailer, OutgoingEmail } from '../deps.js';
import { MailError } from './errors.js';
import { deliverDueEmails } from './outbox.js';
import { resendTransport } from './resend.js';

interface Row {
  id: string;
  text: string;
  html: string;
  to: string;
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  locked_until: Date | null;
  sent_at: Date | null;
  idempotency_key: string;
}

const MIN = 60_000;

/**
 * The harness's close() drops the database WITH (FORCE) as soon as pg-pool's end() resolves,
 * which is before the clients' sockets are closed: a closing client then receives FATAL 57P01,
 * and pg-pool re-emits it as an 'error' on the pool, uncaught without a listener (reported to
 * the harness owner). Ignore those.
 */
async function openEnv(opts: Parameters<typeof createTestEnv>[0] = {}): Promise<TestEnv> {
  const env = await createTestEnv(opts);
  return env;
}

async function queue(db: Db, teamId: string, to: string, at?: Date): Promise<string> {
  const row = await queryOne<{ id: string }>(
    db,
    sql`insert into email_outbox (team_id, "to", kind, subject, text, html, next_attempt_at)
        values (${teamId}, ${to}, 'confirmation', ${`Subject for ${to}`}, ${`Text for ${to}`}, ${`<p>${to}</p>`},
                coalesce(${at?.toISOString() ?? null}::timestamptz, now()))
        returning id`,
  );
  return row!.id;
}

const get = (db: Db, id: string) => queryOne<Row>(db, sql`select * from email_outbox where id = ${id}`).then((r) => r!);

/** records sends; `fail` decides per email whether (and how) to throw */
function recordingMailer(
  fail?: (e: OutgoingEmail, n: number) => Error | null,
): Mailer & { sent: OutgoingEmail[]; calls: number } {
  const m = {
    sent: [] as OutgoingEmail[],
    calls: 0,
    async send(email: OutgoingEmail) {
      m.calls += 1;
      const err = fail?.(email, m.calls);
      if (err) throw err;
      m.sent.push(email);
    },
  };
  return m;
}

describe('outbox delivery', () => {
  let env: TestEnv;
  let teamId: string;

  beforeAll(async () => {
    env = await openEnv();
    teamId = (await env.team()).teamId;
  });
  afterAll(() => env.close());

  it('sends a due email once and marks it sent at the clock time', async () => {
    const id = await queue(env.db, teamId, 'one@example.com', env.clock.now());
    const mailer = recordingMailer();
    const now = env.clock.now();
    const res = await deliverDueEmails(env.db, mailer, now);
    expect(res).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    const row = await get(env.db, id);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, last_error: null, locked_until: null });
    expect(new Date(row.sent_at!).toISOString()).toBe(now.toISOString());
    expect(mailer.sent).toEqual([
      {
        id,
        to: 'one@example.com',
        subject: 'Subject for one@example.com',
        text: 'Text for one@example.com',
        html: '<p>one@example.com</p>',
        idempotencyKey: row.idempotency_key,
      },
    ]);
    // nothing is sent twice
    expect(await deliverDueEmails(env.db, mailer, env.clock.now())).toMatchObject({ sent: 0 });
    expect(mailer.calls).toBe(1);
  });

  it('the stored copy of a sent email keeps no entry token and no confirmation code; the email itself had them', async () => {
    const token = `et_${'T'.repeat(40)}`;
    const code = 'C'.repeat(32);
    const body = `Your page: https://shop.example/p#ce-entry=${token} or confirm: http://x.test/api/confirm/${code}`;
    const row = await queryOne<{ id: string }>(
      env.db,
      sql`insert into email_outbox (team_id, "to", kind, subject, text, html, next_attempt_at)
          values (${teamId}, 'scrub@example.com', 'status_link', 'S', ${body}, ${`<a href="x#ce-entry=${token}">x</a>`},
                  ${env.clock.now().toISOString()}::timestamptz)
          returning id`,
    );
    const mailer = recordingMailer();
    await deliverDueEmails(env.db, mailer, env.clock.now());
    expect(mailer.sent.find((m) => m.to === 'scrub@example.com')?.text).toBe(body);
    const stored = await get(env.db, row!.id);
    expect(stored).toMatchObject({
      status: 'sent',
      text: 'Your page: https://shop.example/p#ce-entry=et_… or confirm: http://x.test/api/confirm/…',
      html: '<a href="x#ce-entry=et_…">x</a>',
    });
  });

  it("a team's subject with {{link}}: the email had the live link; the stored copy and the admin log have none", async () => {
    const team = await env.team('Subjects');
    const c = await env.contest(team.teamId, { requireEmailConfirmation: true });
    const texts = await env.request('PUT', `/api/v1/contests/${c.id}/emails/confirmation`, {
      key: team.privateKey,
      body: { subject: 'Confirm here: {{link}}', text: 'Click {{link}}' },
    });
    expect(texts.status, texts.text).toBe(200);
    const created = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'subject-link@example.com' },
    });
    expect(created.status).toBe(201);
    // before it is sent: the row keeps its link (it must go out), the admin log never shows it
    const admin = async () =>
      (
        await env.request('GET', `/api/admin/teams/${team.teamId}/emails`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).body.data[0] as { subject: string; text: string; status: string };
    const pending = await admin();
    expect(pending.subject).toMatch(/^Confirm here: http:\/\/contests\.test\/api\/confirm\/…$/);
    expect(pending.text).not.toMatch(/\/api\/confirm\/[A-Za-z0-9]{32}/);
    // sent by the request's own delivery or by this one, whichever came first: with the live link
    const mine = recordingMailer();
    await deliverDueEmails(env.db, mine, env.clock.now());
    await env.settle();
    const live = /\/api\/confirm\/([A-Za-z0-9]{32})/;
    const sent = [...env.sent, ...mine.sent].filter((m) => m.to === 'subject-link@example.com');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toMatch(/^Confirm here: http:\/\/contests\.test\/api\/confirm\/[A-Za-z0-9]{32}$/);
    const stored = await queryOne<{ status: string; subject: string; text: string; html: string | null }>(
      env.db,
      sql`select status, subject, text, html from email_outbox where "to" = 'subject-link@example.com'`,
    );
    expect(stored!.status).toBe('sent');
    for (const field of [stored!.subject, stored!.text, stored!.html ?? '']) expect(field).not.toMatch(live);
    expect(stored!.subject).toBe('Confirm here: http://contests.test/api/confirm/…');
    expect((await admin()).subject).toBe('Confirm here: http://contests.test/api/confirm/…');
  });

  it('an email failed for good keeps no credential in its subject, text or HTML; a retrying one keeps them to send', async () => {
    const token = `et_${'F'.repeat(40)}`;
    const code = 'D'.repeat(32);
    const live = `https://shop.example/p#ce-entry=${token} http://x.test/api/confirm/${code}`;
    const insert = async (to: string) =>
      (await queryOne<{ id: string }>(
        env.db,
        sql`insert into email_outbox (team_id, "to", kind, subject, text, html, next_attempt_at)
            values (${teamId}, ${to}, 'status_link', ${`Your link ${live}`}, ${live}, ${`<a href="${live}">x</a>`}, ${env.clock.now().toISOString()}::timestamptz)
            returning id`,
      ))!.id;
    const permanent = await insert('fail-scrub@example.com');
    const transient = await insert('retry-keep@example.com');
    const mailer = recordingMailer((e) =>
      e.to === 'fail-scrub@example.com'
        ? new MailError('SMTP 550: mailbox unavailable', { permanent: true })
        : e.to === 'retry-keep@example.com'
          ? new Error('timeout')
          : null,
    );
    await deliverDueEmails(env.db, mailer, env.clock.now());
    const scrubbed = 'https://shop.example/p#ce-entry=et_… http://x.test/api/confirm/…';
    expect(await get(env.db, permanent)).toMatchObject({
      status: 'failed',
      text: scrubbed,
      html: `<a href="${scrubbed}">x</a>`,
    });
    expect(
      (await queryOne<{ subject: string }>(env.db, sql`select subject from email_outbox where id = ${permanent}`))!
        .subject,
    ).toBe(`Your link ${scrubbed}`);
    expect(await get(env.db, transient)).toMatchObject({ status: 'pending', text: live });
  });

  it('a "sent" mark that fails (a dropped connection) is tried again: the email is not left to go out twice', async () => {
    // the next two "sent" marks fail, as a terminated connection would make them
    for (const statement of [
      'create sequence mark_fail_seq',
      `create function mark_fail() returns trigger language plpgsql as $f$
       begin if nextval('mark_fail_seq') <= 2 then raise exception 'terminating connection (test)'; end if; return new; end $f$`,
      `create trigger mark_fail before update on email_outbox for each row
       when (old.status = 'pending' and new.status = 'sent') execute function mark_fail()`,
    ])
      await env.db.execute(sql.raw(statement));
    try {
      const id = await queue(env.db, teamId, 'marked@example.com', env.clock.now());
      const mailer = recordingMailer();
      expect(await deliverDueEmails(env.db, mailer, env.clock.now())).toMatchObject({ sent: 1 });
      expect(await get(env.db, id)).toMatchObject({ status: 'sent', locked_until: null });
      expect(mailer.calls).toBe(1);
    } finally {
      for (const statement of [
        'drop trigger mark_fail on email_outbox',
        'drop function mark_fail()',
        'drop sequence mark_fail_seq',
      ])
        await env.db.execute(sql.raw(statement));
    }
  });

  it('a failing delivery statement is logged once, not once per request that joined the loop', async () => {
    const team = await env.team('Loggers');
    const c = await env.contest(team.teamId);
    // the delivery's claim fails after a second (a dropped connection, say)
    for (const statement of [
      `create function claim_fail() returns trigger language plpgsql as $f$
       begin perform pg_sleep(1); raise exception 'terminating connection (test)'; end $f$`,
      `create trigger claim_fail before update on email_outbox for each row
       when (old.locked_until is null and new.locked_until is not null) execute function claim_fail()`,
    ])
      await env.db.execute(sql.raw(statement));
    try {
      const before = env.logs.filter((l) => l.level === 'error').length;
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          env.request('POST', `/api/v1/contests/${c.id}/entries`, {
            key: team.privateKey,
            body: { email: `logged${i}@example.com` },
          }),
        ),
      );
      expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
      await env.settle();
      const errors = env.logs.filter((l) => l.level === 'error').slice(before);
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors.length).toBeLessThanOrEqual(2);
    } finally {
      for (const statement of ['drop trigger claim_fail on email_outbox', 'drop function claim_fail()'])
        await env.db.execute(sql.raw(statement));
    }
  });

  it('leaves emails that are not due yet alone', async () => {
    const later = new Date(env.clock.now().getTime() + 10 * MIN);
    const id = await queue(env.db, teamId, 'later@example.com', later);
    const mailer = recordingMailer();
    await deliverDueEmails(env.db, mailer, env.clock.now());
    expect(mailer.sent.map((e) => e.to)).not.toContain('later@example.com');
    expect((await get(env.db, id)).status).toBe('pending');
    await deliverDueEmails(env.db, mailer, later);
    expect(mailer.sent.map((e) => e.to)).toContain('later@example.com');
    expect((await get(env.db, id)).status).toBe('sent');
  });

  it('retries transient failures with backoff 1, 2, 4 ... minutes and marks failed after 8 attempts', async () => {
    const t0 = env.clock.now();
    const id = await queue(env.db, teamId, 'flaky@example.com', t0);
    const mailer = recordingMailer((e) =>
      e.to === 'flaky@example.com' ? new MailError('SMTP 451: try again later') : null,
    );
    let now = t0;
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const res = await deliverDueEmails(env.db, mailer, now);
      const row = await get(env.db, id);
      expect(row.attempts).toBe(attempt);
      expect(row.last_error).toBe('SMTP 451: try again later');
      if (attempt < 8) {
        expect(res).toMatchObject({ sent: 0, failed: 0, retrying: 1 });
        expect(row.status).toBe('pending');
        const next = new Date(row.next_attempt_at);
        delays.push((next.getTime() - now.getTime()) / MIN);
        // one millisecond before it is due: nothing happens
        await deliverDueEmails(env.db, mailer, new Date(next.getTime() - 1));
        expect((await get(env.db, id)).attempts).toBe(attempt);
        now = next;
      } else {
        expect(res).toMatchObject({ sent: 0, failed: 1, retrying: 0 });
        expect(row.status).toBe('failed');
      }
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(mailer.calls).toBe(8);
    // failed stays failed
    await deliverDueEmails(env.db, mailer, new Date(now.getTime() + 24 * 60 * MIN));
    expect(mailer.calls).toBe(8);
  });

  it('marks a permanent refusal failed at once with the reason', async () => {
    const id = await queue(env.db, teamId, 'bounce@example.com', env.clock.now());
    const mailer = recordingMailer(() => new MailError('SMTP 550: mailbox unavailable', { permanent: true }));
    const res = await deliverDueEmails(env.db, mailer, env.clock.now());
    expect(res).toMatchObject({ failed: 1 });
    expect(await get(env.db, id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'SMTP 550: mailbox unavailable',
    });
  });

  it('a retry after the first failure succeeds and clears the error', async () => {
    const t0 = env.clock.now();
    const id = await queue(env.db, teamId, 'second@example.com', t0);
    const mailer = recordingMailer((_e, n) => (n === 1 ? new Error('ECONNRESET') : null));
    await deliverDueEmails(env.db, mailer, t0);
    expect(await get(env.db, id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'ECONNRESET' });
    await deliverDueEmails(env.db, mailer, new Date(t0.getTime() + MIN));
    expect(await get(env.db, id)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
  });

  it('delivers a backlog larger than one batch in one call', async () => {
    const t0 = env.clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await queue(env.db, teamId, `bulk${i}@example.com`, t0));
    const mailer = recordingMailer();
    const res = await deliverDueEmails(env.db, mailer, t0, { limit: 8 });
    expect(res.sent).toBeGreaterThanOrEqual(30);
    const rows = await query<{ status: string }>(env.db, sql`select status from email_outbox where "to" like 'bulk%'`);
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    expect(new Set(mailer.sent.map((e) => e.id)).size).toBe(mailer.sent.length);
  });

  it('claims a batch in one statement and marks what went out in one: 20 emails, 2 statements', async () => {
    const t0 = env.clock.now();
    for (let i = 0; i < 20; i++) await queue(env.db, teamId, `batch${i}@example.com`, t0);
    const mailer = recordingMailer((e) =>
      e.to === 'batch7@example.com' ? new MailError('mailbox full', { permanent: false }) : null,
    );
    const timing = { trips: 0, ms: 0 };
    const res = await dbTiming.run(timing, () => deliverDueEmails(env.db, mailer, t0, { limit: 25 }));
    // claim, the one failure's own mark, the batch's sent mark
    expect([res.sent, res.retrying, timing.trips]).toEqual([19, 1, 3]);
    const rows = await query<{ to: string; status: string }>(
      env.db,
      sql`select "to", status from email_outbox where "to" like 'batch%' order by "to"`,
    );
    expect(rows.filter((r) => r.status === 'sent').length).toBe(19);
    expect(rows.find((r) => r.to === 'batch7@example.com')!.status).toBe('pending');
  });
});

describe('outbox: a crash between send and mark', () => {
  let env: TestEnv;
  let teamId: string;
  let resend: FakeResend;

  beforeAll(async () => {
    env = await openEnv();
    teamId = (await env.team()).teamId;
    resend = await startFakeResend();
  });
  afterAll(async () => {
    await resend.close();
    await env.close();
  });

  it('is retried after the lease with the same Idempotency-Key, and Resend delivers it once', async () => {
    const t0 = env.clock.now();
    const id = await queue(env.db, teamId, 'crash@example.com', t0);
    const real = resendTransport({
      apiKey: 're_test_key',
      from: 'Contests <contests@example.com>',
      apiUrl: resend.url,
    });
    // the first deliverer sends, then "dies": its mark never happens
    const dying: Mailer = {
      async send(email) {
        await real.send(email);
        await new Promise(() => {});
      },
    };
    void deliverDueEmails(env.db, dying, t0);
    await expect.poll(() => resend.requests.length).toBe(1);
    const claimed = await get(env.db, id);
    expect(claimed.status).toBe('pending');
    expect(claimed.locked_until).not.toBeNull();

    // while the lease runs, another deliverer does not touch it
    const during = await deliverDueEmails(env.db, real, new Date(t0.getTime() + 4 * MIN));
    expect(during.sent).toBe(0);
    expect(resend.requests).toHaveLength(1);

    // after the lease (5 min) it is claimed again and sent with the same key: no second email
    const after = await deliverDueEmails(env.db, real, new Date(t0.getTime() + 5 * MIN + 1000));
    expect(after.sent).toBe(1);
    expect(resend.requests).toHaveLength(2);
    expect(resend.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      claimed.idempotency_key,
      claimed.idempotency_key,
    ]);
    expect(resend.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(resend.delivered).toHaveLength(1);
    expect(await get(env.db, id)).toMatchObject({ status: 'sent' });
  });

  it('a deliverer that lost its lease cannot mark the email failed afterwards', async () => {
    const t0 = new Date(env.clock.now().getTime() + 60 * MIN);
    const id = await queue(env.db, teamId, 'slow@example.com', t0);
    let rejectSlow!: (e: Error) => void;
    const slow: Mailer = {
      send: () =>
        new Promise<void>((_resolve, reject) => {
          rejectSlow = reject;
        }),
    };
    const slowRun = deliverDueEmails(env.db, slow, t0);
    await expect.poll(async () => (await get(env.db, id)).locked_until !== null).toBe(true);
    // its lease runs out; another deliverer sends it
    const ok = recordingMailer();
    await deliverDueEmails(env.db, ok, new Date(t0.getTime() + 6 * MIN));
    expect(ok.sent.map((e) => e.id)).toEqual([id]);
    // the slow one finally fails: the row stays sent
    rejectSlow(new MailError('timeout', { permanent: true }));
    expect(await slowRun).toMatchObject({ sent: 0, failed: 0, retrying: 0 });
    expect(await get(env.db, id)).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
  });
});

describe.skipIf(!hasRealPostgres)('outbox on real Postgres: concurrent deliverers', () => {
  let env: TestEnv;
  let teamId: string;

  beforeAll(async () => {
    env = await openEnv({ backend: 'postgres', poolMax: 20 });
    teamId = (await env.team()).teamId;
  });
  afterAll(() => env.close());

  it('6 deliverers at once over 120 emails: every email sent exactly once', async () => {
    const t0 = env.clock.now();
    await query(
      env.db,
      sql`insert into email_outbox (team_id, "to", kind, subject, text, next_attempt_at)
          select ${teamId}, 'c' || g || '@example.com', 'confirmation', 's', 't', ${t0.toISOString()}::timestamptz
          from generate_series(1, 120) g`,
    );
    const mailer = recordingMailer();
    // a little latency per send so that the deliverers really overlap
    const slowMailer: Mailer = {
      async send(e) {
        await new Promise((r) => setTimeout(r, 2));
        await mailer.send(e);
      },
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => deliverDueEmails(env.db, slowMailer, t0, { limit: 10, maxBatches: 50 })),
    );
    const total = results.reduce((s, r) => s + r.sent, 0);
    expect(total).toBe(120);
    expect(mailer.sent).toHaveLength(120);
    expect(new Set(mailer.sent.map((e) => e.id)).size).toBe(120);
    // the work was actually shared
    expect(results.filter((r) => r.sent > 0).length).toBeGreaterThan(1);
    const rows = await query<{ status: string; attempts: number }>(
      env.db,
      sql`select status, attempts from email_outbox`,
    );
    expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    console.log(`concurrent deliverers: sent per deliverer ${results.map((r) => r.sent).join(', ')}`);
  });
});
