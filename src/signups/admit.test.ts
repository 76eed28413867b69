/**
 * Letting a waitlist in: the first N by position, or named entries; admitted entries leave the
 * positions of those still waiting; each is emailed and announced once; a retry with the same
 * Idempotency-Key admits nobody and answers the same list.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { query, queryOne } from '../db/client.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

async function waitlist(n: number) {
  const c = await env.contest(t.teamId, { requireEmailConfirmation: false, mode: 'waitlist', title: 'Early access' });
  const entries: { id: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const r = await env.request('POST', `/api/v1/contests/${c.id}/signup`, {
      key: t.privateKey,
      body: { email: `w${i}@example.com`, name: `Wait ${i}` },
    });
    // signups need the contest's publicSignup only for public keys; a private key goes through entry create's rules
    if (r.status === 403) {
      await env.request('PATCH', `/api/v1/contests/${c.id}`, { key: t.privateKey, body: { publicSignup: true } });
      i--;
      continue;
    }
    expect(r.status, r.text).toBe(201);
    entries.push({ id: r.body.data.entryId, token: r.body.data.entryToken });
    env.clock.advance(1000);
  }
  return { id: c.id, entries };
}
const admit = (contestId: string, body: unknown, key?: string) =>
  env.request('POST', `/api/v1/contests/${contestId}/admit`, {
    key: t.privateKey,
    body,
    headers: key ? { 'idempotency-key': key } : {},
  });
const me = (token: string) => env.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });

describe('POST /contests/{contestId}/admit', () => {
  it('admits the first N by position; they leave the positions of those still waiting; each is emailed once', async () => {
    const w = await waitlist(5);
    // the third joiner moves to the top
    await env.request('POST', `/api/v1/entries/${w.entries[2]!.id}/points`, {
      key: t.privateKey,
      body: { points: 10, reason: 'referrals' },
    });
    const r = await admit(w.id, { count: 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({ entryIds: [w.entries[2]!.id, w.entries[0]!.id], count: 2 });
    expect((await me(w.entries[2]!.token)).body.data).toMatchObject({
      position: null,
      total: 3,
      admittedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await me(w.entries[1]!.token)).body.data.admittedAt).toBeNull();
    expect((await me(w.entries[1]!.token)).body.data).toMatchObject({ position: 1, total: 3 });
    expect((await me(w.entries[4]!.token)).body.data).toMatchObject({ position: 3, total: 3 });
    // the leaderboard is the queue: those let in leave it, and its ranks are the positions
    const board = await env.request('GET', `/api/v1/contests/${w.id}/leaderboard`, { key: t.privateKey });
    expect(board.body.data.map((r: { id: string; rank: number }) => [r.rank, r.id])).toEqual([
      [1, w.entries[1]!.id],
      [2, w.entries[3]!.id],
      [3, w.entries[4]!.id],
    ]);
    await env.settle();
    const mails = env.sent.filter((m) => m.subject === "You're in: Early access");
    expect(mails.map((m) => m.to).sort()).toEqual(['w0@example.com', 'w2@example.com']);
    const admitted = await query<{ id: string }>(
      env.db,
      sql`select id from entries where contest_id = ${w.id} and admitted_at is not null order by id`,
    );
    expect(admitted.map((x) => x.id).sort()).toEqual([w.entries[0]!.id, w.entries[2]!.id].sort());
    // the next admission takes the next ones
    const next = await admit(w.id, { count: 10 });
    expect(next.body.data.entryIds).toEqual([w.entries[1]!.id, w.entries[3]!.id, w.entries[4]!.id]);
  });

  it('the same Idempotency-Key admits nobody twice and answers the same list', async () => {
    const w = await waitlist(4);
    const first = await admit(w.id, { count: 2 }, 'launch-day-1');
    expect(first.body.data.count).toBe(2);
    const again = await admit(w.id, { count: 2 }, 'launch-day-1');
    expect(again.body.data).toEqual(first.body.data);
    const n = await queryOne<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from entries where contest_id = ${w.id} and admitted_at is not null`,
    );
    expect(n!.n).toBe(2);
  });

  it('named entries: only those still waiting are admitted', async () => {
    const w = await waitlist(3);
    await admit(w.id, { entryIds: [w.entries[1]!.id] });
    const r = await admit(w.id, {
      entryIds: [w.entries[1]!.id, w.entries[2]!.id, '00000000-0000-4000-8000-000000000000'],
    });
    expect(r.body.data).toEqual({ entryIds: [w.entries[2]!.id], count: 1 });
  });

  it('refusals: not a waitlist 409, another team 404, bad bodies and keys 400, a public key 403; nothing changes', async () => {
    const w = await waitlist(1);
    const giveaway = await env.contest(t.teamId, { mode: 'giveaway' });
    const other = await env.team('Other');
    const cases: [string, unknown, number, string, Record<string, string>?][] = [
      [giveaway.id, { count: 1 }, 409, 'Contest is not a waitlist'],
      [w.id, {}, 400, 'Give either count or entryIds'],
      [w.id, { count: 1, entryIds: [w.entries[0]!.id] }, 400, 'Give either count or entryIds'],
      [w.id, { count: 0 }, 400, 'count must be an integer between 1 and 10000'],
      [w.id, { entryIds: [] }, 400, 'entryIds must not be empty'],
      [w.id, { count: 1 }, 400, 'Invalid Idempotency-Key', { 'idempotency-key': 'has space' }],
    ];
    for (const [id, body, status, error, headers] of cases) {
      const r = await env.request('POST', `/api/v1/contests/${id}/admit`, { key: t.privateKey, body, headers });
      expect([r.status, r.body.error]).toEqual([status, error]);
    }
    const foreign = await env.request('POST', `/api/v1/contests/${w.id}/admit`, {
      key: other.privateKey,
      body: { count: 1 },
    });
    expect(foreign.status).toBe(404);
    const pub = await env.request('POST', `/api/v1/contests/${w.id}/admit`, { key: t.publicKey, body: { count: 1 } });
    expect(pub.status).toBe(403);
    expect((await me(w.entries[0]!.token)).body.data.position).toBe(1);
  });
});

describe('admittedAt where the team reads entries', () => {
  it("is in the entry's detail, the CSV export (a column after the others) and the person's export", async () => {
    const w = await waitlist(2);
    const r = await admit(w.id, { count: 1 });
    const [inId] = r.body.data.entryIds as string[];
    const outId = w.entries.find((e) => e.id !== inId)!.id;
    const at = new Date(
      (await queryOne<{ at: Date | string }>(env.db, sql`select admitted_at as at from entries where id = ${inId!}`))!
        .at,
    ).toISOString();
    const detail = async (id: string) =>
      (await env.request('GET', `/api/v1/entries/${id}`, { key: t.privateKey })).body.data.admittedAt;
    expect([await detail(inId!), await detail(outId)]).toEqual([at, null]);
    const csv = (await env.request('GET', `/api/v1/contests/${w.id}/entries/export`, { key: t.privateKey })).text;
    const [header, ...lines] = csv.trim().split('\r\n');
    expect(header!.split(',').at(-1)).toBe('admittedAt');
    const cell = (id: string) =>
      lines
        .find((l) => l.startsWith(id))!
        .split(',')
        .at(-1);
    expect([cell(inId!), cell(outId)]).toEqual([at, '']);
    const person = await env.request('GET', `/api/v1/entries/${inId}/export`, { key: t.privateKey });
    expect(person.body.data.entry.admittedAt).toBe(at);
  });
});
