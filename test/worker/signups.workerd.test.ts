/**
 * Sign-ups from a page through the real Worker in workerd: a public-key sign-up in one statement
 * (one SQL request at the edge), the confirmation email sent after the answer, the visitor's own
 * entry read with the entry token before and after the confirmation, positions, and refusals that
 * write nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  eventually,
  hasPostgres,
  makeContest,
  makeTeam,
  quietSqlRequests as quiet,
  resendLog,
  type Team,
} from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);

describe.skipIf(!hasPostgres)('sign-ups on the Worker', () => {
  let team: Team;
  beforeAll(async () => {
    team = await makeTeam('Sign-ups');
  });

  it('a public sign-up: one SQL request, the email confirmed before it counts, /me follows it', async () => {
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false, publicSignup: true });
    const email = `visitor-${tag}@example.com`;
    const before = await quiet();
    const r = await call('POST', `/api/v1/contests/${c.id}/signup`, {
      key: team.publicKey,
      body: { email, name: 'Vi' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ confirmationRequired: true, position: null });
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    // one SQL request at the edge for the sign-up (the email goes after the answer)
    expect((await quiet()) - before).toBeGreaterThanOrEqual(1);
    const token = r.body.data.entryToken as string;
    const me = () => call('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
    expect((await me()).body.data).toMatchObject({ email, position: null, total: 0, confirmed: false });
    const mail = await eventually(
      async () =>
        (await resendLog()).delivered.find((d) => d.body?.to?.[0] === email) as { body: { text: string } } | undefined,
    );
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.body.text)![1]!;
    expect((await call('GET', `/api/confirm/${confirm}`)).status).toBe(200);
    // the token of the sign-up's answer ended with the confirmation (whoever signed up held it)
    expect((await me()).status).toBe(401);
    const entry = await call('GET', `/api/v1/entries/${r.body.data.entryId}`, { key: team.privateKey });
    expect(entry.body.data).toMatchObject({ position: 1, emailConfirmed: true });
  });

  it("the visitor's address (CF-Connecting-IP) in the risk rules; credit on proof; a fresh token with the confirmation's redirect", async () => {
    const c = await makeContest(team.teamId, {
      requireEmailConfirmation: false,
      publicSignup: true,
      landingUrl: 'https://shop.example/join',
      referral: { advocatePoints: 10, friendPoints: 5 },
      risk: { maxEntriesPerIpPerHour: 2 },
    });
    const ann = await call('POST', `/api/v1/contests/${c.id}/signup`, {
      key: team.privateKey,
      body: { email: `ann-${tag}@example.com` },
    });
    expect(ann.status, ann.text).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', `/api/v1/contests/${c.id}/signup`, {
        key: team.publicKey,
        body: { email: `ip${i}-${tag}@example.com`, referralCode: ann.body.data.referralCode },
        headers: { 'cf-connecting-ip': '198.51.100.44' },
      });
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.data.entryId);
    }
    const risk = async (id: string) =>
      (await call('GET', `/api/v1/entries/${id}`, { key: team.privateKey })).body.data.risk.reasons;
    expect([await risk(ids[0]!), await risk(ids[2]!)]).toEqual([[], ['ip_velocity']]);
    // nobody was credited before a confirmation
    const annPoints = async () =>
      (await call('GET', `/api/v1/entries/${ann.body.data.entryId}`, { key: team.privateKey })).body.data.points;
    expect(await annPoints()).toBe(0);
    const email = `ip0-${tag}@example.com`;
    const mail = await eventually(
      async () =>
        (await resendLog()).delivered.find((d) => d.body?.to?.[0] === email) as { body: { text: string } } | undefined,
    );
    expect(mail.body.text).not.toContain('ce-entry');
    const confirm = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.body.text)![1]!;
    const res = await call('GET', `/api/confirm/${confirm}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(res.status).toBe(303);
    const fresh = /^https:\/\/shop\.example\/join#ce-entry=(et_[A-Za-z0-9]{40})$/.exec(
      res.headers.get('location')!,
    )![1]!;
    const me = await call('GET', '/api/v1/me', { headers: { authorization: `Bearer ${fresh}` } });
    expect(me.body.data).toMatchObject({ entryId: ids[0], confirmed: true, points: 5 });
    expect(await annPoints()).toBe(10);
  });

  it('a contest without public sign-ups, or without the consent asked for: refused, nothing written', async () => {
    const closed = await makeContest(team.teamId, {});
    const r = await call('POST', `/api/v1/contests/${closed.id}/signup`, {
      key: team.publicKey,
      body: { email: `closed-${tag}@example.com` },
    });
    expect([r.status, r.body.error]).toEqual([403, 'Sign-ups with a public key are off for this contest']);
    const consent = await makeContest(team.teamId, { publicSignup: true, consentText: 'I agree.' });
    const c = await call('POST', `/api/v1/contests/${consent.id}/signup`, {
      key: team.publicKey,
      body: { email: `consent-${tag}@example.com` },
    });
    expect([c.status, c.body.error]).toEqual([400, 'consent is required']);
    const list = await call('GET', `/api/v1/contests/${consent.id}/entries`, { key: team.privateKey });
    expect(list.body.data).toEqual([]);
  });

  it('a waitlist lets its first one in: one round trip, the "You\'re in" email after the answer, /me shows it', async () => {
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false, mode: 'waitlist', publicSignup: true });
    const tokens: string[] = [];
    for (const n of [1, 2]) {
      const r = await call('POST', `/api/v1/contests/${c.id}/signup`, {
        // a private key: no confirmation asked (a public sign-up always confirms its email first)
        key: team.privateKey,
        body: { email: `wait${n}-${tag}@example.com` },
      });
      expect(r.status, r.text).toBe(201);
      tokens.push(r.body.data.entryToken as string);
    }
    const r = await call('POST', `/api/v1/contests/${c.id}/admit`, { key: team.privateKey, body: { count: 1 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.count).toBe(1);
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const me = (token: string) => call('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
    expect((await me(tokens[0]!)).body.data).toMatchObject({ position: null, total: 1 });
    expect((await me(tokens[0]!)).body.data.admittedAt).not.toBeNull();
    expect((await me(tokens[1]!)).body.data).toMatchObject({ position: 1, total: 1, admittedAt: null });
    await eventually(async () =>
      (await resendLog()).delivered.find(
        (d) => d.body?.to?.[0] === `wait1-${tag}@example.com` && /You're in/.test(String(d.body?.subject)),
      ),
    );
  });

  it('an unknown entry token is 401', async () => {
    const r = await call('GET', '/api/v1/me', { headers: { authorization: `Bearer et_${'x'.repeat(40)}` } });
    expect([r.status, r.body.error]).toEqual([401, 'Missing or invalid entry token']);
  });

  it('Turnstile against a local stand-in for siteverify: a passing token signs up, a failing one is 403, nothing written', async () => {
    const c = await makeContest(team.teamId, { publicSignup: true, botCheck: 'turnstile' });
    const config = await call('GET', `/api/v1/contests/${c.id}/signup`, { key: team.publicKey });
    expect(config.body.data).toMatchObject({ botCheck: 'turnstile', turnstileSiteKey: 'site-key-1' });
    const failed = await call('POST', `/api/v1/contests/${c.id}/signup`, {
      key: team.publicKey,
      body: { email: `bot-${tag}@example.com`, turnstileToken: 'fail' },
    });
    expect([failed.status, failed.body.error]).toEqual([403, 'Bot check failed']);
    const list = await call('GET', `/api/v1/contests/${c.id}/entries`, { key: team.privateKey });
    expect(list.body.data).toEqual([]);
    const passed = await call('POST', `/api/v1/contests/${c.id}/signup`, {
      key: team.publicKey,
      body: { email: `human-${tag}@example.com`, turnstileToken: 'pass' },
    });
    expect(passed.status, passed.text).toBe(201);
  });

  it("positions equal the leaderboard's order on the Worker, and a token reads its own entry only", async () => {
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false, publicSignup: true });
    const tokens: { id: string; token: string }[] = [];
    for (const [i, points] of [0, 30, 10, 30].entries()) {
      const r = await call('POST', `/api/v1/contests/${c.id}/signup`, {
        key: team.privateKey,
        body: { email: `pos-${i}-${tag}@example.com` },
      });
      expect(r.status, r.text).toBe(201);
      tokens.push({ id: r.body.data.entryId, token: r.body.data.entryToken });
      if (points) {
        const p = await call('POST', `/api/v1/entries/${r.body.data.entryId}/points`, {
          key: team.privateKey,
          body: { points, reason: 'test' },
        });
        expect(p.status, p.text).toBe(200);
      }
    }
    const board = await call('GET', `/api/v1/contests/${c.id}/leaderboard?limit=10`, { key: team.privateKey });
    const order = board.body.data.map((row: { id: string }) => row.id);
    expect(order).toHaveLength(4);
    for (const t of tokens) {
      const me = await call('GET', '/api/v1/me', { headers: { authorization: `Bearer ${t.token}` } });
      expect([me.body.data.entryId, me.body.data.position, me.body.data.total]).toEqual([
        t.id,
        order.indexOf(t.id) + 1,
        4,
      ]);
    }
  });
});
