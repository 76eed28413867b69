/**
 * Short links (`/r/{code}`): 302 to the contest's page with ref and via, the visit counted at
 * the redirect once per browser (a cookie), an unknown code sent to the front page with the same
 * answer and the same work.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query } from '../db/client.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Short links');
});
afterAll(() => env.close());

const follow = (path: string, cookie?: string) =>
  env.app.request(path, { headers: cookie ? { cookie } : {} }, undefined);
const visits = async (contestId: string) =>
  (
    await query<{ entry_id: string | null; channel: string | null }>(
      env.db,
      sql`select entry_id, channel from link_visits where contest_id = ${contestId} order by id`,
    )
  ).map((r) => [r.entry_id, r.channel]);

async function contestWithEntry(extra: Record<string, unknown>) {
  const c = await env.contest(t.teamId);
  const r = await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body: extra });
  expect(r.status, r.text).toBe(200);
  const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
    key: t.privateKey,
    body: { email: `short-${c.id.slice(0, 8)}@example.com` },
  });
  expect(e.status, e.text).toBe(201);
  return { contestId: c.id, entryId: e.body.data.entryId as string, code: e.body.data.referralCode as string };
}

describe('GET /r/{code}', () => {
  it('302 to the hosted page with ref, via and #ce-counted; the visit counted once per browser (its cookie)', async () => {
    const { contestId, entryId, code } = await contestWithEntry({ publicSignup: true });
    const res = await follow(`/r/${code}?via=whatsapp`);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.pathname).toBe(`/c/${contestId}`);
    expect(Object.fromEntries(to.searchParams)).toEqual({ ref: code, via: 'whatsapp' });
    expect(to.hash).toBe('#ce-counted');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^ce_r_${code}=1; Max-Age=86400; Path=/r/; HttpOnly; SameSite=Lax`));
    expect(await visits(contestId)).toEqual([[entryId, 'whatsapp']]);
    // the same browser again: the same redirect, no second visit, no new cookie
    const again = await follow(`/r/${code}?via=whatsapp`, `ce_r_${code}=1`);
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe(res.headers.get('location'));
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await visits(contestId)).toEqual([[entryId, 'whatsapp']]);
    // another browser: counted; a channel that is none of the share channels is left out
    const other = await follow(`/r/${code}?via=carrier-pigeon`);
    expect(Object.fromEntries(new URL(other.headers.get('location')!).searchParams)).toEqual({ ref: code });
    expect(await visits(contestId)).toEqual([
      [entryId, 'whatsapp'],
      [entryId, null],
    ]);
  });

  it('a contest with a landingUrl: there, its own query kept', async () => {
    const { code } = await contestWithEntry({
      publicSignup: true,
      landingUrl: 'https://shop.example.com/join?lang=fr',
    });
    const res = await follow(`/r/${code}?via=x`);
    expect(res.headers.get('location')).toBe(`https://shop.example.com/join?lang=fr&ref=${code}&via=x#ce-counted`);
  });

  it('an unknown code, an erased entry, a contest without a page, a malformed code: 302 to the front page, no visit of any contest', async () => {
    const noPage = await contestWithEntry({ publicSignup: false });
    const erased = await contestWithEntry({ publicSignup: true });
    const del = await env.request('DELETE', `/api/v1/entries/${erased.entryId}`, { key: t.privateKey });
    expect(del.status, del.text).toBe(200);
    const before = (await query<{ n: string }>(env.db, sql`select count(*) as n from link_visits`))[0]!.n;
    for (const path of [
      '/r/NoSuchCode00?via=x',
      `/r/${noPage.code}`,
      `/r/${erased.code}`,
      '/r/%00',
      `/r/${'a'.repeat(65)}`,
      "/r/x'--",
    ]) {
      const res = await follow(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe(`${env.deps.config.publicUrl.replace(/\/$/, '')}/`);
    }
    expect(await visits(noPage.contestId)).toEqual([]);
    expect(await visits(erased.contestId)).toEqual([]);
    // the three well-formed codes wrote their visit all the same (to no contest: the fold deletes them)
    const after = (await query<{ n: string }>(env.db, sql`select count(*) as n from link_visits`))[0]!.n;
    expect(Number(after) - Number(before)).toBe(3);
  });
});
