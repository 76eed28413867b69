/**
 * A page of its own, through the real Worker in workerd: keyless calls for a contest with
 * publicSignup (and 401 without it), the hosted page's tags, CSP, cache and 404s, the
 * confirmation's redirect to it, share-link visits (the same answer for an unknown code) and
 * share clicks counted in /me and the funnel, the short link's redirect.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, hasPostgres, makeContest, makeTeam, resendLog, type Team } from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);

describe.skipIf(!hasPostgres)('a page of its own on the Worker', () => {
  let team: Team;
  beforeAll(async () => {
    team = await makeTeam('Sharing');
  });

  it('keyless: on for publicSignup, 401 without it, nothing written', async () => {
    const on = await makeContest(team.teamId, { requireEmailConfirmation: false, publicSignup: true });
    const off = await makeContest(team.teamId, { requireEmailConfirmation: false });
    expect((await call('GET', `/api/v1/contests/${on.id}/signup`)).status).toBe(200);
    expect((await call('GET', `/api/v1/contests/${on.id}/leaderboard`)).status).toBe(200);
    const refused = await call('POST', `/api/v1/contests/${off.id}/signup`, {
      body: { email: `off-${tag}@example.com` },
    });
    expect([refused.status, refused.body.error]).toEqual([401, 'Missing or invalid API key']);
    const entries = await call('GET', `/api/v1/contests/${off.id}/entries`, { key: team.privateKey });
    expect(entries.body.data).toEqual([]);
  });

  it('the hosted page, the confirmation leading there, visits and shares in /me and the funnel', async () => {
    const c = await makeContest(team.teamId, {
      requireEmailConfirmation: false,
      publicSignup: true,
      title: 'Edge giveaway',
      description: 'Win at the edge',
      imageUrl: 'https://cdn.example.com/edge.png',
      publicCacheSeconds: 30,
    });
    const page = await call('GET', `/c/${c.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('public, max-age=30');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'.*style-src 'sha256-/);
    expect(page.text).toContain('<meta property="og:title" content="Edge giveaway">');
    expect(page.text).toContain('<meta property="og:image" content="https://cdn.example.com/edge.png">');
    expect(page.text).toContain(`<contest-signup contest="${c.id}" no-header></contest-signup>`);
    expect((await call('GET', '/c/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // another share link's visit of the page: the same page from the cache (no statement), its CSP kept
    const cached = await call('GET', `/c/${c.id}?ref=SOMEONE&via=whatsapp`);
    expect([cached.status, cached.text]).toEqual([200, page.text]);
    expect(cached.headers.get('age')).toMatch(/^\d+$/);
    expect(cached.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'));
    expect(cached.headers.get('server-timing') ?? '').not.toMatch(/[1-9]\d* round trip/);

    const email = `edge-${tag}@example.com`;
    const s = await call('POST', `/api/v1/contests/${c.id}/signup`, { body: { email, channel: 'x' } });
    expect(s.status, s.text).toBe(201);
    const mail = await eventually(
      async () =>
        (await resendLog()).delivered.find((d) => d.body?.to?.[0] === email) as { body: { text: string } } | undefined,
    );
    const code = /\/api\/confirm\/([A-Za-z0-9]{32})/.exec(mail.body.text)![1]!;
    const confirmed = await call('GET', `/api/confirm/${code}`, { redirect: 'manual' });
    expect(confirmed.status).toBe(303);
    const location = confirmed.headers.get('location')!;
    expect(location).toMatch(new RegExp(`/c/${c.id}#ce-entry=et_[A-Za-z0-9]{40}$`));
    const token = /#ce-entry=(et_[A-Za-z0-9]{40})$/.exec(location)![1]!;

    const visit = (referralCode: string, channel: string) =>
      call('POST', `/api/v1/contests/${c.id}/visits`, { body: { referralCode, channel } });
    const known = await visit(s.body.data.referralCode, 'whatsapp');
    const unknown = await visit('NOSUCHCODE', 'whatsapp');
    expect([known.status, known.text]).toEqual([unknown.status, unknown.text]);
    expect(known.status).toBe(202);
    await visit(s.body.data.referralCode, 'x');
    const share = await call('POST', '/api/v1/me/shares', {
      body: { channel: 'x' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(share.status, share.text).toBe(201);
    // the short link: 302 to the page with ref and via, the visit counted at the redirect, once per browser
    const short = await call('GET', `/r/${s.body.data.referralCode}?via=sms`, { redirect: 'manual' });
    expect(short.status).toBe(302);
    expect(short.headers.get('location')).toMatch(
      new RegExp(`/c/${c.id}\\?ref=${s.body.data.referralCode}&via=sms#ce-counted$`),
    );
    const cookie = short.headers.get('set-cookie')!.split(';')[0]!;
    const again = await call('GET', `/r/${s.body.data.referralCode}?via=sms`, {
      redirect: 'manual',
      headers: { cookie },
    });
    expect(again.headers.get('location')).toBe(short.headers.get('location'));
    const nowhere = await call('GET', '/r/NOSUCHCODE', { redirect: 'manual' });
    expect(nowhere.status).toBe(302);
    expect(new URL(nowhere.headers.get('location')!).pathname).toBe('/');
    const me = await call('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.body.data).toMatchObject({ visits: 3, shares: 1, confirmed: true });
    const funnel = await call('GET', `/api/v1/contests/${c.id}/funnel?interval=hour`, { key: team.privateKey });
    expect(funnel.status, funnel.text).toBe(200);
    expect(funnel.body.data.totals.visits).toBe(3);
    expect(funnel.body.data.channels.find((x: { channel: string }) => x.channel === 'x')).toEqual({
      channel: 'x',
      visits: 1,
      shares: 1,
      signups: 1,
      confirmed: 1,
    });
  });
});
