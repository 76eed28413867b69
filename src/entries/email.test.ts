/**
 * Email addresses: the one normaliser (src/lib/email.ts) and every way an email comes in
 * (entry create/update, signup webhook, bonus-action lookup, purchases, instant-win claim),
 * so that the same string always finds the same entry.
 */
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createTestEnv,
  query,
  type TeamFixture,
  type TestEnv,
  wheelGameBody,
} from '../../test/support/harness.js';
import { normalizeEmail } from '../lib/email.js';

/** accepted: as sent → as stored */
const ACCEPTED: [string, string][] = [
  ["o'brien@example.com", "o'brien@example.com"],
  ['first.last+tag@mail.example.co.uk', 'first.last+tag@mail.example.co.uk'],
  ['user@xn--bcher-kva.example', 'user@xn--bcher-kva.example'],
  ['user@bücher.example', 'user@bücher.example'],
  ['  Ann.Lee@Example.COM ', 'ann.lee@example.com'],
  ['USER@BÜCHER.Example', 'user@bücher.example'],
  // ü as u + combining diaeresis is stored composed (NFC): one spelling, one entry
  ['user@bu\u0308cher.example', 'user@bücher.example'],
  ["!#$%&'*+/=?^_`{|}~-@example.com", "!#$%&'*+/=?^_`{|}~-@example.com"],
  ['a@b.co', 'a@b.co'],
  ['x@ドメイン.テスト', 'x@ドメイン.テスト'],
  ['user_name-1@sub-domain.example-site.org', 'user_name-1@sub-domain.example-site.org'],
  [`${'l'.repeat(64)}@example.com`, `${'l'.repeat(64)}@example.com`],
  [
    `a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(60)}`,
    `a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(60)}`,
  ],
];

const REFUSED: [string, string][] = [
  ['', 'empty'],
  ['annexample.com', 'no @'],
  ['ann@', 'empty domain'],
  ['@example.com', 'empty local part'],
  ['ann lee@example.com', 'space'],
  ['ann@exa mple.com', 'space in the domain'],
  ['ann@localhost', 'no dot in the domain'],
  ['ann@@example.com', 'two @'],
  ['a@b@example.com', 'two @'],
  ['.ann@example.com', 'dot first'],
  ['ann.@example.com', 'dot last'],
  ['an..n@example.com', 'doubled dot'],
  ['ann@example..com', 'empty label'],
  ['ann@.example.com', 'empty first label'],
  ['ann@example.com.', 'trailing dot'],
  ['ann@-example.com', 'label starting with a hyphen'],
  ['ann@example-.com', 'label ending with a hyphen'],
  ['ann@exa_mple.com', 'underscore in the domain'],
  ['ann@xn--zz.example', 'punycode that does not decode'],
  ['ann@1.2.3.4', 'an IP address'],
  ['ann@[1.2.3.4]', 'an address literal'],
  ['"ann lee"@example.com', 'quoted local part'],
  ['ann(comment)@example.com', 'comment'],
  ['ann\u0000@example.com', 'NUL'],
  ['ann@example.com\u0007', 'control character'],
  ['ann\t@example.com', 'tab'],
  ['ann\n@example.com', 'newline'],
  ['jöhn@example.com', 'non-ASCII local part'],
  ['ann@example。com', 'ideographic full stop'],
  ['ann@%41.com', 'percent-encoded domain'],
  [`${'l'.repeat(65)}@example.com`, 'local part over 64 characters'],
  [`a@${'d'.repeat(64)}.com`, 'label over 63 characters'],
  [`a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(61)}`, 'over 254 characters'],
  [`${'a'.repeat(250)}@example.com`, 'over 254 characters'],
];

describe('normalizeEmail (the one normal form)', () => {
  it.each(ACCEPTED)('accepts %j as %j', (sent, stored) => {
    expect(normalizeEmail(sent)).toBe(stored);
    // idempotent: the stored form normalises to itself, so looking it up again finds it
    expect(normalizeEmail(stored)).toBe(stored);
  });
  it.each(REFUSED)('refuses %j (%s)', (sent) => {
    expect(normalizeEmail(sent)).toBeNull();
  });
});

let env: TestEnv;
let t: TeamFixture;
let seq = 0;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: { limit: async () => ({ success: true, retryAfterSeconds: 0 }) } });
  t = await env.team();
});
afterAll(async () => {
  await env.settle();
  await env.close();
});

const entryRows = (contestId: string) =>
  query<{ id: string; email: string | null }>(
    env.db,
    sql`select id, email from entries where contest_id = ${contestId} order by created_at, id`,
  );

describe('every way in stores the same form and finds the entry by the same string', () => {
  it.each(ACCEPTED)('%j', async (sent, stored) => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: false,
      purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 0 },
    });
    const created = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: sent },
    });
    expect([created.status, created.body.data?.email]).toEqual([201, stored]);
    const id = created.body.data.entryId as string;

    // a second create with the same string: the same entry
    const again = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: sent },
    });
    expect([again.status, again.body.data.entryId, again.body.data.alreadyExists]).toEqual([200, id, true]);

    // bonus-action lookup by the same string (query-string encoded)
    const lookup = await env.request(
      'GET',
      `/api/v1/entries/lookup/bonus-actions?email=${encodeURIComponent(sent)}&contestId=${c.id}`,
      { key: t.publicKey },
    );
    expect([lookup.status, lookup.body.data?.entryId]).toEqual([200, id]);

    // a purchase by the same string credits that entry
    const bought = await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
      key: t.privateKey,
      body: { email: sent, orderId: `order-${++seq}`, amount: 10 },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect((await query<{ points: number }>(env.db, sql`select points from entries where id = ${id}`))[0]!.points).toBe(
      5,
    );

    // update to the same string in another case: no conflict with itself, same stored form
    const upd = await env.request('PUT', `/api/v1/entries/${id}`, {
      key: t.privateKey,
      body: { email: ` ${sent.toUpperCase()} ` },
    });
    expect([upd.status, upd.body.data?.email]).toEqual([200, stored]);
    expect(await entryRows(c.id)).toEqual([{ id, email: stored }]);
  });

  it('the signup webhook uses the same form: an API lookup by the string sent there finds the entry', async () => {
    const c = await env.contest(t.teamId, { externalTracking: { enabled: true }, requireEmailConfirmation: false });
    const secret = (await env.request('POST', `/api/admin/contests/${c.id}/webhook-secret`, { headers: admin })).body
      .data.secret as string;
    for (const [sent, stored] of ACCEPTED.slice(0, 4)) {
      const raw = JSON.stringify({ email: sent });
      const at = new Date();
      const wid = `msg_${++seq}`;
      const r = await env.request('POST', `/api/webhooks/signup/${c.id}`, {
        rawBody: raw,
        headers: {
          'webhook-id': wid,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(wid, at, raw),
        },
      });
      expect([r.status, r.body.data?.email]).toEqual([201, stored]);
      const again = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: t.privateKey,
        body: { email: sent },
      });
      expect([again.status, again.body.data.entryId]).toEqual([200, r.body.data.entryId]);
    }
  });

  it('an instant-win claim stores the same form; claiming again with the same string is the same claim', async () => {
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: t.privateKey,
      body: wheelGameBody(100),
    });
    expect(game.status, JSON.stringify(game.body)).toBe(201);
    const gameId = game.body.data.id as string;
    for (const [sent, stored] of ACCEPTED.slice(0, 4)) {
      const p = await env.request('POST', `/api/v1/instant-win-games/${gameId}/play`, { key: t.publicKey, body: {} });
      expect(p.status).toBe(200);
      const { playId, playCookie } = p.body.data;
      const claim = () =>
        env.request('POST', `/api/v1/instant-win-games/${gameId}/plays/${playId}/claim`, {
          key: t.publicKey,
          body: { email: sent, playCookie },
        });
      const first = await claim();
      expect([first.status, first.body.data?.alreadyClaimed]).toEqual([200, false]);
      const second = await claim();
      expect([second.status, second.body.data?.alreadyClaimed]).toEqual([200, true]);
      const rows = await query<{ email: string }>(
        env.db,
        sql`select email from instant_win_plays where id = ${playId}`,
      );
      expect(rows).toEqual([{ email: stored }]);
    }
    const entries = await entryRows(gameId);
    expect(entries.map((e) => e.email).sort()).toEqual(
      ACCEPTED.slice(0, 4)
        .map(([, s]) => s)
        .sort(),
    );
  });
});

describe('refused everywhere with the endpoint’s message, nothing written', () => {
  it.each(REFUSED)('%j (%s)', async (sent) => {
    const c = await env.contest(t.teamId, { purchaseTracking: { enabled: true, pointsPerPurchase: 5 } });
    const created = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: t.privateKey,
      body: { email: sent, phone: '+15550001111' },
    });
    // the empty string is a blank email (absent): with a phone the entry is phone-only
    if (sent === '') {
      expect(created.status).toBe(201);
      return;
    }
    const expected = sent.includes('\u0000') ? 'email must not contain NUL characters' : 'Invalid email';
    expect([created.status, created.body]).toEqual([400, { success: false, error: expected }]);
    const bought = await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
      key: t.privateKey,
      body: { email: sent, orderId: 'o1', amount: 1 },
    });
    expect([bought.status, bought.body.error]).toEqual([
      400,
      sent.includes('\u0000') ? expected : 'Invalid request body',
    ]);
    const lookup = await env.request(
      'GET',
      `/api/v1/entries/lookup/bonus-actions?email=${encodeURIComponent(sent)}&contestId=${c.id}`,
      {
        key: t.publicKey,
      },
    );
    expect([lookup.status, lookup.body.error]).toEqual([400, expected]);
    expect(await entryRows(c.id)).toEqual([]);
    expect(await query(env.db, sql`select 1 from purchases where contest_id = ${c.id}`)).toEqual([]);
  });
});
