import Stripe from 'stripe';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  contest,
  entry,
  entryRow,
  env,
  purchasesOf,
  STRIPE_SECRET,
  stripe,
  stripeEvent,
  UNAUTH,
} from '../../test/support/fixtures/referrals.js';
import { signStripe } from '../lib/signatures.js';
import { listReceipts } from './receipts.js';
import { minorToDecimal } from './referrals.js';

describe('Stripe checkout sessions', () => {
  it('a paid checkout.session.completed (signed by the stripe package) credits client_reference_id', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'sadv@example.com');
    const payload = stripeEvent({ eventId: 'evt_A', sessionId: 'cs_test_A', clientReferenceId: adv.code });
    const r = await stripe(c.id, payload);
    expect([r.status, r.body]).toEqual([
      200,
      {
        success: true,
        data: { referrerEntryId: adv.id, commissionAwarded: 0, pointsAwarded: 10, alreadyProcessed: false },
      },
    ]);
    expect(await purchasesOf(c.id)).toEqual([
      expect.objectContaining({
        order_id: 'cs_test_A',
        amount: '49.9900',
        currency: 'USD',
        source: 'stripe',
        referrer_entry_id: adv.id,
      }),
    ]);
    const [receipt] = await listReceipts(env.db, c.id);
    expect(receipt).toMatchObject({
      source: 'stripe',
      externalId: 'evt_A',
      dedupeKey: 'cs_test_A',
      outcome: 'processed',
    });
  });

  it('what we sign, the stripe package verifies', async () => {
    const payload = stripeEvent({ eventId: 'evt_ours' });
    const ts = Math.floor(Date.now() / 1000);
    const header = await signStripe(STRIPE_SECRET, ts, payload);
    expect(header).toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: ts }));
    const event = new Stripe('sk_test_unused').webhooks.constructEvent(payload, header, STRIPE_SECRET);
    expect(event.id).toBe('evt_ours');
  });

  it('metadata.referralCode, then metadata.ref, when client_reference_id matches nothing', async () => {
    const c = await contest();
    const a = await entry(c.id, 'ma@example.com');
    const b = await entry(c.id, 'mb@example.com');
    const r1 = await stripe(
      c.id,
      stripeEvent({ clientReferenceId: 'user_123', metadata: { referralCode: a.code, ref: b.code } }),
    );
    const r2 = await stripe(c.id, stripeEvent({ metadata: { ref: b.code } }));
    expect([r1.body.data.referrerEntryId, r2.body.data.referrerEntryId]).toEqual([a.id, b.id]);
  });

  it('amounts: minor units / 100; zero-decimal currencies as is; three-decimal / 1000', async () => {
    expect(minorToDecimal(4999, 'USD')).toBe('49.99');
    expect(minorToDecimal(5, 'EUR')).toBe('0.05');
    expect(minorToDecimal(100, 'USD')).toBe('1');
    expect(minorToDecimal(5000, 'JPY')).toBe('5000');
    expect(minorToDecimal(12345, 'KWD')).toBe('12.345');
    const c = await contest({ campaignType: 'affiliate', affiliate: { commissionPercent: 10 } });
    const adv = await entry(c.id, 'jp@example.com');
    const jpy = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_jpy', amountTotal: 5000, currency: 'jpy', clientReferenceId: adv.code }),
    );
    const krw = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_krw', amountTotal: 12345, currency: 'krw', clientReferenceId: adv.code }),
    );
    const usd = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_usd', amountTotal: 1999, currency: 'usd', clientReferenceId: adv.code }),
    );
    expect([jpy.body.data.commissionAwarded, krw.body.data.commissionAwarded, usd.body.data.commissionAwarded]).toEqual(
      [500, 1234.5, 2],
    );
    const rows = await purchasesOf(c.id);
    expect(rows.map((p) => [p.order_id, p.amount, p.currency])).toEqual([
      ['cs_jpy', '5000.0000', 'JPY'],
      ['cs_krw', '12345.0000', 'KRW'],
      ['cs_usd', '19.9900', 'USD'],
    ]);
    expect((await entryRow(adv.id)).commission).toBe(1736.5);
  });

  it('unpaid sessions and other events are ignored (200); async_payment_succeeded later credits', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'async@example.com');
    const unpaid = await stripe(
      c.id,
      stripeEvent({ sessionId: 'cs_async', paymentStatus: 'unpaid', clientReferenceId: adv.code }),
    );
    expect([unpaid.status, unpaid.body.data]).toEqual([200, { ignored: true, reason: 'Checkout session is not paid' }]);
    const other = await stripe(c.id, stripeEvent({ type: 'payment_intent.succeeded', clientReferenceId: adv.code }));
    expect([other.status, other.body.data]).toEqual([
      200,
      { ignored: true, reason: 'Event payment_intent.succeeded is not handled' },
    ]);
    const expired = await stripe(c.id, stripeEvent({ type: 'checkout.session.expired', clientReferenceId: adv.code }));
    expect(expired.body.data.ignored).toBe(true);
    const paid = await stripe(
      c.id,
      stripeEvent({
        type: 'checkout.session.async_payment_succeeded',
        sessionId: 'cs_async',
        clientReferenceId: adv.code,
      }),
    );
    expect(paid.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 10,
      alreadyProcessed: false,
    });
    expect((await listReceipts(env.db, c.id)).map((x) => x.outcome)).toEqual([
      'ignored',
      'ignored',
      'ignored',
      'processed',
    ]);
  });

  it('dedupe by event id (stored answer) and by session id (alreadyProcessed)', async () => {
    const c = await contest();
    const adv = await entry(c.id, 'sd@example.com');
    const payload = stripeEvent({ eventId: 'evt_D', sessionId: 'cs_D', clientReferenceId: adv.code });
    const first = await stripe(c.id, payload);
    const replay = await stripe(c.id, payload);
    const other = await stripe(
      c.id,
      stripeEvent({
        eventId: 'evt_D2',
        type: 'checkout.session.async_payment_succeeded',
        sessionId: 'cs_D',
        clientReferenceId: adv.code,
      }),
    );
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    expect(other.body.data).toEqual({
      referrerEntryId: adv.id,
      commissionAwarded: 0,
      pointsAwarded: 0,
      alreadyProcessed: true,
    });
    expect(await entryRow(adv.id)).toEqual({ points: 10, commission: 0 });
    expect((await listReceipts(env.db, c.id)).map((x) => `${x.externalId}:${x.outcome}`)).toEqual([
      'evt_D:processed',
      'evt_D:duplicate',
      'evt_D2:processed',
    ]);
  });

  it('signature refusals: wrong secret, stale or future beyond 300 s, body changed, truncated, missing; several v1 with one valid pass', async () => {
    const noSecret = await contest({ stripeSecret: null });
    const c = await contest();
    const adv = await entry(c.id, 'ss@example.com');
    const payload = stripeEvent({ clientReferenceId: adv.code });
    // the clock stands still while the cases run: 301 s stays 301 s however slow the machine is
    env.clock.freeze();
    onTestFinished(() => env.clock.thaw());
    const now = Math.floor(env.clock.now().getTime() / 1000);
    const gen = (opts: { secret?: string; timestamp?: number; payload?: string } = {}) =>
      Stripe.webhooks.generateTestHeaderString({
        payload: opts.payload ?? payload,
        secret: opts.secret ?? STRIPE_SECRET,
        timestamp: opts.timestamp ?? now,
      });
    const good = gen();
    const goodSig = good.split('v1=')[1]!;
    const cases: [string, string, string][] = [
      ['wrong secret', payload, gen({ secret: 'whsec_other' })],
      ['stale (301 s)', payload, gen({ timestamp: now - 301 })],
      ['future (301 s)', payload, gen({ timestamp: now + 301 })],
      ['body changed', payload.replace('4999', '499900'), good],
      ['truncated', payload, good.slice(0, -3)],
      ['no v1', payload, `t=${now}`],
      ['v0 only', payload, `t=${now},v0=${goodSig}`],
      ['timestamp changed', payload, `t=${now - 1},v1=${goodSig}`],
      ['two timestamps', payload, `t=${now},t=${now},v1=${goodSig}`],
      ['empty', payload, ''],
    ];
    for (const [name, body, header] of cases) {
      const r = await stripe(c.id, body, header || ' ');
      expect([name, r.status, r.body]).toEqual([name, 401, UNAUTH]);
    }
    // a contest without a stripeSecret refuses even a well-signed event
    const ns = await stripe(noSecret.id, payload, gen());
    expect([ns.status, ns.body]).toEqual([401, UNAUTH]);
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).every((x) => x.outcome === 'rejected')).toBe(true);
    // within tolerance, and with a forged v1 next to the real one
    const ok = await stripe(
      c.id,
      payload,
      `t=${now - 299},v1=${'0'.repeat(64)},v1=${gen({ timestamp: now - 299 }).split('v1=')[1]}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.pointsAwarded).toBe(10);
  });

  it('malformed events: 400 naming the field, recorded as rejected', async () => {
    const c = await contest();
    const cases: [string, string][] = [
      [JSON.stringify({ type: 'checkout.session.completed', data: { object: {} } }), 'id is required'],
      [JSON.stringify({ id: 42, type: 'checkout.session.completed' }), 'Invalid id'],
      [JSON.stringify({ id: 'evt_x' }), 'type is required'],
      [
        JSON.stringify({ id: 'evt_y', type: 'checkout.session.completed', data: { object: [] } }),
        'Invalid data.object',
      ],
      [JSON.stringify({ id: 'evt_z', type: 'checkout.session.completed' }), 'Invalid data.object'],
      [stripeEvent({ amountTotal: '4999' }), 'Invalid data.object.amount_total'],
      [stripeEvent({ amountTotal: 49.99 }), 'Invalid data.object.amount_total'],
      [stripeEvent({ currency: 'dollars' }), 'Invalid data.object.currency'],
      ['[1]', 'Invalid request body'],
      ['nope', 'Invalid request body'],
    ];
    for (const [payload, error] of cases) {
      const r = await stripe(c.id, payload);
      expect([payload.slice(0, 50), r.status, r.body]).toEqual([payload.slice(0, 50), 400, { success: false, error }]);
    }
    expect(await purchasesOf(c.id)).toEqual([]);
    expect((await listReceipts(env.db, c.id)).map((x) => x.outcome)).toEqual(cases.map(() => 'rejected'));
  });
});
