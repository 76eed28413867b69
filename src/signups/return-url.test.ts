/**
 * Embeds keep the visitor on the team's site: a contest's `allowedOrigins`, a sign-up's
 * `returnUrl`, and where the confirmation and the "your link" email lead (the page signed up on
 * when its origin is allowed; else the landing page; else the hosted page; never another origin).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query, queryOne } from '../db/client.js';
import { ALLOWED_ORIGIN_MESSAGE } from '../lib/origins.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Embeds');
});
afterAll(() => env.close());

const patch = (id: string, body: Record<string, unknown>) =>
  env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body });
const settings = async (id: string) =>
  (await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey })).body.data;

async function contest(extra: Record<string, unknown> = {}) {
  const c = await env.contest(t.teamId);
  const r = await patch(c.id, { publicSignup: true, ...extra });
  expect(r.status, r.text).toBe(200);
  return c.id;
}
/** a keyless sign-up, as the widget on a page sends it */
const signup = (id: string, body: Record<string, unknown>) =>
  env.request('POST', `/api/v1/contests/${id}/signup`, { body });
/** where the link of the last email to `to` that matches `what` leads */
async function lastLink(to: string, what: RegExp): Promise<string> {
  await env.settle();
  const mail = env.sent.filter((m) => m.to === to && what.test(m.text)).at(-1)!;
  return /https?:\/\/\S+/.exec(mail.text.slice(mail.text.search(/https?:\/\//)))![0]!;
}
/** the confirmation's redirect for the last confirmation email to `to` */
async function confirmedTo(to: string): Promise<string> {
  await env.settle();
  const mail = env.sent.filter((m) => m.to === to).at(-1)!;
  const code = /\/api\/confirm\/([A-Za-z0-9]{32})\b/.exec(mail.text)![1]!;
  const res = await env.app.request(`/api/confirm/${code}`, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(303);
  return res.headers.get('location')!;
}

describe('allowedOrigins', () => {
  it('stores origins as browsers send them (lowercase, no slash, no duplicates); empty by default', async () => {
    const id = await contest();
    expect((await settings(id)).allowedOrigins).toEqual([]);
    const r = await patch(id, {
      allowedOrigins: [
        'https://Shop.Example.com/',
        'http://localhost:5173',
        'https://shop.example.com',
        'http://127.0.0.1',
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect((await settings(id)).allowedOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
      'http://127.0.0.1',
    ]);
  });

  it('refuses a page, plain http elsewhere than this machine, anything else, and more than 20: 400 naming the field, nothing changed', async () => {
    const id = await contest({ allowedOrigins: ['https://kept.example'] });
    for (const bad of [
      ['https://shop.example.com/join'],
      ['http://shop.example.com'],
      ['shop.example.com'],
      ['javascript:alert(1)'],
      ['https://user@shop.example.com'],
      [42],
      'https://shop.example.com',
    ]) {
      const r = await patch(id, { allowedOrigins: bad });
      expect([r.status, r.body], JSON.stringify(bad)).toEqual([400, { success: false, error: ALLOWED_ORIGIN_MESSAGE }]);
    }
    const many = Array.from({ length: 21 }, (_, i) => `https://s${i}.example`);
    const r = await patch(id, { allowedOrigins: many });
    expect([r.status, r.body.error]).toEqual([400, 'allowedOrigins must have at most 20 origins']);
    expect((await settings(id)).allowedOrigins).toEqual(['https://kept.example']);
  });
});

describe('returnUrl', () => {
  it('on an allowed site: kept without its fragment; the confirmation leads back there with a fresh token', async () => {
    const id = await contest({ allowedOrigins: ['https://shop.example.com'], landingUrl: 'https://landing.example/' });
    const r = await signup(id, { email: 'home@example.com', returnUrl: 'https://shop.example.com/join?src=ad#top' });
    expect(r.status, r.text).toBe(201);
    const row = await queryOne<{ return_url: string | null }>(
      env.db,
      sql`select return_url from entries where id = ${r.body.data.entryId}`,
    );
    expect(row!.return_url).toBe('https://shop.example.com/join?src=ad');
    expect(await confirmedTo('home@example.com')).toMatch(
      /^https:\/\/shop\.example\.com\/join\?src=ad#ce-entry=et_[A-Za-z0-9]{40}$/,
    );
    // the page's address may carry what the person typed into it: erasure takes it too
    const erased = await env.request('DELETE', `/api/v1/entries/${r.body.data.entryId}`, { key: t.privateKey });
    expect(erased.status).toBe(200);
    expect(
      await queryOne<{ return_url: string | null }>(
        env.db,
        sql`select return_url from entries where id = ${r.body.data.entryId}`,
      ),
    ).toEqual({ return_url: null });
  });

  it("a stranger's page is ignored: the confirmation leads to the landing page, else the hosted page; never the stranger's origin", async () => {
    const landed = await contest({
      allowedOrigins: ['https://shop.example.com'],
      landingUrl: 'https://landing.example/',
    });
    const a = await signup(landed, { email: 'lure1@example.com', returnUrl: 'https://evil.example/shop.example.com' });
    expect(a.status, a.text).toBe(201);
    expect(
      (await queryOne<{ r: string | null }>(
        env.db,
        sql`select return_url as r from entries where id = ${a.body.data.entryId}`,
      ))!.r,
    ).toBeNull();
    expect(await confirmedTo('lure1@example.com')).toMatch(/^https:\/\/landing\.example\/#ce-entry=et_/);

    const hosted = await contest({ allowedOrigins: ['https://shop.example.com'] });
    expect((await signup(hosted, { email: 'lure2@example.com', returnUrl: 'https://evil.example/' })).status).toBe(201);
    const to = await confirmedTo('lure2@example.com');
    expect(to.startsWith(`${env.deps.config.publicUrl.replace(/\/$/, '')}/c/${hosted}#ce-entry=et_`), to).toBe(true);
  });

  it('the "your link" email of a repeat sign-up leads to that sign-up\'s page when allowed, else the contest\'s', async () => {
    const id = await contest({ allowedOrigins: ['https://shop.example.com'], landingUrl: 'https://landing.example/' });
    expect((await signup(id, { email: 'again@example.com' })).status).toBe(201);
    const again = await signup(id, { email: 'again@example.com', returnUrl: 'https://shop.example.com/p/2' });
    expect(again.body.data).toEqual({ alreadyExists: true, linkSent: true });
    expect(await lastLink('again@example.com', /already entered/)).toMatch(
      /^https:\/\/shop\.example\.com\/p\/2#ce-entry=et_[A-Za-z0-9]{40}$/,
    );
    env.clock.advance(10 * 60_000 + 1000);
    const lure = await signup(id, { email: 'again@example.com', returnUrl: 'https://evil.example/p/2' });
    expect(lure.body.data).toEqual({ alreadyExists: true, linkSent: true });
    expect(await lastLink('again@example.com', /already entered/)).toMatch(
      /^https:\/\/landing\.example\/#ce-entry=et_/,
    );
  });

  it('an origin taken off the list stops leading there (checked when the link is followed)', async () => {
    const id = await contest({ allowedOrigins: ['https://old.example'], landingUrl: 'https://landing.example/' });
    expect((await signup(id, { email: 'moved@example.com', returnUrl: 'https://old.example/join' })).status).toBe(201);
    expect((await patch(id, { allowedOrigins: [] })).status).toBe(200);
    expect(await confirmedTo('moved@example.com')).toMatch(/^https:\/\/landing\.example\/#ce-entry=et_/);
  });

  it('not an http(s) address: 400 naming the field, nothing written', async () => {
    const id = await contest({ allowedOrigins: ['https://shop.example.com'] });
    const before = await query<{ n: number }>(env.db, sql`select count(*)::int as n from entries`);
    for (const returnUrl of [
      'javascript:alert(1)',
      'not a url',
      'ftp://shop.example.com/',
      42,
      `https://shop.example.com/${'a'.repeat(2000)}`,
    ]) {
      const r = await signup(id, { email: 'bad@example.com', returnUrl });
      expect(r.status, String(returnUrl)).toBe(400);
      expect(r.body.error).toMatch(/^returnUrl must be (an http or https URL|at most 2000 characters)$/);
    }
    expect(await query<{ n: number }>(env.db, sql`select count(*)::int as n from entries`)).toEqual(before);
  });
});
