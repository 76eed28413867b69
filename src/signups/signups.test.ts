/**
 * Sign-ups from a page with a public key: opt-in per contest, always confirmed by email, consent
 * kept, the visitor's token and their own entry (/me), positions equal to the leaderboard's order,
 * the "your link" email for an email already entered, and Cloudflare Turnstile against a local
 * stand-in for siteverify (success, failure, unreachable).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';
import { query, queryOne } from '../db/client.js';

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;
let siteverify: Server;
let siteverifyUrl: string;
const verified: URLSearchParams[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
  other = await env.team('Other');
  // Turnstile's siteverify, here: token "pass" passes, anything else fails
  siteverify = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      verified.push(form);
      const success = form.get('secret') === 'turnstile-secret' && form.get('response') === 'pass';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success, 'error-codes': success ? [] : ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((r) => siteverify.listen(0, '127.0.0.1', r));
  siteverifyUrl = `http://127.0.0.1:${(siteverify.address() as AddressInfo).port}/siteverify`;
  // the stand-in answers from this process, which PGlite may keep busy for seconds on a loaded
  // machine: siteverify's 5 s limit would then answer 503 for nothing
  env.deps.config.turnstile = {
    secretKey: 'turnstile-secret',
    siteKey: 'site-key-1',
    verifyUrl: siteverifyUrl,
    timeoutMs: 60_000,
  };
});
afterAll(async () => {
  await env.close();
  await new Promise<void>((r) => siteverify.close(() => r()));
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const neverLimit = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };

async function contest(settings: Record<string, unknown> = {}) {
  const c = await env.contest(t.teamId, { requireEmailConfirmation: false, ...settings });
  const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
    key: t.privateKey,
    body: { publicSignup: true, ...settings },
  });
  expect(r.status, r.text).toBe(200);
  return c.id;
}
const signup = (contestId: string, body: Record<string, unknown>, key = t.publicKey, headers = {}) =>
  env.request('POST', `/api/v1/contests/${contestId}/signup`, { key, body, headers });
const me = (token: string) => env.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
const counts = async () =>
  (await queryOne<{ entries: number; tokens: number; mails: number }>(
    env.db,
    sql`select (select count(*)::int from entries) as entries, (select count(*)::int from entry_tokens) as tokens,
          (select count(*)::int from email_outbox) as mails`,
  ))!;
/** Clicks the link of the last email to `email`; answers the fresh entry token of the redirect (a contest with a landing page) */
async function confirmFromEmail(email: string): Promise<string | null> {
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email).at(-1)!;
  const token = /\/api\/confirm\/([A-Za-z0-9]{32})\b/.exec(mail.text)![1]!;
  const res = await env.app.request(`/api/confirm/${token}`, { headers: { accept: 'text/html' } });
  expect([200, 303]).toContain(res.status);
  const location = res.headers.get('location');
  return location ? /#ce-entry=(et_[A-Za-z0-9]{40})$/.exec(location)![1]! : null;
}

describe('contest settings', () => {
  it('publicSignup, consentText, landingUrl, botCheck, bonusActionsNeedEntryToken: off by default, validated', async () => {
    const c = await env.contest(t.teamId);
    const got = await env.request('GET', `/api/v1/contests/${c.id}/settings`, { key: t.privateKey });
    expect(got.status, got.text).toBe(200);
    expect(got.body.data).toMatchObject({
      publicSignup: false,
      consentText: null,
      landingUrl: null,
      botCheck: 'off',
      bonusActionsNeedEntryToken: false,
    });
    for (const [body, message] of [
      [{ publicSignup: 'yes' }, 'publicSignup must be a boolean'],
      [{ landingUrl: 'http://shop.example/join' }, 'landingUrl must be an https URL'],
      [{ landingUrl: 'http://localhost.evil.example/join' }, 'landingUrl must be an https URL'],
      [{ landingUrl: 'http://127.0.0.1.nip.example/' }, 'landingUrl must be an https URL'],
      [{ landingUrl: 'ftp://localhost/join' }, 'landingUrl must be an https URL'],
      [{ botCheck: 'captcha' }, 'botCheck must be off or turnstile'],
      [{ consentText: 'x'.repeat(2001) }, 'consentText must be at most 2000 characters'],
    ] as const) {
      const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body });
      expect([r.status, r.body.error]).toEqual([400, message]);
    }
    // a page under development on this machine
    for (const landingUrl of ['http://localhost:4710/waitlist', 'http://127.0.0.1:8080', 'http://localhost/#x']) {
      const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body: { landingUrl } });
      expect([r.status, r.body.data?.landingUrl]).toEqual([200, landingUrl]);
    }
  });
});

describe('POST /contests/{contestId}/signup', () => {
  it('403 while the contest does not take public sign-ups, and nothing is written', async () => {
    const c = await env.contest(t.teamId);
    const before = await counts();
    const r = await signup(c.id, { email: 'nope@example.com' });
    expect([r.status, r.body]).toEqual([
      403,
      { success: false, error: 'Sign-ups with a public key are off for this contest' },
    ]);
    expect(await counts()).toEqual(before);
  });

  it('a public sign-up needs its email confirmed, whatever the contest says; the token reaches its entry', async () => {
    const id = await contest({ requireEmailConfirmation: false });
    const r = await signup(id, { email: 'Ann@Example.com', name: 'Ann' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toEqual({
      entryId: expect.any(String),
      referralCode: expect.any(String),
      entryToken: expect.stringMatching(/^et_[A-Za-z0-9]{40}$/),
      confirmationRequired: true,
      position: null,
    });
    const token = r.body.data.entryToken as string;
    // only the token's hash is stored
    const stored = await query<{ token_hash: string }>(
      env.db,
      sql`select token_hash from entry_tokens where entry_id = ${r.body.data.entryId}`,
    );
    expect(stored).toEqual([{ token_hash: sha256(token) }]);
    const before = await me(token);
    expect(before.status, before.text).toBe(200);
    expect(before.body.data).toMatchObject({
      entryId: r.body.data.entryId,
      contestId: id,
      email: 'ann@example.com',
      name: 'Ann',
      points: 0,
      position: null,
      total: 0,
      confirmed: false,
      referralsCount: 0,
      confirmedReferrals: 0,
      pendingReferrals: 0,
    });
    // no landing page: the confirmation leads to the contest's hosted page with a fresh token
    expect(await confirmFromEmail('ann@example.com')).toMatch(/^et_/);
    // the token of the sign-up's answer ended with the confirmation: whoever signed up held it
    expect([(await me(token)).status, (await me(token)).body.error]).toEqual([401, 'Missing or invalid entry token']);
    const entry = await env.request('GET', `/api/v1/entries/${r.body.data.entryId}`, { key: t.privateKey });
    expect(entry.body.data).toMatchObject({ position: 1, emailConfirmed: true });
  });

  it('/me counts friends as the rewards do: those who count, those still to confirm, a disqualified one in neither', async () => {
    const id = await contest();
    const adv = await signup(id, { email: 'fr-adv@example.com' });
    expect(adv.status, adv.text).toBe(201);
    const friends: string[] = [];
    for (const email of ['fr1@example.com', 'fr2@example.com', 'fr3@example.com']) {
      const r = await signup(id, { email, referralCode: adv.body.data.referralCode });
      expect(r.status, r.text).toBe(201);
      friends.push(r.body.data.entryId);
    }
    for (const entryId of [adv.body.data.entryId, friends[0], friends[2]])
      await query(env.db, sql`update entries set email_confirmed = true where id = ${entryId}`);
    const dq = await env.request('POST', `/api/v1/entries/${friends[2]}/disqualify`, {
      key: t.privateKey,
      body: { disqualify: true },
    });
    expect(dq.status).toBe(200);
    // the friends came from the advocate's own address (the tests' client): flagged self_referral,
    // they wait for review; one confirmed and waiting, one not confirmed, one disqualified
    const first = await env.request('GET', `/api/v1/entries/${friends[0]}`, { key: t.privateKey });
    expect(first.body.data.risk).toMatchObject({ reasons: ['self_referral'], review: null });
    expect((await me(adv.body.data.entryToken)).body.data).toMatchObject({
      referralsCount: 3,
      confirmedReferrals: 0,
      pendingReferrals: 2,
    });
    // approved: it counts
    const ok = await env.request('POST', `/api/v1/entries/${friends[0]}/review`, {
      key: t.privateKey,
      body: { decision: 'approve' },
    });
    expect(ok.status, ok.text).toBe(200);
    const m = await me(adv.body.data.entryToken);
    expect(m.body.data).toMatchObject({ referralsCount: 3, confirmedReferrals: 1, pendingReferrals: 1 });
    // the rewards count the same friends: a reward of two friends is one away
    const reward = await env.request('POST', `/api/v1/contests/${id}/rewards`, {
      key: t.privateKey,
      body: { name: 'Two friends', referralsRequired: 2 },
    });
    expect(reward.status).toBe(201);
    expect((await me(adv.body.data.entryToken)).body.data.rewards.next).toMatchObject({ referralsMissing: 1 });
  });

  it("with a landing page, the confirmation leads back there with a fresh token; the sign-up answer's token ends", async () => {
    const id = await contest({ landingUrl: 'https://acme.example/waitlist' });
    const r = await signup(id, { email: 'lander@example.com' });
    expect(r.status, r.text).toBe(201);
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'lander@example.com')!;
    // the link carries no entry token: a stranger who signed up someone's email cannot hand them their own
    expect(mail.text).not.toContain('ce-entry');
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const res = await env.app.request(`/api/confirm/${code}`, { headers: { accept: 'text/html' } });
    const location = res.headers.get('location')!;
    expect([res.status, location]).toEqual([
      303,
      expect.stringMatching(/^https:\/\/acme\.example\/waitlist#ce-entry=et_[A-Za-z0-9]{40}$/),
    ]);
    const fresh = location.split('#ce-entry=')[1]!;
    expect((await me(fresh)).body.data).toMatchObject({ entryId: r.body.data.entryId, confirmed: true });
    expect((await me(r.body.data.entryToken)).status).toBe(401);
    const kinds = await query<{ kind: string }>(
      env.db,
      sql`select kind from entry_tokens where entry_id = ${r.body.data.entryId}`,
    );
    expect(kinds).toEqual([{ kind: 'email' }]);
    // a second click still leads there, with another token; the first stays
    const again = await env.app.request(`/api/confirm/${code}`, { headers: { accept: 'text/html' } });
    const second = again.headers.get('location')!.split('#ce-entry=')[1]!;
    expect(second).not.toBe(fresh);
    expect((await me(fresh)).status).toBe(200);
    expect((await me(second)).status).toBe(200);
  });

  it('pre-registration: a stranger who signed up your email keeps nothing once you confirm, and their referral waits for it', async () => {
    const id = await contest({
      landingUrl: 'https://acme.example/p',
      referral: { advocatePoints: 10, friendPoints: 5 },
    });
    const stranger = await signup(id, { email: 'stranger@example.com' }, t.privateKey);
    const forged = await signup(id, { email: 'owner@example.com', referralCode: stranger.body.data.referralCode });
    expect(forged.status).toBe(201);
    // the owner signs up later: already entered, nothing is said about the entry
    const owner = await signup(id, { email: 'owner@example.com' });
    expect([owner.status, owner.body]).toEqual([200, { success: true, data: { alreadyExists: true, linkSent: true } }]);
    const strangerPoints = async () =>
      (await env.request('GET', `/api/v1/entries/${stranger.body.data.entryId}`, { key: t.privateKey })).body.data
        .points;
    expect(await strangerPoints()).toBe(0);
    // the owner clicks the confirmation email (the only email with a confirmation link)
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'owner@example.com' && /\/api\/confirm\//.test(m.text))!;
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.text)![1]!;
    const res = await env.app.request(`/api/confirm/${code}`);
    const ownerToken = res.headers.get('location')!.split('#ce-entry=')[1]!;
    expect((await me(forged.body.data.entryToken)).status).toBe(401);
    expect((await me(ownerToken)).body.data.email).toBe('owner@example.com');
    // what remains: the referral the stranger made is credited once the owner confirmed (docs/signups.md)
    expect(await strangerPoints()).toBe(10);
  });

  it('with a private key the contest decides: counted at once, with its position', async () => {
    const id = await contest({ requireEmailConfirmation: false });
    await signup(id, { email: 'first@example.com' }, t.privateKey);
    const r = await signup(id, { email: 'second@example.com' }, t.privateKey);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ confirmationRequired: false, position: 2 });
  });

  it('consentText: consent true is required (400, nothing written); the entry keeps when and the SHA-256 of the text', async () => {
    const text = 'I agree to receive the newsletter and to the rules.';
    const id = await contest({ consentText: text });
    const before = await counts();
    for (const consent of [undefined, false]) {
      const r = await signup(id, { email: 'c@example.com', consent });
      expect([r.status, r.body.error]).toEqual([400, 'consent is required']);
    }
    expect(await counts()).toEqual(before);
    const ok = await signup(id, { email: 'c@example.com', consent: true });
    expect(ok.status, ok.text).toBe(201);
    const entry = await env.request('GET', `/api/v1/entries/${ok.body.data.entryId}`, { key: t.privateKey });
    expect(entry.body.data.consent).toEqual({ at: expect.any(String), textSha256: sha256(text) });
    const csv = await env.request('GET', `/api/v1/contests/${id}/entries/export`, { key: t.privateKey });
    expect(csv.text.split('\r\n')[0]).toMatch(/,consentedAt,consentTextSha256,admittedAt$/);
    expect(csv.text).toContain(sha256(text));
    // erasure takes the consent record and the tokens with the person
    expect((await env.request('DELETE', `/api/v1/entries/${ok.body.data.entryId}`, { key: t.privateKey })).status).toBe(
      200,
    );
    const after = await queryOne<Record<string, unknown>>(
      env.db,
      sql`select consented_at, consent_text_sha256, (select count(*)::int from entry_tokens where entry_id = e.id) as tokens
          from entries e where id = ${ok.body.data.entryId}`,
    );
    expect(after).toEqual({ consented_at: null, consent_text_sha256: null, tokens: 0 });
    expect((await me(ok.body.data.entryToken)).status).toBe(401);
  });

  it('an email already entered: 200 alreadyExists and nothing else; its owner gets a link to their page, once per 10 minutes', async () => {
    const id = await contest({ landingUrl: 'https://shop.example/waitlist' });
    const first = await signup(id, { email: 'dup@example.com', name: 'Dee' });
    expect(first.status).toBe(201);
    await env.settle();
    const again = await signup(id, { email: 'dup@example.com' });
    expect([again.status, again.body]).toEqual([200, { success: true, data: { alreadyExists: true, linkSent: true } }]);
    await env.settle();
    const link = env.sent.filter((m) => m.to === 'dup@example.com' && /already entered/.test(m.text));
    expect(link).toHaveLength(1);
    const token = /https:\/\/shop\.example\/waitlist#ce-entry=(et_[A-Za-z0-9]{40})/.exec(link[0]!.text)![1]!;
    expect((await me(token)).body.data).toMatchObject({ entryId: first.body.data.entryId, name: 'Dee' });
    expect(link[0]!.html).toContain(`href="https://shop.example/waitlist#ce-entry=${token}"`);
    // within 10 minutes: no second email, and the answer says so
    const soon = await signup(id, { email: 'dup@example.com' });
    expect(soon.body.data).toEqual({ alreadyExists: true, linkSent: false });
    await env.settle();
    expect(env.sent.filter((m) => m.to === 'dup@example.com' && /already entered/.test(m.text))).toHaveLength(1);
    env.clock.advance(10 * 60_000);
    expect((await signup(id, { email: 'dup@example.com' })).body.data).toEqual({ alreadyExists: true, linkSent: true });
    await env.settle();
    expect(env.sent.filter((m) => m.to === 'dup@example.com' && /already entered/.test(m.text))).toHaveLength(2);
  });

  it("GET /contests/{contestId}/signup: what the widget shows; another team's key: 404", async () => {
    const id = await contest({ consentText: 'Yes.', botCheck: 'turnstile' });
    const r = await env.request('GET', `/api/v1/contests/${id}/signup`, { key: t.publicKey });
    expect(r.body.data).toEqual({
      contestId: id,
      title: 'Test contest',
      description: null,
      mode: 'giveaway',
      publicSignup: true,
      consentText: 'Yes.',
      botCheck: 'turnstile',
      turnstileSiteKey: 'site-key-1',
      // no landingUrl: the hosted page is where the "your link" email leads
      sendsLink: true,
      shareMessage: 'Join me: {{link}}',
      shareChannels: ['x', 'facebook', 'linkedin', 'whatsapp', 'email', 'copy', 'native'],
      theme: {},
      signupFields: [],
    });
    expect((await env.request('GET', `/api/v1/contests/${id}/signup`, { key: other.publicKey })).status).toBe(404);
    expect(
      (await signup(id, { email: 'x@example.com', turnstileToken: 'pass', consent: true }, other.publicKey)).status,
    ).toBe(404);
  });
});

describe('Turnstile (a local stand-in for siteverify)', () => {
  it('a passing token signs up; a failing or missing one is 403; siteverify unreachable is 503; nothing written on a refusal', async () => {
    const id = await contest({ botCheck: 'turnstile' });
    const before = await counts();
    const failed = await signup(id, { email: 'bot@example.com', turnstileToken: 'fail' }, t.publicKey, {
      'x-forwarded-for': '198.51.100.23',
    });
    expect([failed.status, failed.body.error]).toEqual([403, 'Bot check failed']);
    expect(verified.at(-1)?.get('remoteip')).toBe('198.51.100.23');
    const missing = await signup(id, { email: 'bot@example.com' });
    expect([missing.status, missing.body.error]).toEqual([403, 'Bot check failed']);
    const saved = env.deps.config.turnstile;
    env.deps.config.turnstile = { ...saved, verifyUrl: 'http://127.0.0.1:1/siteverify' };
    try {
      const down = await signup(id, { email: 'bot@example.com', turnstileToken: 'pass' });
      expect([down.status, down.body.error]).toEqual([503, 'Bot check unavailable, try again']);
    } finally {
      env.deps.config.turnstile = saved;
    }
    expect(await counts()).toEqual(before);
    const passed = await signup(id, { email: 'human@example.com', turnstileToken: 'pass' });
    expect(passed.status, passed.text).toBe(201);
  });

  it('a connection siteverify closes at once (a kept-alive socket it had dropped) is tried once more', async () => {
    let requests = 0;
    const flaky = createServer((req, res) => {
      requests++;
      if (requests === 1) return void req.socket.destroy();
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true }));
      });
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const saved = env.deps.config.turnstile;
    env.deps.config.turnstile = { ...saved, verifyUrl: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/` };
    try {
      const id = await contest({ botCheck: 'turnstile' });
      const r = await signup(id, { email: 'retried@example.com', turnstileToken: 'anything' });
      expect([r.status, requests]).toEqual([201, 2]);
    } finally {
      env.deps.config.turnstile = saved;
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });

  it('a contest without the bot check takes sign-ups without a token', async () => {
    const id = await contest();
    expect((await signup(id, { email: 'plain@example.com' })).status).toBe(201);
  });
});

describe('GET /api/v1/me', () => {
  it('a missing, malformed or unknown token is 401; a token reaches its own entry only', async () => {
    for (const authorization of [
      undefined,
      'Bearer nope',
      `Bearer et_${'a'.repeat(40)}`,
      `Basic et_${'a'.repeat(40)}`,
    ]) {
      const r = await env.request('GET', '/api/v1/me', { headers: authorization ? { authorization } : {} });
      expect([r.status, r.body]).toEqual([401, { success: false, error: 'Missing or invalid entry token' }]);
    }
    const id = await contest();
    const a = await signup(id, { email: 'a@example.com' });
    const b = await signup(id, { email: 'b@example.com' });
    expect((await me(a.body.data.entryToken)).body.data.entryId).toBe(a.body.data.entryId);
    expect((await me(b.body.data.entryToken)).body.data.entryId).toBe(b.body.data.entryId);
    // the token is no API key: it opens nothing else
    const withToken = await env.request('GET', `/api/v1/entries/${b.body.data.entryId}`, {
      headers: { authorization: `Bearer ${a.body.data.entryToken}` },
    });
    expect(withToken.status).toBe(401);
  });
});

describe('positions', () => {
  it("equal each entry's index in the full leaderboard, after points change, a disqualification and an erasure", async () => {
    const id = await contest({ requireEmailConfirmation: false });
    const entries: { id: string; token: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await signup(id, { email: `p${i}@example.com` }, t.privateKey);
      expect(r.status, r.text).toBe(201);
      entries.push({ id: r.body.data.entryId, token: r.body.data.entryToken });
      // 25 minutes apart: entries of one points value across several hours (the hour totals)
      env.clock.advance(25 * 60_000);
    }
    const check = async () => {
      const board = await env.request('GET', `/api/v1/contests/${id}/leaderboard?limit=100`, { key: t.privateKey });
      const order: string[] = board.body.data.map((row: { id: string }) => row.id);
      for (const e of entries) {
        const expected = order.indexOf(e.id);
        const detail = await env.request('GET', `/api/v1/entries/${e.id}`, { key: t.privateKey });
        if (detail.status === 404) continue; // erased
        const mine = await me(e.token);
        const position = expected === -1 ? null : expected + 1;
        expect([e.id, detail.body.data.position, mine.body.data.position]).toEqual([e.id, position, position]);
        expect(mine.body.data.total).toBe(order.length);
      }
    };
    // the every-minute fold moves the appended deltas into the totals: positions stay the same
    const checkFolded = async () => {
      await check();
      await query(env.db, sql`select ce_fold_positions()`);
      expect(await query(env.db, sql`select 1 from position_deltas where contest_id = ${id}`)).toEqual([]);
      const totals = await queryOne<{ folded: number; direct: number }>(
        env.db,
        sql`select (select coalesce(sum(n), 0)::int from position_points where contest_id = ${id}) as folded,
                   (select count(*)::int from entries where contest_id = ${id} and email_confirmed and not disqualified
                      and erased_at is null) as direct`,
      );
      expect(totals!.folded).toBe(totals!.direct);
      await check();
    };
    await checkFolded();
    for (const [i, points] of [
      [3, 50],
      [7, 50],
      [0, 10],
      [11, 50],
      [5, -0],
    ] as const) {
      if (points === 0) continue;
      const r = await env.request('POST', `/api/v1/entries/${entries[i]!.id}/points`, {
        key: t.privateKey,
        body: { points, reason: 'test' },
      });
      expect(r.status, r.text).toBe(200);
    }
    await checkFolded();
    await env.request('POST', `/api/v1/entries/${entries[7]!.id}/disqualify`, {
      key: t.privateKey,
      body: { disqualify: true },
    });
    await env.request('DELETE', `/api/v1/entries/${entries[3]!.id}`, { key: t.privateKey });
    await checkFolded();
  });
});

describe('bonus actions with the entry token', () => {
  it("count for the token's own entry; another entry's token is 401; a contest that asks for it refuses a public key without it", async () => {
    const id = await contest({ requireEmailConfirmation: false, bonusActionsNeedEntryToken: true });
    const a = await signup(id, { email: 'ba@example.com' }, t.privateKey);
    const b = await signup(id, { email: 'bb@example.com' }, t.privateKey);
    const action = await createBonusAction(env.db, id, { action: 'Visit', points: 5, confirmationType: 'click' });
    const complete = (entryId: string, headers: Record<string, string> = {}, key = t.publicKey) =>
      env.request('POST', `/api/v1/entries/${entryId}/bonus-actions/${action.id}/complete`, { key, body: {}, headers });
    const none = await complete(a.body.data.entryId);
    expect([none.status, none.body.error]).toEqual([
      403,
      'This contest needs the entry token to complete bonus actions',
    ]);
    const wrong = await complete(a.body.data.entryId, { authorization: `Bearer ${b.body.data.entryToken}` });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'Missing or invalid entry token']);
    expect((await me(a.body.data.entryToken)).body.data.points).toBe(0);
    const own = await complete(a.body.data.entryId, { authorization: `Bearer ${a.body.data.entryToken}` });
    expect([own.status, own.body.data.pointsAdded]).toEqual([200, 5]);
    // the team's own server (private key) needs no token
    expect((await complete(b.body.data.entryId, {}, t.privateKey)).status).toBe(200);
  });
});

describe('credit on proof', () => {
  it('a public sign-up credits nobody and earns nothing until its email is confirmed, whatever referral.creditOn says', async () => {
    const id = await contest({ requireEmailConfirmation: false, referral: { advocatePoints: 10, friendPoints: 5 } });
    const settings = await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey });
    expect(settings.body.data.referral.creditOn).toBe('create');
    const ann = await signup(id, { email: 'proof-ann@example.com' }, t.privateKey);
    expect(ann.status, ann.text).toBe(201);
    const bob = await signup(id, { email: 'proof-bob@example.com', referralCode: ann.body.data.referralCode });
    expect(bob.status, bob.text).toBe(201);
    const action = await createBonusAction(env.db, id, { action: 'Follow', points: 50, confirmationType: 'auto' });
    const complete = (token: string) =>
      env.request('POST', `/api/v1/entries/${bob.body.data.entryId}/bonus-actions/${action.id}/complete`, {
        key: t.publicKey,
        body: {},
        headers: { authorization: `Bearer ${token}` },
      });
    const early = await complete(bob.body.data.entryToken);
    expect([early.status, early.body.error]).toEqual([403, 'Confirm your email before completing bonus actions']);
    const points = async () =>
      (
        await query<{ email: string; points: number; ledger: number }>(
          env.db,
          sql`select e.email, e.points, (select coalesce(sum(delta), 0)::int from points_ledger l where l.entry_id = e.id) as ledger
            from entries e where e.contest_id = ${id} order by e.email`,
        )
      ).map((r) => [r.email, r.points, r.ledger]);
    expect(await points()).toEqual([
      ['proof-ann@example.com', 0, 0],
      ['proof-bob@example.com', 0, 0],
    ]);
    expect(await query(env.db, sql`select 1 from bonus_completions where entry_id = ${bob.body.data.entryId}`)).toEqual(
      [],
    );
    expect(await confirmFromEmail('proof-bob@example.com')).toMatch(/^et_/);
    expect(await points()).toEqual([
      ['proof-ann@example.com', 10, 10],
      ['proof-bob@example.com', 5, 5],
    ]);
    const later = await env.request(
      'POST',
      `/api/v1/entries/${bob.body.data.entryId}/bonus-actions/${action.id}/complete`,
      { key: t.publicKey, body: {} },
    );
    expect([later.status, later.body.data?.pointsAdded]).toEqual([200, 50]);
  });
});

describe('the address in the rules', () => {
  it("a public sign-up passes the client's address and browser to the risk rules: hashes kept, ip_velocity past the limit", async () => {
    const id = await contest({ risk: { maxEntriesPerIpPerHour: 3 } });
    const headers = { 'x-forwarded-for': '198.51.100.77', 'user-agent': 'probe/1.0' };
    const risks: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await signup(id, { email: `velo${i}@example.com` }, t.publicKey, headers);
      expect(r.status, r.text).toBe(201);
      const row = await queryOne<{
        risk_level: string;
        risk_reasons: string[];
        ip_hash: string | null;
        ua: string | null;
      }>(
        env.db,
        sql`select risk_level, risk_reasons, ip_hash, user_agent_hash as ua from entries where id = ${r.body.data.entryId}`,
      );
      expect(row!.ip_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row!.ua).toMatch(/^[0-9a-f]{64}$/);
      risks.push(`${row!.risk_level}:${row!.risk_reasons.join(',')}`);
    }
    expect(risks).toEqual(['none:', 'none:', 'none:', 'review:ip_velocity', 'review:ip_velocity']);
  });
});

describe('order of checks', () => {
  it('no request without a valid key reaches siteverify, nor one for a contest without the bot check; unknown keys are limited per address', async () => {
    const id = await contest({ botCheck: 'turnstile' });
    const plain = await contest();
    const calls = verified.length;
    const made = `pk_${'Z'.repeat(40)}`;
    const bad = await signup(id, { email: 'k@example.com', turnstileToken: 'pass' }, made, {
      'x-forwarded-for': '198.51.100.90',
    });
    expect([bad.status, bad.body.error]).toEqual([401, 'Missing or invalid API key']);
    expect((await signup(plain, { email: 'k2@example.com', turnstileToken: 'pass' })).status).toBe(201);
    expect(verified.length).toBe(calls);
    expect((await signup(id, { email: 'k3@example.com', turnstileToken: 'pass' })).status).toBe(201);
    expect(verified.length).toBe(calls + 1);
    // made-up keys from one address: past 100 a minute, 429 before the database, whatever key
    for (let i = 1; i < 100; i++) {
      const r = await signup(
        id,
        { email: 'k@example.com', turnstileToken: 'pass' },
        `pk_${String(i).padStart(40, 'Q')}`,
        {
          'x-forwarded-for': '198.51.100.90',
        },
      );
      expect(r.status).toBe(401);
    }
    const limited = await signup(id, { email: 'k4@example.com' }, t.publicKey, { 'x-forwarded-for': '198.51.100.90' });
    expect([limited.status, limited.body.error]).toEqual([429, 'Too many requests']);
    // another address is not refused
    expect(
      (await signup(plain, { email: 'k5@example.com' }, t.publicKey, { 'x-forwarded-for': '198.51.100.91' })).status,
    ).toBe(201);
    env.clock.advance(61_000);
    expect(
      (await signup(plain, { email: 'k4@example.com' }, t.publicKey, { 'x-forwarded-for': '198.51.100.90' })).status,
    ).toBe(201);
    expect(verified.length).toBe(calls + 1);
  });
});

describe('no flooding', () => {
  it('at most 3 confirmation emails an hour per mailbox (+tags, case and Gmail dots folded); later sign-ups answer as usual', async () => {
    const id = await contest();
    const spellings = [
      'Vic.Tim@gmail.com',
      'victim+1@gmail.com',
      'v.i.c.t.i.m+2@googlemail.com',
      'victim+3@gmail.com',
      'VICTIM+4@gmail.com',
    ];
    for (const email of spellings) {
      const r = await signup(id, { email }, t.publicKey, { 'x-forwarded-for': '198.51.100.120' });
      expect(r.status, r.text).toBe(201);
    }
    await env.settle();
    const toVictim = () =>
      env.sent.filter((m) => /^v\.?i\.?c\.?t\.?i\.?m/i.test(m.to.replace(/\./g, '')) && /confirm/i.test(m.subject));
    expect(toVictim()).toHaveLength(3);
    // another mailbox is not held back
    expect((await signup(id, { email: 'someone.else@example.com' })).status).toBe(201);
    await env.settle();
    expect(env.sent.filter((m) => m.to === 'someone.else@example.com')).toHaveLength(1);
    // an hour later the mailbox gets one again
    env.clock.advance(3_600_001);
    expect((await signup(id, { email: 'victim+5@gmail.com' })).status).toBe(201);
    await env.settle();
    expect(toVictim()).toHaveLength(4);
    // erasing the person takes their mailbox's count with them
    const box = sql`select count(*)::int as n from mailbox_sends
      where team_id = ${t.teamId} and mailbox = encode(sha256(convert_to(ce_email_norm('victim@gmail.com'), 'UTF8')), 'hex')`;
    expect((await queryOne<{ n: number }>(env.db, box))!.n).toBe(1);
    const victim = await queryOne<{ id: string }>(
      env.db,
      sql`select id from entries where email = 'victim+5@gmail.com'`,
    );
    expect((await env.request('DELETE', `/api/v1/entries/${victim!.id}`, { key: t.privateKey })).status).toBe(200);
    expect((await queryOne<{ n: number }>(env.db, box))!.n).toBe(0);
  });

  it('one share per mailbox across confirmations, "your link" emails and the team\'s contests; no typed name in any', async () => {
    const own = await createTestEnv({ rateLimiter: neverLimit, publicRateLimiter: neverLimit });
    try {
      const team = await own.team();
      const shop = 'https://shop.example/join';
      const contests = [];
      for (let i = 0; i < 2; i++) {
        const c = await own.contest(team.teamId, { publicSignup: true, landingUrl: shop });
        contests.push(c.id);
      }
      const name = 'Claim your $1000 at evil.example';
      const send = (contestId: string, email: string) =>
        own.request('POST', `/api/v1/contests/${contestId}/signup`, { body: { email, name } });
      // 8 new aliases, then the same 8 again (each a "your link"), in two contests
      for (const contestId of contests) {
        for (let round = 0; round < 2; round++) {
          for (let i = 1; i <= 8; i++) {
            const r = await send(contestId, `flood.victim+${i}@gmail.com`);
            expect(r.status, r.text).toBe(round === 0 ? 201 : 200);
          }
        }
      }
      await own.settle();
      const toVictim = own.sent.filter((m) => m.to.startsWith('flood.victim'));
      expect(toVictim).toHaveLength(3);
      for (const m of toVictim) {
        expect(m.subject + m.text + (m.html ?? '')).not.toContain('evil.example');
        expect(m.text).toMatch(/^Hi,|^Hi there,|Confirm/m);
      }
      // a repeat an hour later: "your link" again, one email, still no name
      own.clock.advance(3_600_001);
      expect((await send(contests[0]!, 'flood.victim+1@gmail.com')).status).toBe(200);
      await own.settle();
      const later = own.sent.filter((m) => m.to.startsWith('flood.victim')).slice(3);
      expect(later).toHaveLength(1);
      expect(later[0]!.text).toContain('#ce-entry=et_');
      expect(later[0]!.text).not.toContain('evil.example');
      // the team's own server (a private key) is trusted with the name it sends
      const trusted = await own.request('POST', `/api/v1/contests/${contests[1]}/signup`, {
        key: team.privateKey,
        body: { email: 'friend@example.com', name: 'Ann' },
      });
      expect(trusted.status).toBe(201);
      await own.settle();
      expect(own.sent.filter((m) => m.to === 'friend@example.com')).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
