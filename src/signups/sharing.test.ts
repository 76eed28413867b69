/**
 * A page of its own: keyless calls for a contest that takes public sign-ups (on, off, another
 * contest, never personal data), the hosted page (tags, 404s, cache, CSP), the confirmation and
 * the "your link" email leading there, share-link visits and share clicks counted (the same
 * answer for an unknown code, /me's visits and shares exact before and after the fold), and the
 * sharing settings refused with a 400 naming the field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';
import { query, queryOne } from '../db/client.js';
import { memoryRateLimiter } from '../deps.js';
import { runScheduledJobs } from '../jobs.js';
import { endDateWords, joinedLine, unlockWords } from './page.js';
import { timeLeft } from './widget/countdown.js';

let env: TestEnv;
let t: TeamFixture;
let other: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
  other = await env.team('Other');
});
afterAll(async () => {
  await env.close();
});

async function contest(settings: Record<string, unknown> = {}, team = t) {
  const c = await env.contest(team.teamId, { requireEmailConfirmation: false });
  const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, {
    key: team.privateKey,
    body: { publicSignup: true, ...settings },
  });
  expect(r.status, r.text).toBe(200);
  return c.id;
}
/** `n` requests a minute per key, on a clock of its own (the hosted page's per-address limit) */
const memoryRateLimiterForTest = (n: number) => memoryRateLimiter(n, 60, { now: () => new Date() });
/** a call without any key */
const keyless = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  env.request(method, path, { body, headers });
const signup = (contestId: string, body: Record<string, unknown>) =>
  keyless('POST', `/api/v1/contests/${contestId}/signup`, body);
const me = (token: string) => env.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
const rows = async (table: 'link_visits' | 'link_shares' | 'entries') =>
  (await queryOne<{ n: number }>(env.db, sql`select count(*)::int as n from ${sql.raw(table)}`))!.n;

/** signs up and confirms `email` keylessly; answers the entry, its code and a token that reads it */
async function confirmedEntry(contestId: string, email: string, extra: Record<string, unknown> = {}) {
  const r = await signup(contestId, { email, ...extra });
  expect(r.status, r.text).toBe(201);
  await env.settle();
  const mail = env.sent.filter((m) => m.to === email).at(-1)!;
  const code = /\/api\/confirm\/([A-Za-z0-9]{32})\b/.exec(mail.text)![1]!;
  const res = await env.app.request(`/api/confirm/${code}`, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  const token = /#ce-entry=(et_[A-Za-z0-9]{40})$/.exec(location)![1]!;
  return { entryId: r.body.data.entryId as string, code: r.body.data.referralCode as string, token, location };
}

describe('no key in a page', () => {
  it('a contest with publicSignup answers its visitor without a key: settings, sign-up, contest, leaderboard', async () => {
    const id = await contest();
    const config = await keyless('GET', `/api/v1/contests/${id}/signup`);
    expect(config.status, config.text).toBe(200);
    expect(config.body.data).toMatchObject({ contestId: id, publicSignup: true, sendsLink: true });
    const r = await signup(id, { email: 'kl-ann@example.com', name: 'Ann Keyless' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({ confirmationRequired: true, position: null });
    expect(r.body.data.entryToken).toMatch(/^et_/);
    const view = await keyless('GET', `/api/v1/contests/${id}`);
    expect(view.status, view.text).toBe(200);
    expect(view.body.data.id).toBe(id);
    // the leaderboard without a key never shows a name or an email
    await env.request('POST', `/api/v1/contests/${id}/entries`, {
      key: t.privateKey,
      body: { email: 'kl-top@example.com', name: 'Top Person' },
    });
    const board = await keyless('GET', `/api/v1/contests/${id}/leaderboard`);
    expect(board.status, board.text).toBe(200);
    expect(board.body.data.length).toBeGreaterThan(0);
    for (const row of board.body.data) {
      expect(row.email ?? '').not.toContain('kl-top@example.com');
      expect(row.name ?? '').not.toBe('Top Person');
    }
    // the same leaderboard with the private key: the real name
    const full = await env.request('GET', `/api/v1/contests/${id}/leaderboard`, { key: t.privateKey });
    expect(full.body.data.map((x: { name: string }) => x.name)).toContain('Top Person');
  });

  it('a contest without publicSignup, an unknown contest, a malformed id: 401 as without a key, nothing written', async () => {
    const off = (await env.contest(t.teamId, { requireEmailConfirmation: false })).id;
    const before = await rows('entries');
    for (const id of [off, '00000000-0000-4000-8000-000000000000', 'not-a-contest']) {
      for (const [method, path, body] of [
        ['GET', `/api/v1/contests/${id}/signup`, undefined],
        ['POST', `/api/v1/contests/${id}/signup`, { email: 'kl-nobody@example.com' }],
        ['POST', `/api/v1/contests/${id}/visits`, { referralCode: 'ABC' }],
        ['GET', `/api/v1/contests/${id}/leaderboard`, undefined],
      ] as const) {
        const r = await keyless(method, path, body);
        expect([method, path, r.status, r.body.error]).toEqual([method, path, 401, 'Missing or invalid API key']);
      }
      const view = await keyless('GET', `/api/v1/contests/${id}`);
      expect([view.status, view.body.error]).toEqual([401, 'Invalid API key']);
    }
    expect(await rows('entries')).toBe(before);
    expect(await rows('link_visits')).toBe(0);
  });

  it('the per-address limits count an IPv6 /64 as one address, an IPv4-mapped address as its IPv4', async () => {
    const limited = await createTestEnv({ publicRateLimiter: memoryRateLimiterForTest(3) });
    try {
      const team = await limited.team();
      const c = await limited.contest(team.teamId, { publicSignup: true });
      const from = async (ip: string) =>
        (await limited.app.request(`/api/v1/contests/${c.id}/signup`, { headers: { 'x-forwarded-for': ip } })).status;
      const statuses = [];
      for (const ip of [
        '2001:db8:1:2::1',
        '2001:db8:1:2::2',
        '2001:db8:1:2::3',
        '2001:db8:1:2::4',
        '2001:db8:1:2:abcd::5',
      ])
        statuses.push(await from(ip));
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(await from('2001:db8:1:3::1')).toBe(200);
      for (const ip of ['192.0.2.8', '192.0.2.8', '::ffff:192.0.2.8']) expect(await from(ip)).toBe(200);
      expect(await from('::ffff:c000:208')).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('keys keep working; a key of another team still answers 404', async () => {
    const id = await contest();
    expect((await env.request('GET', `/api/v1/contests/${id}/signup`, { key: t.publicKey })).status).toBe(200);
    expect((await env.request('GET', `/api/v1/contests/${id}/signup`, { key: other.publicKey })).status).toBe(404);
    // a made-up key is refused, never read as "no key"
    const bad = await env.request('GET', `/api/v1/contests/${id}/signup`, { key: `pk_${'x'.repeat(32)}` });
    expect([bad.status, bad.body.error]).toEqual([401, 'Missing or invalid API key']);
  });

  it("an entry token alone lists and completes its own entry's bonus actions, and nobody else's", async () => {
    const id = await contest();
    const action = await createBonusAction(env.db, id, { action: 'Follow us', points: 3, confirmationType: 'auto' });
    const ann = await confirmedEntry(id, 'kl-bonus-ann@example.com');
    const bob = await confirmedEntry(id, 'kl-bonus-bob@example.com');
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    const list = await keyless('GET', `/api/v1/entries/${ann.entryId}/bonus-actions`, undefined, auth(ann.token));
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.actions.map((a: { id: string }) => a.id)).toEqual([action.id]);
    // Ann's token on Bob's entry: not found (her token reaches her entry only)
    const peek = await keyless('GET', `/api/v1/entries/${bob.entryId}/bonus-actions`, undefined, auth(ann.token));
    expect([peek.status, peek.body.error]).toEqual([404, 'Entry not found']);
    const steal = await keyless(
      'POST',
      `/api/v1/entries/${bob.entryId}/bonus-actions/${action.id}/complete`,
      {},
      auth(ann.token),
    );
    expect([steal.status, steal.body.error]).toEqual([401, 'Missing or invalid entry token']);
    const done = await keyless(
      'POST',
      `/api/v1/entries/${ann.entryId}/bonus-actions/${action.id}/complete`,
      {},
      auth(ann.token),
    );
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ alreadyCompleted: false, pointsAdded: 3 });
    expect((await me(bob.token)).body.data.points).toBe(0);
    // a made-up token: 401, nothing written
    const fake = `et_${'A'.repeat(40)}`;
    const nope = await keyless('GET', `/api/v1/entries/${ann.entryId}/bonus-actions`, undefined, auth(fake));
    expect([nope.status, nope.body.error]).toEqual([401, 'Missing or invalid entry token']);
  });
});

describe('the hosted page', () => {
  it('on Node the page is gzipped for a browser that asks (the platform does it on Workers), and keeps room for the form', async () => {
    const id = await contest({ title: 'Gzipped', consentText: 'I agree.' });
    const res = await env.app.request(`/c/${id}`, { headers: { 'accept-encoding': 'gzip' } });
    expect([res.status, res.headers.get('content-encoding')]).toEqual([200, 'gzip']);
    const html = new TextDecoder().decode(gunzipSync(new Uint8Array(await res.arrayBuffer())));
    expect(html).toContain('<h1>Gzipped</h1>');
    // the widget's form takes its room before it draws: nothing below it moves (layout shift)
    expect(html).toContain('contest-signup{display:block;min-height:340px}');
    const plain = await env.app.request(`/c/${id}`);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(html);
  });

  it('GET /c/{contestId}: title, description, image, the widget without a key, Open Graph and Twitter tags', async () => {
    const id = await contest({
      title: 'Win a <b>bike</b> & more',
      description: 'Sign up, share "your" link.',
      imageUrl: 'https://cdn.example.com/bike.png',
      publicCacheSeconds: 60,
    });
    const res = await env.app.request(`/c/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const html = await res.text();
    const url = `${env.deps.config.publicUrl.replace(/\/$/, '')}/c/${id}`;
    const tag = (attr: string, name: string) =>
      new RegExp(`<meta ${attr}="${name}" content="([^"]*)">`).exec(html)?.[1] ?? null;
    expect(tag('property', 'og:title')).toBe('Win a &lt;b&gt;bike&lt;/b&gt; &amp; more');
    expect(tag('property', 'og:description')).toBe('Sign up, share &quot;your&quot; link.');
    expect(tag('property', 'og:image')).toBe('https://cdn.example.com/bike.png');
    expect(tag('property', 'og:url')).toBe(url);
    expect(tag('name', 'twitter:card')).toBe('summary_large_image');
    expect(html).toContain(`<contest-signup contest="${id}" no-header></contest-signup>`);
    expect(html).toContain('<script src="/signup.js" defer></script>');
    expect(html).not.toContain('<b>bike</b>');
    expect(html).not.toContain('api-key');
    // the CSP: scripts and calls only to this origin, the one inline stylesheet by its hash
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
  });

  it('without an image: no og:image, a summary card; publicCacheSeconds 0: no-cache; the theme in the page', async () => {
    const id = await contest({ theme: { accent: '#ff0066', radius: 4, font: 'serif' } });
    const res = await env.app.request(`/c/${id}`);
    const html = await res.text();
    expect(html).not.toContain('og:image');
    expect(html).toContain('<meta name="twitter:card" content="summary">');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(html).toContain('--cs-accent:#ff0066');
    expect(html).toContain('--cs-radius:4px');
    expect(html).toContain('--cs-font:Georgia');
  });

  it('how many joined, the end date to count down, and after it the ended state instead of the form', async () => {
    const endDate = new Date(env.clock.now().getTime() + 2 * 86_400_000 + 3_723_000);
    const id = await contest({ isEvergreen: false, endDate: endDate.toISOString(), publicCacheSeconds: 0 });
    const page = async () => (await env.app.request(`/c/${id}`)).text();
    // nobody yet: no count
    expect(await page()).not.toContain('joined');
    for (const email of ['j1@example.com', 'j2@example.com', 'j3@example.com']) {
      const r = await env.request('POST', `/api/v1/contests/${id}/entries`, { key: t.privateKey, body: { email } });
      expect(r.status, r.text).toBe(201);
    }
    // confirmed entries count; a sign-up whose email is not confirmed yet does not
    const unconfirmed = await env.request('POST', `/api/v1/contests/${id}/signup`, {
      key: t.publicKey,
      body: { email: 'j4@example.com' },
    });
    expect(unconfirmed.status).toBe(201);
    const before = await page();
    expect(before).toContain('<li>3 people have joined</li>');
    expect(before).toContain(
      `<li>Ends <time datetime="${endDate.toISOString()}" data-ce-ends>${endDateWords(endDate)}</time><span data-ce-countdown aria-hidden="true"></span></li>`,
    );
    expect(before).toContain(`<contest-signup contest="${id}" no-header></contest-signup>`);
    // past the end: the ended state, no form, no countdown
    env.clock.advance(3 * 86_400_000);
    const after = await page();
    expect(after).toContain(`This contest has ended (${endDateWords(endDate)}). Thank you for taking part.`);
    expect(after).not.toContain('<contest-signup');
    expect(after).not.toContain('data-ce-countdown');
    expect(after).toContain('<li>3 people have joined</li>');
  });

  it('logoUrl, rulesUrl, privacyUrl: null by default, https only (a 400 naming the field), shown by the page with the consent text', async () => {
    const id = await contest({ consentText: 'I agree to hear from Acme.', publicCacheSeconds: 0 });
    const settings = async () =>
      (await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey })).body.data;
    expect(await settings()).toMatchObject({ logoUrl: null, rulesUrl: null, privacyUrl: null });
    const before = await (await env.app.request(`/c/${id}`)).text();
    expect(before).not.toContain('class="logo"');
    expect(before).toContain('<footer>\n<p>I agree to hear from Acme.</p>\n</footer>');
    for (const field of ['logoUrl', 'rulesUrl', 'privacyUrl']) {
      for (const bad of ['http://acme.example/x', 'javascript:alert(1)', 42]) {
        const r = await env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body: { [field]: bad } });
        expect([r.status, r.body.error]).toEqual([400, `${field} must be an https URL`]);
      }
    }
    expect(await settings()).toMatchObject({ logoUrl: null, rulesUrl: null, privacyUrl: null });
    const ok = await env.request('PATCH', `/api/v1/contests/${id}`, {
      key: t.privateKey,
      body: {
        logoUrl: 'https://cdn.acme.example/logo.svg',
        rulesUrl: 'https://acme.example/rules?a=1&b=2',
        privacyUrl: 'https://acme.example/privacy',
      },
    });
    expect(ok.status, ok.text).toBe(200);
    const html = await (await env.app.request(`/c/${id}`)).text();
    expect(html).toContain('<img class="logo" src="https://cdn.acme.example/logo.svg" alt="">');
    expect(html).toContain(
      '<nav aria-label="Rules and privacy"><a href="https://acme.example/rules?a=1&amp;b=2" rel="noopener">Official rules</a><a href="https://acme.example/privacy" rel="noopener">Privacy policy</a></nav>',
    );
    // null clears one
    await env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body: { rulesUrl: null } });
    expect(await (await env.app.request(`/c/${id}`)).text()).not.toContain('Official rules');
  });

  it("the prizes: the contest's live rewards in the ladder's order, with image, description and what unlocks each", async () => {
    const id = await contest({ publicCacheSeconds: 0 });
    const reward = (body: Record<string, unknown>) =>
      env.request('POST', `/api/v1/contests/${id}/rewards`, { key: t.privateKey, body });
    expect((await env.app.request(`/c/${id}`)).status).toBe(200);
    expect(await (await env.app.request(`/c/${id}`)).text()).not.toContain('Prizes');
    const bad = await reward({ name: 'X', pointsRequired: 5, imageUrl: 'http://cdn.example/x.png' });
    expect([bad.status, bad.body.error]).toEqual([400, 'imageUrl must be an https URL']);
    const mug = await reward({ name: 'Mug <3', description: 'A mug & a "thank you".', pointsRequired: 100 });
    expect(mug.status, mug.text).toBe(201);
    expect(mug.body.data.imageUrl).toBeNull();
    const bike = await reward({ name: 'Bike', referralsRequired: 3, imageUrl: 'https://cdn.example/bike.png' });
    expect(bike.body.data.imageUrl).toBe('https://cdn.example/bike.png');
    const gone = await reward({ name: 'Gone', pointsRequired: 1 });
    await env.request('DELETE', `/api/v1/contests/${id}/rewards/${gone.body.data.id}`, { key: t.privateKey });
    // an image added later by PATCH, and shown to a public key's list
    const patched = await env.request('PATCH', `/api/v1/contests/${id}/rewards/${mug.body.data.id}`, {
      key: t.privateKey,
      body: { imageUrl: 'https://cdn.example/mug.png' },
    });
    expect([patched.status, patched.body.data?.imageUrl]).toEqual([200, 'https://cdn.example/mug.png']);
    const listed = await env.request('GET', `/api/v1/contests/${id}/rewards`, { key: t.publicKey });
    expect(listed.body.data.map((r: { imageUrl: string }) => r.imageUrl)).toEqual([
      'https://cdn.example/bike.png',
      'https://cdn.example/mug.png',
    ]);
    const html = await (await env.app.request(`/c/${id}`)).text();
    expect(html).toContain(
      '<ul><li><img src="https://cdn.example/bike.png" alt=""><div><h3>Bike</h3><p class="unlock">Unlocks at 3 confirmed friends</p></div></li>' +
        '<li><img src="https://cdn.example/mug.png" alt=""><div><h3>Mug &lt;3</h3><p>A mug &amp; a &quot;thank you&quot;.</p><p class="unlock">Unlocks at 100 points</p></div></li></ul>',
    );
    expect(html).not.toContain('Gone');
    expect(unlockWords({ referralsRequired: 1, pointsRequired: null })).toBe('Unlocks at 1 confirmed friend');
    expect(unlockWords({ referralsRequired: null, pointsRequired: 1500 })).toBe('Unlocks at 1,500 points');
  });

  it('pageLeaderboard: the first N of the leaderboard on the page, names masked; 0 (the default) shows none; 0-50', async () => {
    const id = await contest({ publicCacheSeconds: 0 });
    for (const [email, name, points] of [
      ['lb1@example.com', 'Ada Lovelace', 30],
      ['lb2@example.com', 'Grace <b>Hopper</b>', 1200],
      ['lb3@example.com', null, 5],
    ] as const) {
      const r = await env.request('POST', `/api/v1/contests/${id}/entries`, {
        key: t.privateKey,
        body: { email, ...(name ? { name } : {}) },
      });
      const p = await env.request('POST', `/api/v1/entries/${r.body.data.entryId}/points`, {
        key: t.privateKey,
        body: { points, reason: 'seed' },
      });
      expect(p.status).toBe(200);
    }
    const page = async () => (await env.app.request(`/c/${id}`)).text();
    expect(await page()).not.toContain('Leaderboard');
    for (const bad of [-1, 51, 2.5, '3']) {
      const r = await env.request('PATCH', `/api/v1/contests/${id}`, {
        key: t.privateKey,
        body: { pageLeaderboard: bad },
      });
      expect([r.status, r.body.error]).toEqual([400, 'pageLeaderboard must be a whole number from 0 to 50']);
    }
    const ok = await env.request('PATCH', `/api/v1/contests/${id}`, {
      key: t.privateKey,
      body: { pageLeaderboard: 2 },
    });
    expect([ok.status, ok.body.data?.pageLeaderboard]).toEqual([200, 2]);
    const html = await page();
    expect(html).toContain(
      // the masked name escaped (its last word's initial is the markup's "<")
      '<tbody><tr><td>1</td><td>Grace &lt;.</td><td>1,200</td></tr><tr><td>2</td><td>Ada L.</td><td>30</td></tr></tbody>',
    );
    expect(html).not.toContain('lb1@example.com');
    await env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body: { pageLeaderboard: 50 } });
    expect(await page()).toContain('<tr><td>3</td><td>Someone</td><td>5</td></tr>');
  });

  it('the words: grouped counts, one person, the end date in UTC', () => {
    expect(joinedLine(1)).toBe('1 person has joined');
    expect(joinedLine(2341)).toBe('2,341 people have joined');
    expect(endDateWords(new Date('2026-12-12T18:05:00Z'))).toBe('12 December 2026, 18:05 UTC');
    expect(timeLeft(2 * 86_400_000 + 3_723_000)).toBe('2 days 01:02:03');
    expect(timeLeft(86_400_000)).toBe('1 day 00:00:00');
    expect(timeLeft(59_999)).toBe('00:00:59');
    expect(timeLeft(0)).toBe('');
  });

  it('404 while publicSignup is off, for an unknown or malformed id, and for a game', async () => {
    const off = (await env.contest(t.teamId)).id;
    for (const id of [off, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await env.app.request(`/c/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toContain('Contest not found');
    }
    const id = await contest();
    expect((await env.app.request(`/c/${id}`)).status).toBe(200);
    await env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body: { publicSignup: false } });
    expect((await env.app.request(`/c/${id}`)).status).toBe(404);
  });

  it('a draft with publicSignup is no page and answers keyless calls as one without it', async () => {
    const id = await contest({ status: 'draft' });
    const before = await rows('entries');
    expect((await env.app.request(`/c/${id}`)).status).toBe(404);
    // the contest read answers its own wording for a missing key
    const read = await keyless('GET', `/api/v1/contests/${id}`);
    expect([read.status, read.body.error]).toEqual([401, 'Invalid API key']);
    for (const [method, path, body] of [
      ['GET', `/api/v1/contests/${id}/signup`],
      ['GET', `/api/v1/contests/${id}/leaderboard`],
      ['POST', `/api/v1/contests/${id}/signup`, { email: 'kl-draft@example.com' }],
      ['POST', `/api/v1/contests/${id}/visits`, { referralCode: 'ABCDEFGHJK' }],
    ] as const) {
      const r = await keyless(method, path, body);
      expect([path, r.status, r.body.error]).toEqual([path, 401, 'Missing or invalid API key']);
    }
    expect(await rows('entries')).toBe(before);
    // live: a page and a visitor's calls
    await env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body: { status: 'active' } });
    expect((await env.app.request(`/c/${id}`)).status).toBe(200);
    expect((await keyless('GET', `/api/v1/contests/${id}/signup`)).status).toBe(200);
  });

  it('served from the cache for publicCacheSeconds whatever the query, with its CSP; limited per address', async () => {
    const limited = await createTestEnv({ publicRateLimiter: memoryRateLimiterForTest(5) });
    try {
      const team = await limited.team();
      const c = await limited.contest(team.teamId, { publicSignup: true, publicCacheSeconds: 60 });
      const first = await limited.app.request(`/c/${c.id}?ref=AAAA&via=x`);
      expect(first.status).toBe(200);
      const csp = first.headers.get('content-security-policy');
      const html = await first.text();
      const trips = (res: Response) => /desc="(\d+) round trip/.exec(res.headers.get('server-timing') ?? '')?.[1];
      // the same page for another share link, from the cache: no statement, the same CSP and headers
      const second = await limited.app.request(`/c/${c.id}?ref=BBBB&via=whatsapp`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect([second.status, await second.text()]).toEqual([200, html]);
      expect(second.headers.get('content-security-policy')).toBe(csp);
      expect(second.headers.get('x-content-type-options')).toBe('nosniff');
      expect(second.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(second.headers.get('age')).not.toBeNull();
      expect(trips(second) ?? '0').toBe('0');
      // one address: 5 a minute in this test's limiter, then 429 with Retry-After, cached or not
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.app.request(`/c/${c.id}`)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      const refused = await limited.app.request(`/c/${c.id}`);
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, expect.stringMatching(/^\d+$/)]);
      // another address is not limited by the first one's requests
      expect((await limited.app.request(`/c/${c.id}`, { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(
        200,
      );
    } finally {
      await limited.close();
    }
  });

  it('without a landingUrl the confirmation leads to the hosted page, and "your link" is emailed with it', async () => {
    const id = await contest();
    const ann = await confirmedEntry(id, 'kl-page-ann@example.com');
    const page = `${env.deps.config.publicUrl.replace(/\/$/, '')}/c/${id}`;
    expect(ann.location).toBe(`${page}#ce-entry=${ann.token}`);
    expect((await me(ann.token)).body.data).toMatchObject({ entryId: ann.entryId, confirmed: true });
    // the same email again: its owner is emailed a link to the hosted page
    const again = await signup(id, { email: 'kl-page-ann@example.com' });
    expect([again.status, again.body.data]).toEqual([200, { alreadyExists: true, linkSent: true }]);
    await env.settle();
    const link = env.sent.filter((m) => m.to === 'kl-page-ann@example.com').at(-1)!;
    const token = new RegExp(`${page.replace(/[./]/g, '\\$&')}#ce-entry=(et_[A-Za-z0-9]{40})`).exec(link.text)?.[1];
    expect(token).toMatch(/^et_/);
    expect((await me(token!)).body.data.entryId).toBe(ann.entryId);
    // a landingUrl still wins
    await env.request('PATCH', `/api/v1/contests/${id}`, {
      key: t.privateKey,
      body: { landingUrl: 'https://brand.example.com/join' },
    });
    const bob = await confirmedEntry(id, 'kl-page-bob@example.com');
    expect(bob.location).toMatch(/^https:\/\/brand\.example\.com\/join#ce-entry=et_/);
  });
});

describe('share links: visits and share clicks', () => {
  it("a visit of a code is counted in /me's visits; an unknown code gets the same answer, the same work and no count", async () => {
    const id = await contest();
    const ann = await confirmedEntry(id, 'kl-visit-ann@example.com');
    const before = await rows('link_visits');
    const visit = (referralCode: string, channel?: string) =>
      keyless('POST', `/api/v1/contests/${id}/visits`, { referralCode, ...(channel ? { channel } : {}) });
    const known = await visit(ann.code, 'whatsapp');
    const unknown = await visit('NOSUCHCODE', 'whatsapp');
    expect([known.status, known.body]).toEqual([202, { success: true, data: { received: true } }]);
    expect([unknown.status, unknown.body]).toEqual([known.status, known.body]);
    // the same headers, and no database time in them: one round trip each, nothing else told
    for (const r of [known, unknown]) expect(r.headers.get('server-timing')).toBe('db;desc="1 round trip"');
    // both wrote their row (the unknown code's names no referrer), so both did the same work
    expect(await rows('link_visits')).toBe(before + 2);
    // another contest's code: a visit of this contest by nobody it knows
    const elsewhere = await contest();
    const other = await confirmedEntry(elsewhere, 'kl-visit-else@example.com');
    expect((await visit(other.code)).status).toBe(202);
    const nobody = sql`select count(*)::int as n from link_visits where contest_id = ${id} and entry_id is null`;
    expect((await queryOne<{ n: number }>(env.db, nobody))!.n).toBe(2);
    await visit(ann.code);
    await visit(ann.code, 'x');
    expect((await me(ann.token)).body.data).toMatchObject({ visits: 3, shares: 0 });
    expect((await me(other.token)).body.data).toMatchObject({ visits: 0 });
    // the fold deletes the rows of codes nobody had, and counts ann's three
    env.clock.advance(2 * 60_000);
    await runScheduledJobs(env.deps);
    expect((await queryOne<{ n: number }>(env.db, nobody))!.n).toBe(0);
    expect((await me(ann.token)).body.data).toMatchObject({ visits: 3 });
    const stored = await query<{ channel: string | null }>(
      env.db,
      sql`select channel from link_visits where entry_id = ${ann.entryId} order by id`,
    );
    expect(stored.map((r) => r.channel)).toEqual(['whatsapp', null, 'x']);
  });

  it('/me counts the same before and after the fold, and after more visits', async () => {
    const id = await contest();
    const ann = await confirmedEntry(id, 'kl-fold-ann@example.com');
    const visit = () => keyless('POST', `/api/v1/contests/${id}/visits`, { referralCode: ann.code, channel: 'x' });
    for (let i = 0; i < 5; i++) expect((await visit()).status).toBe(202);
    expect((await me(ann.token)).body.data.visits).toBe(5);
    env.clock.advance(2 * 60_000);
    const jobs = await runScheduledJobs(env.deps);
    expect(jobs.visitsFolded).toBeGreaterThanOrEqual(5);
    expect(
      (await queryOne<{ n: number }>(env.db, sql`select n::int from visit_counts where entry_id = ${ann.entryId}`))!.n,
    ).toBe(5);
    expect((await me(ann.token)).body.data.visits).toBe(5);
    for (let i = 0; i < 3; i++) await visit();
    expect((await me(ann.token)).body.data.visits).toBe(8);
    // a second fold right away folds nothing new of the last minute, and the count holds
    await runScheduledJobs(env.deps);
    expect((await me(ann.token)).body.data.visits).toBe(8);
  });

  it('visits and page views past VISIT_RETENTION_DAYS are deleted once counted; /me, the funnel and the series keep their counts', async () => {
    const own = await createTestEnv();
    try {
      const team = await own.team();
      const c = await own.contest(team.teamId, { publicSignup: true, requireEmailConfirmation: false });
      const ann = await own.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: 'retention@example.com' },
      });
      const code = (await own.request('GET', `/api/v1/entries/${ann.body.data.entryId}`, { key: team.privateKey })).body
        .data.referralCode as string;
      const start = own.clock.now();
      for (const channel of ['x', 'x', 'whatsapp']) {
        const r = await own.request('POST', `/api/v1/contests/${c.id}/visits`, {
          body: { referralCode: code, channel },
        });
        expect(r.status).toBe(202);
      }
      // and two page views, kept with their hour like the visits
      for (let i = 0; i < 2; i++)
        expect((await own.request('POST', `/api/v1/contests/${c.id}/views`)).status).toBe(200);
      const viewRows = async () =>
        (await queryOne<{ n: number }>(
          own.db,
          sql`select count(*)::int as n from page_views where contest_id = ${c.id}`,
        ))!.n;
      expect(await viewRows()).toBe(2);
      const funnel = async () =>
        (
          await own.request('GET', `/api/v1/contests/${c.id}/funnel?from=${start.toISOString().slice(0, 10)}`, {
            key: team.privateKey,
          })
        ).body.data;
      const visitRows = async () =>
        (await queryOne<{ n: number }>(
          own.db,
          sql`select count(*)::int as n from link_visits where contest_id = ${c.id}`,
        ))!.n;
      // the contest's funnel is never read before the visits age: the retention reads its series first
      own.clock.advance(31 * 86_400_000);
      const jobs = await runScheduledJobs(own.deps);
      expect(jobs.visitsPruned).toBe(5);
      expect(await visitRows()).toBe(0);
      expect(await viewRows()).toBe(0);
      const token = (
        await own.request('POST', `/api/v1/contests/${c.id}/signup`, { body: { email: 'late@example.com' } })
      ).body.data.entryToken as string;
      expect(token).toMatch(/^et_/);
      const after = await funnel();
      expect(after.totals.visits).toBe(3);
      expect(after.totals.views).toBe(2);
      const byChannel = Object.fromEntries(
        (after.channels as { channel: string; visits: number }[]).map((x) => [x.channel, x.visits]),
      );
      expect(byChannel).toMatchObject({ x: 2, whatsapp: 1 });
      const visits = await queryOne<{ n: number }>(
        own.db,
        sql`select n::int from visit_counts where entry_id = ${ann.body.data.entryId}`,
      );
      expect(visits!.n).toBe(3);
      // a visit within the retention stays a row
      await own.request('POST', `/api/v1/contests/${c.id}/visits`, { body: { referralCode: code } });
      own.clock.advance(2 * 60_000);
      expect((await runScheduledJobs(own.deps)).visitsPruned).toBe(0);
      expect(await visitRows()).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('POST /me/shares records a click per channel; a bad token 401, a bad channel 400, nothing written', async () => {
    const id = await contest();
    const ann = await confirmedEntry(id, 'kl-share-ann@example.com');
    const share = (channel: unknown, token = ann.token) =>
      env.request('POST', '/api/v1/me/shares', { body: { channel }, headers: { authorization: `Bearer ${token}` } });
    const ok = await share('linkedin');
    expect([ok.status, ok.body]).toEqual([201, { success: true, data: { recorded: true } }]);
    await share('copy');
    const before = await rows('link_shares');
    const bad = await share('myspace');
    expect([bad.status, bad.body.error]).toEqual([
      400,
      'channel must be one of x, facebook, linkedin, whatsapp, telegram, reddit, email, sms, copy, native',
    ]);
    const noToken = await env.request('POST', '/api/v1/me/shares', { body: { channel: 'x' } });
    expect([noToken.status, noToken.body.error]).toEqual([401, 'Missing or invalid entry token']);
    const fake = await share('x', `et_${'B'.repeat(40)}`);
    expect([fake.status, fake.body.error]).toEqual([401, 'Missing or invalid entry token']);
    expect(await rows('link_shares')).toBe(before);
    expect((await me(ann.token)).body.data.shares).toBe(2);
  });

  it('a sign-up keeps the channel it came by; a visit with a bad channel or code is a 400', async () => {
    const id = await contest();
    const ann = await confirmedEntry(id, 'kl-ch-ann@example.com');
    const bob = await signup(id, { email: 'kl-ch-bob@example.com', referralCode: ann.code, channel: 'telegram' });
    expect(bob.status, bob.text).toBe(201);
    const row = await queryOne<{ channel: string }>(
      env.db,
      sql`select channel from entries where id = ${bob.body.data.entryId}`,
    );
    expect(row!.channel).toBe('telegram');
    const badSignup = await signup(id, { email: 'kl-ch-cy@example.com', channel: 'fax' });
    expect([badSignup.status, badSignup.body.error]).toEqual([
      400,
      'channel must be one of x, facebook, linkedin, whatsapp, telegram, reddit, email, sms, copy, native',
    ]);
    const before = await rows('link_visits');
    for (const [body, error] of [
      [
        { referralCode: ann.code, channel: 'fax' },
        'channel must be one of x, facebook, linkedin, whatsapp, telegram, reddit, email, sms, copy, native',
      ],
      [{}, 'referralCode is required'],
      [{ referralCode: 42 }, 'referralCode must be a string'],
      [{ referralCode: '' }, 'referralCode is required'],
      [{ referralCode: 'x'.repeat(101) }, 'referralCode must be at most 100 characters'],
    ] as const) {
      const r = await keyless('POST', `/api/v1/contests/${id}/visits`, body);
      expect([r.status, r.body.error]).toEqual([400, error]);
    }
    expect(await rows('link_visits')).toBe(before);
  });
});

describe('sharing settings', () => {
  it('migration 0037: every list gains the Copy and share-sheet buttons it showed anyway, at its end, and only those', async () => {
    const update = readFileSync(join(process.cwd(), 'migrations/0037_share_channels_copy_native.sql'), 'utf8')
      .split('--> statement-breakpoint')
      .find((s) => /UPDATE "contests"/.test(s))!;
    const lists: Record<string, string[]> = {
      none: ['x', 'facebook'],
      copy: ['copy', 'whatsapp'],
      native: ['native'],
      both: ['native', 'x', 'copy'],
      empty: [],
    };
    const ids: Record<string, string> = {};
    for (const [name, list] of Object.entries(lists)) {
      ids[name] = await contest();
      await query(
        env.db,
        sql`update contests set share_channels = ${`{${list.join(',')}}`}::text[] where id = ${ids[name]}`,
      );
    }
    await query(env.db, sql.raw(update));
    const listOf = async (name: string) =>
      (await queryOne<{ s: string[] }>(env.db, sql`select share_channels as s from contests where id = ${ids[name]}`))!
        .s;
    expect(await listOf('none')).toEqual(['x', 'facebook', 'copy', 'native']);
    expect(await listOf('copy')).toEqual(['copy', 'whatsapp', 'native']);
    expect(await listOf('native')).toEqual(['native', 'copy']);
    expect(await listOf('both')).toEqual(['native', 'x', 'copy']);
    expect(await listOf('empty')).toEqual(['copy', 'native']);
  });

  it('imageUrl, shareMessage, shareChannels, theme: defaults, saved, and each bad value a 400 naming the field', async () => {
    const id = await contest();
    const get = async () =>
      (await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey })).body.data;
    expect(await get()).toMatchObject({
      imageUrl: null,
      shareMessage: 'Join me: {{link}}',
      shareChannels: ['x', 'facebook', 'linkedin', 'whatsapp', 'email', 'copy', 'native'],
      theme: {},
    });
    const patch = (body: Record<string, unknown>) =>
      env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body });
    const good = await patch({
      imageUrl: 'https://cdn.example.com/a.png',
      shareMessage: 'I joined {{contest}}? No: {{link}}',
      shareChannels: ['whatsapp', 'copy', 'native'],
      theme: { accent: '#112233', background: '#FFFFFF', text: '#000000', radius: 0, font: 'mono' },
    });
    expect(good.status, good.text).toBe(200);
    expect(await get()).toMatchObject({
      imageUrl: 'https://cdn.example.com/a.png',
      shareMessage: 'I joined {{contest}}? No: {{link}}',
      shareChannels: ['whatsapp', 'copy', 'native'],
      theme: { accent: '#112233', background: '#FFFFFF', text: '#000000', radius: 0, font: 'mono' },
    });
    const saved = await get();
    for (const [body, error] of [
      [{ imageUrl: 'http://cdn.example.com/a.png' }, 'imageUrl must be an https URL'],
      [{ imageUrl: 'javascript:alert(1)' }, 'imageUrl must be an https URL'],
      [{ shareMessage: 'Join me!' }, 'shareMessage must hold {{link}}'],
      [{ shareMessage: `${'x'.repeat(280)}{{link}}` }, 'shareMessage must be at most 280 characters'],
      [
        { shareChannels: ['x', 'myspace'] },
        'shareChannels must be a list of x, facebook, linkedin, whatsapp, telegram, reddit, email, sms, copy, native',
      ],
      [{ shareChannels: ['x', 'x'] }, 'shareChannels must not repeat a channel'],
      [
        { shareChannels: 'x' },
        'shareChannels must be a list of x, facebook, linkedin, whatsapp, telegram, reddit, email, sms, copy, native',
      ],
      [{ theme: { accent: 'red' } }, 'theme.accent must be a colour #rrggbb'],
      [{ theme: { background: '#fff' } }, 'theme.background must be a colour #rrggbb'],
      [{ theme: { radius: 33 } }, 'theme.radius must be an integer from 0 to 32'],
      [{ theme: { radius: 1.5 } }, 'theme.radius must be an integer from 0 to 32'],
      [{ theme: { font: 'Comic Sans' } }, 'theme.font must be one of system, serif, rounded, mono'],
      [{ theme: 'dark' }, 'theme must be an object of accent, background, text, radius, font'],
    ] as const) {
      const r = await patch(body);
      expect([JSON.stringify(body), r.status, r.body.error]).toEqual([JSON.stringify(body), 400, error]);
    }
    expect(await get()).toEqual(saved);
    // a contest created with them
    const created = await env.request('POST', '/api/v1/contests', {
      key: t.privateKey,
      body: { title: 'Made with a look', shareChannels: ['sms'], theme: { accent: '#00aa00' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ shareChannels: ['sms'], theme: { accent: '#00aa00' } });
  });
});
