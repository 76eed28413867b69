/**
 * Referral webhooks (docs/contests-and-entries.md): Shopify `orders/paid` (X-Shopify-Hmac-Sha256, computed here
 * with node:crypto exactly as Shopify documents it) and Stripe Checkout events signed with the
 * official `stripe` package.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  BIG_ID,
  contest,
  entry,
  entryRow,
  env,
  type OrderOpts,
  purchasesOf,
  SHOPIFY_SECRET,
  shopify,
  shopifyHmac,
  shopifyOrder,
  t,
  UNAUTH,
} from '../../test/support/fixtures/referrals.js';
import { query } from '../../test/support/harness.js';
import { ledgerMismatches } from '../../test/support/ledger.js';
import { listReceipts } from './receipts.js';

describe('Shopify orders/paid', () => {
  it('credits the referrer with advocate points; the order id is admin_graphql_api_id, digits intact', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'advocate@example.com');
    const buyer = await entry(c.id, 'shopper@example.com');
    const r = await shopify(c.id, shopifyOrder({ notes: [{ name: 'ref', value: adv.code }] }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 10, alreadyProcessed: false },
    });
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect(await purchasesOf(c.id)).toEqual([
      {
        order_id: `gid://shopify/Order/${BIG_ID}`,
        entry_id: buyer.id,
        referrer_entry_id: adv.id,
        amount: '199.9900',
        currency: 'USD',
        points_awarded: 10,
        commission_awarded: '0.00',
        source: 'shopify',
      },
    ]);
    const ledger = await query<Record<string, unknown>>(
      env.db,
      sql`select delta, source from points_ledger where entry_id = ${adv.id}`,
    );
    expect(ledger).toEqual([{ delta: 10, source: 'referral' }]);
    expect(await ledgerMismatches(env.db, c.id)).toEqual([]);
    const [receipt] = await listReceipts(env.db, c.id);
    expect(receipt).toMatchObject({
      source: 'shopify',
      outcome: 'processed',
      statusCode: 200,
      dedupeKey: `gid://shopify/Order/${BIG_ID}`,
    });
  });

  it('code priority: note_attributes (ref or referralCode), then discount_codes, then ?ref= in landing_site', async () => {
    const c = await contest();
    const a = await entry(c.id, 'a@example.com');
    const b = await entry(c.id, 'b@example.com');
    const d = await entry(c.id, 'd@example.com');
    const otherContest = await contest();
    const stranger = await entry(otherContest.id, 's@example.com');
    const tag = Math.random().toString(36).slice(2, 8);
    const mixed = await entry(c.id, 'm@example.com', `MiXeD${tag}`);
    const twinA = await entry(c.id, 't1@example.com', `TwIn${tag}`);
    await entry(c.id, 't2@example.com', `tWiN${tag}`);
    const cases: [OrderOpts, string | null][] = [
      [{ notes: [{ name: 'ref', value: a.code }], discounts: [b.code], landing: `/?ref=${d.code}` }, a.id],
      [{ notes: [{ name: 'referralCode', value: b.code }], discounts: [a.code] }, b.id],
      [{ notes: [{ name: 'gift_note', value: a.code }], discounts: [b.code], landing: `/?ref=${d.code}` }, b.id],
      [{ discounts: ['SUMMER10', d.code] }, d.id],
      [{ landing: `https://shop.example.com/products/x?utm=1&ref=${d.code}` }, d.id],
      [{ landing: `/products/x?ref=${encodeURIComponent(a.code)}` }, a.id],
      [{ notes: [{ name: 'ref', value: 'nope' }], discounts: [a.code] }, a.id],
      [{ notes: [{ name: 'ref', value: stranger.code }] }, null],
      [{ discounts: [mixed.code.toUpperCase()] }, mixed.id], // Shopify discount codes are case-insensitive
      [{ discounts: [twinA.code.toUpperCase()] }, null], // ambiguous once case is folded: nobody
      [{ discounts: [twinA.code] }, twinA.id], // an exact match always wins
      [{}, null],
    ];
    for (const [i, [opts, expected]] of cases.entries()) {
      const r = await shopify(c.id, shopifyOrder({ ...opts, gid: `gid://shopify/Order/${1000 + i}` }));
      expect([i, r.status, r.body.data.referrerEntryId]).toEqual([i, 200, expected]);
    }
  });

  it('affiliate campaign: commission = amount x commissionPercent / 100 rounded to the cent, no points', async () => {
    const c = await contest({ campaignType: 'affiliate', affiliate: { commissionPercent: 12.5 } });
    const adv = await entry(c.id, 'aff@example.com');
    const r1 = await shopify(
      c.id,
      shopifyOrder({ gid: 'gid://shopify/Order/1', total: '199.99', discounts: [adv.code] }),
    );
    // 199.99 x 12.5% = 24.99875 -> 25.00
    expect(r1.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 25,
      pointsAwarded: 0,
      alreadyProcessed: false,
    });
    const r2 = await shopify(
      c.id,
      shopifyOrder({ gid: 'gid://shopify/Order/2', total: '10.10', discounts: [adv.code] }),
    );
    // 10.10 x 12.5% = 1.2625 -> 1.26
    expect(r2.body.data.commissionAwarded).toBe(1.26);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 26.26 });
    const [ledger] = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from points_ledger where contest_id = ${c.id}`,
    );
    expect(ledger!.n).toBe(0);
    // the commission shows on the leaderboard (metric: commission)
    const board = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: t.publicKey });
    expect([board.status, board.body.metric]).toEqual([200, 'commission']);
    expect(board.body.data[0]).toMatchObject({ id: adv.id, commission: 26.26, rank: 1 });
  });

  it('no matching code: 200 with referrerEntryId null; the sale is still recorded once', async () => {
    const c = await contest();
    const r = await shopify(c.id, shopifyOrder({ discounts: ['WELCOME'] }));
    expect([r.status, r.body.data]).toEqual([
      200,
      { referrerEntryId: null, commissionAwarded: 0, pointsAwarded: 0, alreadyProcessed: false },
    ]);
    const rows = await purchasesOf(c.id);
    expect(rows.map((p) => [p.referrer_entry_id, p.entry_id, p.points_awarded])).toEqual([[null, null, 0]]);
  });

  it('a buyer using their own code is not credited', async () => {
    const c = await contest();
    const self = await entry(c.id, 'shopper@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [self.code] }));
    expect(r.body.data.referrerEntryId).toBeNull();
    expect(await entryRow(self.id)).toEqual({ points: 0, commission: 0 });
  });

  it('dedupe: a new webhook id for the same order is alreadyProcessed; the same webhook id replays the stored answer', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'dd@example.com');
    const raw = shopifyOrder({ discounts: [adv.code] });
    const first = await shopify(c.id, raw, { webhookId: 'wh-same' });
    const replay = await shopify(c.id, raw, { webhookId: 'wh-same' });
    const redelivery = await shopify(c.id, raw, { webhookId: 'wh-other' });
    expect(first.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 10,
      alreadyProcessed: false,
    });
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    expect([redelivery.status, redelivery.body.data]).toEqual([
      200,
      { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 0, alreadyProcessed: true },
    ]);
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect(await purchasesOf(c.id)).toHaveLength(1);
    expect((await listReceipts(env.db, c.id)).map((x) => `${x.externalId}:${x.outcome}`)).toEqual([
      'wh-same:processed',
      'wh-same:duplicate',
      'wh-other:processed',
    ]);
  });

  it('other topics and zero totals: 200, ignored, recorded as ignored', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'ig@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [adv.code] }), { topic: 'orders/create' });
    expect([r.status, r.body]).toEqual([
      200,
      { success: true, data: { ignored: true, reason: 'Topic orders/create is not handled' } },
    ]);
    const z = await shopify(c.id, shopifyOrder({ total: '0.00', discounts: [adv.code] }));
    expect([z.status, z.body.data]).toEqual([200, { ignored: true, reason: 'Order total is 0' }]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).map((x) => [x.outcome, x.statusCode])).toEqual([
      ['ignored', 200],
      ['ignored', 200],
    ]);
  });

  it('a contest that is not open: acknowledged (200) and ignored, nothing credited', async () => {
    const c = await contest({ status: 'ended' });
    const adv = await entry(c.id, 'closed@example.com');
    const r = await shopify(c.id, shopifyOrder({ discounts: [adv.code] }));
    expect([r.status, r.body.data]).toEqual([200, { ignored: true, reason: 'Contest is not active' }]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 0 });
    expect((await listReceipts(env.db, c.id)).map((x) => [x.outcome, x.error])).toEqual([
      ['ignored', 'Contest is not active'],
    ]);
  });

  it('malformed payloads: 400 naming the field, recorded as rejected, never 500', async () => {
    const c = await contest();
    const cases: [string, string][] = [
      [shopifyOrder({ total: 199.99 }), 'Invalid total_price'],
      [shopifyOrder({ total: 'abc' }), 'Invalid total_price'],
      [shopifyOrder({ total: '-5.00' }), 'Invalid total_price'],
      [shopifyOrder({ total: '1.23456' }), 'Invalid total_price'],
      [shopifyOrder({ total: null }), 'total_price is required'],
      [shopifyOrder({ total: '9999999999999.00' }), 'Amount is too large'],
      [shopifyOrder({ gid: '' }), 'Invalid admin_graphql_api_id'],
      [JSON.stringify({ total_price: '1.00' }), 'admin_graphql_api_id is required'],
      [shopifyOrder({ currency: 'EURO' }), 'Invalid currency'],
      ['[]', 'Invalid request body'],
      ['"order"', 'Invalid request body'],
      ['{"admin_graphql_api_id": ', 'Invalid request body'],
    ];
    for (const [raw, error] of cases) {
      const r = await shopify(c.id, raw);
      expect([raw.slice(0, 40), r.status, r.body]).toEqual([raw.slice(0, 40), 400, { success: false, error }]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    const receipts = await listReceipts(env.db, c.id);
    expect(receipts.map((x) => x.outcome)).toEqual(cases.map(() => 'rejected'));
  });

  it('refused: no shopifySecret, wrong secret, body changed, header missing or truncated', async () => {
    const noSecret = await contest({ shopifySecret: null });
    const c = await contest();
    const adv = await entry(c.id, 'x@example.com');
    const raw = shopifyOrder({ discounts: [adv.code] });
    const good = shopifyHmac(raw);
    const attempts: [string, Promise<{ status: number; body: unknown }>][] = [
      ['no secret on the contest', shopify(noSecret.id, raw, { hmac: shopifyHmac(raw, '') })],
      ['no secret on the contest, signed with another', shopify(noSecret.id, raw)],
      ['wrong secret', shopify(c.id, raw, { hmac: shopifyHmac(raw, 'other') })],
      ['body changed', shopify(c.id, raw.replace('199.99"', '999.99"'), { hmac: good })],
      ['header missing', shopify(c.id, raw, { hmac: null })],
      ['truncated', shopify(c.id, raw, { hmac: good.slice(0, -2) })],
      [
        'hex instead of base64',
        shopify(c.id, raw, { hmac: createHmac('sha256', SHOPIFY_SECRET).update(raw).digest('hex') }),
      ],
    ];
    for (const [name, p] of attempts) {
      const r = await p;
      expect([name, r.status, r.body]).toEqual([name, 401, UNAUTH]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    expect(await entryRow(adv.id)).toEqual({ points: 0, commission: 0 });
    expect((await listReceipts(env.db, c.id)).every((x) => x.outcome === 'rejected' && x.statusCode === 401)).toBe(
      true,
    );
  });
});
