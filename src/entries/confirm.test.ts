/**
 * Double opt-in: the confirmation email queued with the entry, GET /api/confirm/:token (HTML
 * page or JSON), tokens stored only hashed, unknown tokens, escaping.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';
import { sha256Hex } from '../lib/crypto.js';
import { confirmationEmail } from '../mail/templates.js';
import { newConfirmation } from '../sql/confirmation.js';

let env: TestEnv;
let a: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.team('A');
});
afterAll(async () => {
  await env.close();
});

const JSON_ACCEPT = { accept: 'application/json' };

/** Creates an entry and returns its id and the token from the queued email. */
async function signup(contestId: string, email: string, name?: string) {
  const r = await env.request('POST', `/api/v1/contests/${contestId}/entries`, {
    key: a.privateKey,
    body: { email, name },
  });
  expect(r.status).toBe(201);
  // the email as it went out (the stored copy keeps no code once sent)
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email.toLowerCase()).at(-1);
  const token = /\/api\/confirm\/([A-Za-z0-9]{32})\b/.exec(mail!.text)![1]!;
  return { entryId: r.body.data.entryId as string, token, mail: mail! };
}
const confirmed = async (id: string) =>
  (await queryOne<{ email_confirmed: boolean; confirmed_at: Date | null }>(
    env.db,
    sql`select email_confirmed, confirmed_at from entries where id = ${id}`,
  ))!;

describe('confirmation link', () => {
  it('JSON: confirms the entry; a second click answers the same success and keeps it confirmed', async () => {
    const c = await env.contest(a.teamId);
    const { entryId, token } = await signup(c.id, 'json@example.com');
    expect((await confirmed(entryId)).email_confirmed).toBe(false);
    const r = await env.request('GET', `/api/confirm/${token}`, { headers: JSON_ACCEPT });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { entryId, emailConfirmed: true } });
    const first = await confirmed(entryId);
    expect(first.email_confirmed).toBe(true);
    env.clock.advance(60_000);
    const again = await env.request('GET', `/api/confirm/${token}`, { headers: JSON_ACCEPT });
    expect(again.body).toEqual({ success: true, data: { entryId, emailConfirmed: true } });
    // the first confirmation time is kept
    expect(await confirmed(entryId)).toEqual(first);
  });

  it('HTML by default: a small page, no-store, no referrer, user values escaped', async () => {
    const c = await env.contest(a.teamId, { title: '<script>alert("t")</script> & Co' });
    const { entryId, token } = await signup(c.id, 'html@example.com', '<b>Name</b>');
    const r = await env.request('GET', `/api/confirm/${token}`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.text).toContain('Email confirmed');
    expect(r.text).toContain('html@example.com');
    expect(r.text).toContain('&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; Co');
    expect(r.text).not.toContain('<script>');
    expect((await confirmed(entryId)).email_confirmed).toBe(true);
    const again = await env.request('GET', `/api/confirm/${token}`);
    expect(again.status).toBe(200);
    expect(again.text).toContain('Already confirmed');
  });

  it('unknown, malformed and other-purpose tokens: 404 Confirmation link not found (JSON envelope or HTML page)', async () => {
    const c = await env.contest(a.teamId);
    const { entryId } = await signup(c.id, 'nobody@example.com');
    const row = await queryOne<{ referral_code: string; confirmation_token_hash: string }>(
      env.db,
      sql`select referral_code, confirmation_token_hash from entries where id = ${entryId}`,
    );
    // neither the stored hash nor the referral code works as a token
    for (const token of [
      'A'.repeat(32),
      'short',
      row!.confirmation_token_hash,
      row!.referral_code,
      `${'a'.repeat(31)}%00`,
    ]) {
      const r = await env.request('GET', `/api/confirm/${token}`, { headers: JSON_ACCEPT });
      expect([token, r.status, r.body]).toEqual([token, 404, { success: false, error: 'Confirmation link not found' }]);
      const html = await env.request('GET', `/api/confirm/${token}`);
      expect(html.status).toBe(404);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      expect(html.text).toContain('Confirmation link not found');
    }
    expect((await confirmed(entryId)).email_confirmed).toBe(false);
  });

  it('the token is 32 base62 characters; only its SHA-256 is stored; no API key is needed', async () => {
    const c = await env.contest(a.teamId);
    const { entryId, token } = await signup(c.id, 'hash@example.com');
    const row = await queryOne<{ confirmation_token_hash: string }>(
      env.db,
      sql`select confirmation_token_hash from entries where id = ${entryId}`,
    );
    expect(row!.confirmation_token_hash).toBe(await sha256Hex(token));
    const found = await queryOne(
      env.db,
      sql`select 1 from entries where confirmation_token_hash = ${token} or referral_code = ${token}`,
    );
    expect(found).toBeUndefined();
  });

  it('works whatever the contest’s state (the entry exists; confirming its email changes no points)', async () => {
    const c = await env.contest(a.teamId);
    const { entryId, token } = await signup(c.id, 'ended@example.com');
    await env.db.execute(sql`update contests set status = 'ended' where id = ${c.id}`);
    const r = await env.request('GET', `/api/confirm/${token}`, { headers: JSON_ACCEPT });
    expect(r.status).toBe(200);
    expect((await confirmed(entryId)).email_confirmed).toBe(true);
  });
});

describe('confirmation email content rendered in SQL', () => {
  it('equals what confirmationEmail() renders in JavaScript, for nasty titles and names', async () => {
    const cases: [string, string | null][] = [
      ['Summer Giveaway', 'Ann'],
      ['<b>Big</b> "quoted" & \'single\'', '<i>Eve</i> & co'],
      ['Line\nbreak\ttitle', null],
      ['x'.repeat(300), 'Long'],
      ['$1 $& \\ %s', '$2'],
    ];
    for (const [title, name] of cases) {
      const pending = await newConfirmation(env.deps.random, 'http://contests.test');
      const content = pending.content({ title: sql`${title}::text`, name: sql`${name}::text` });
      const row = await queryOne<{ subject: string; text: string; html: string }>(
        env.db,
        sql`select ${content.subject} as subject, ${content.text} as text, ${content.html} as html`,
      );
      const link = /http:\/\/contests\.test\/api\/confirm\/[A-Za-z0-9]{32}/.exec(row!.text)![0];
      const expected = confirmationEmail({ contestTitle: title, link });
      // no name in it, whatever the name holds
      if (name) expect(row!.text).not.toContain(name);
      expect(row).toEqual({ subject: expected.subject, text: expected.text, html: expected.html });
    }
  });
});
