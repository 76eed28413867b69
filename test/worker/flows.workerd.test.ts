/**
 * The feature flows through the real Worker in workerd (Neon HTTP driver → local endpoint → Postgres):
 * an entry with a referral (and its confirmation email, sent after the response with
 * ctx.waitUntil through the Resend transport), a bonus completion, a purchase, the leaderboard,
 * an instant-win play and its claim (and the prize email), and the cron's expiry sweep.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/worker.js';
import {
  call,
  eventually,
  hasPostgres,
  makeContest,
  makeTeam,
  resendLog,
  sqlRows,
  type Team,
} from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);
const ADA = `ada-${tag}@example.com`;
const BOB = `bob-${tag}@example.com`;
const WINNER = `winner-${tag}@example.com`;

/** the first email the fake Resend API received for `to` (waits for ctx.waitUntil delivery) */
const emailTo = (to: string) =>
  eventually(
    async () =>
      (await resendLog()).delivered.find((r) => r.body?.to?.[0] === to) as
        | { headers: Record<string, string>; body: any }
        | undefined,
  );

async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }),
    env as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

describe.skipIf(!hasPostgres)('Worker in workerd: entries, referral, bonus, purchase, leaderboard', () => {
  let team: Team;
  let contestId: string;
  let ada: { entryId: string; referralCode: string };
  let bobId: string;

  beforeAll(async () => {
    team = await makeTeam('Flows');
    contestId = (
      await makeContest(team.teamId, {
        title: 'Refer <friends> & win',
        mode: 'leaderboard',
        referral: { advocatePoints: 10, friendPoints: 5 },
        purchaseTracking: { enabled: true, pointsPerPurchase: 2, pointsPerCurrencyUnit: 1 },
      })
    ).id;
  });

  it('creates an entry (201) and delivers its confirmation email after the response, with the name escaped', async () => {
    const res = await call('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: `  ${ADA.toUpperCase()} `, name: '<script>alert(1)</script>' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      email: ADA,
      alreadyExists: false,
      isReferred: false,
      pointsAwarded: { advocate: 0, friend: 0 },
    });
    const detail = await call('GET', `/api/v1/entries/${res.body.data.entryId}`, { key: team.publicKey });
    expect(detail.body.data).toMatchObject({
      email: ADA,
      name: '<script>alert(1)</script>',
      emailConfirmed: false,
      points: 0,
    });
    ada = { entryId: res.body.data.entryId, referralCode: detail.body.data.referralCode };
    expect(ada.referralCode).toBeTruthy();

    const mail = await emailTo(ADA);
    expect(mail.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(mail.body.subject).toBe('Confirm your entry: Refer <friends> & win');
    // the confirmation greets nobody by name (the address is not yet proven to be the signer's)
    expect(mail.body.text).toMatch(/^Hi,\n/);
    expect(mail.body.text).not.toContain('alert(1)');
    expect(mail.body.text).toMatch(/http:\/\/contests\.test\/api\/confirm\/\S+/);
    expect(mail.body.html).not.toContain('<script>');
    expect(mail.body.html).not.toContain('alert(1)');
    expect(mail.body.html).toContain('Refer &lt;friends&gt; &amp; win');
    // the row is marked sent once Resend has answered, a moment after the email arrived there
    const row = await eventually(async () => {
      const [r] = await sqlRows<{ status: string; attempts: number }>(
        sql`select status, attempts from email_outbox where "to" = ${ADA}`,
      );
      return r?.status === 'sent' ? r : undefined;
    });
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('an entry with the referral code awards both sides as ledger rows', async () => {
    const res = await call('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: BOB, name: 'Bob', referralCode: ada.referralCode },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ isReferred: true, pointsAwarded: { advocate: 10, friend: 5 } });
    bobId = res.body.data.entryId;
    const ledger = await sqlRows<{ entry_id: string; delta: number; source: string }>(
      sql`select entry_id, delta, source from points_ledger where entry_id in (${ada.entryId}, ${bobId}) order by delta desc`,
    );
    expect(ledger).toEqual([
      { entry_id: ada.entryId, delta: 10, source: 'referral' },
      { entry_id: bobId, delta: 5, source: 'referral' },
    ]);
    // the same email again: 200, alreadyExists, nothing awarded twice
    const again = await call('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: BOB, referralCode: ada.referralCode },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ entryId: bobId, alreadyExists: true });
    const counted = await sqlRows<{ n: number }>(
      sql`select count(*)::int as n from points_ledger where entry_id in (${ada.entryId}, ${bobId})`,
    );
    expect(counted[0]!.n).toBe(2);
  });

  it('completes a bonus action once (public key)', async () => {
    const action = await call('POST', `/api/admin/contests/${contestId}/bonus-actions`, {
      admin: true,
      body: {
        action: 'follow',
        description: 'Follow us',
        icon: 'x',
        iconColor: '#000',
        points: 7,
        confirmationType: 'auto',
      },
    });
    expect(action.status).toBe(201);
    const path = `/api/v1/entries/${bobId}/bonus-actions/${action.body.data.id}/complete`;
    const first = await call('POST', path, { key: team.publicKey, body: {} });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ alreadyCompleted: false, pointsAdded: 7, newTotalPoints: 12 });
    const second = await call('POST', path, { key: team.publicKey, body: {} });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ alreadyCompleted: true });
    const bob = await sqlRows<{ points: number }>(sql`select points from entries where id = ${bobId}`);
    expect(bob[0]!.points).toBe(12);
  });

  it('records a purchase once per orderId (private key)', async () => {
    const body = { email: BOB, orderId: `order-${tag}`, amount: 12.5 };
    const first = await call('POST', `/api/v1/contests/${contestId}/purchases`, { key: team.privateKey, body });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ entryId: bobId, pointsAwarded: 14, alreadyExists: false });
    const dup = await call('POST', `/api/v1/contests/${contestId}/purchases`, { key: team.privateKey, body });
    expect(dup.status).toBe(200);
    expect(dup.body.data).toMatchObject({
      pointsAwarded: 0,
      alreadyExists: true,
      purchaseId: first.body.data.purchaseId,
    });
    const pub = await call('POST', `/api/v1/contests/${contestId}/purchases`, { key: team.publicKey, body });
    expect(pub).toMatchObject({ status: 403, body: { error: 'Private key required' } });
  });

  it('the leaderboard lists confirmed entries only, by points', async () => {
    const before = await call('GET', `/api/v1/contests/${contestId}/leaderboard`, { key: team.publicKey });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ success: true, metric: 'points', data: [] });

    // confirm both through the links in their emails
    for (const to of [ADA, BOB]) {
      const mail = await emailTo(to);
      const link = /http:\/\/contests\.test(\/api\/confirm\/\S+)/.exec(mail.body.text)![1]!;
      const res = await call('GET', link, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ emailConfirmed: true });
    }
    const board = await call('GET', `/api/v1/contests/${contestId}/leaderboard`, { key: team.publicKey });
    expect(
      board.body.data.map((r: { rank: number; email: string; points: number; referralsCount: number }) => [
        r.rank,
        r.email,
        r.points,
        r.referralsCount,
      ]),
    ).toEqual([
      [1, BOB, 26, 0],
      [2, ADA, 10, 1],
    ]);
  });
});

describe.skipIf(!hasPostgres)('Worker in workerd: instant win play, claim, prize email, expiry sweep', () => {
  let team: Team;
  let gameId: string;
  let tierId: string;

  beforeAll(async () => {
    team = await makeTeam('Instant');
    const game = await call('POST', '/api/v1/instant-win-games', {
      key: team.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin <the> wheel',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: '10% off', oddsPercent: 100, deliveryType: 'unique_code', codes: [`WD-${tag}-1`, `WD-${tag}-2`] },
          { name: 'Try again', oddsPercent: 0, isMiss: true },
        ],
      },
    });
    expect(game.status, game.text).toBe(201);
    gameId = game.body.data.id;
    tierId = game.body.data.tiers[0].id;
  });

  it('plays, claims with an email, and the prize email carries the code', async () => {
    const play = await call('POST', `/api/v1/instant-win-games/${gameId}/play`, { key: team.publicKey, body: {} });
    expect(play.status, play.text).toBe(200);
    expect(play.body.data).toMatchObject({
      alreadyPlayed: false,
      result: { id: tierId, name: '10% off', isMiss: false },
    });
    const { playId, playCookie } = play.body.data;
    expect(playCookie.length).toBeGreaterThanOrEqual(16);

    const claim = await call('POST', `/api/v1/instant-win-games/${gameId}/plays/${playId}/claim`, {
      key: team.publicKey,
      body: { email: WINNER, playCookie },
    });
    expect(claim.status, claim.text).toBe(200);
    expect(claim.body.data).toMatchObject({ alreadyClaimed: false, prizeName: '10% off' });
    const code = claim.body.data.couponCode as string;
    expect([`WD-${tag}-1`, `WD-${tag}-2`]).toContain(code);

    const mail = await emailTo(WINNER);
    expect(mail.body.subject).toBe('You won: 10% off');
    expect(mail.body.text).toContain(`Your code: ${code}`);
    expect(mail.body.html).toContain('Spin &lt;the&gt; wheel');

    const again = await call('POST', `/api/v1/instant-win-games/${gameId}/plays/${playId}/claim`, {
      key: team.publicKey,
      body: { email: WINNER, playCookie },
    });
    expect(again.body.data).toMatchObject({ alreadyClaimed: true, couponCode: code });
    const [row] = await sqlRows<{ status: string; email: string }>(
      sql`select status, email from instant_win_plays where id = ${playId}`,
    );
    expect(row).toEqual({ status: 'claimed', email: WINNER });
  });

  it('the cron expires an unclaimed win past its reservation and gives its code back', async () => {
    const play = await call('POST', `/api/v1/instant-win-games/${gameId}/play`, { key: team.publicKey, body: {} });
    expect(play.status).toBe(200);
    const { playId } = play.body.data;
    const held = await sqlRows<{ n: number }>(
      sql`select count(*)::int as n from instant_win_codes where tier_id = ${tierId} and play_id is null`,
    );
    expect(held[0]!.n).toBe(0);
    // the Worker's clock is the real one: move the reservation into the past instead
    await sqlRows(sql`update instant_win_plays set expires_at = now() - interval '1 minute' where id = ${playId}`);

    await runCron();

    const [row] = await sqlRows<{ status: string; code_id: string | null }>(
      sql`select status, code_id from instant_win_plays where id = ${playId}`,
    );
    expect(row).toEqual({ status: 'expired', code_id: null });
    const freed = await sqlRows<{ n: number }>(
      sql`select count(*)::int as n from instant_win_codes where tier_id = ${tierId} and play_id is null`,
    );
    expect(freed[0]!.n).toBe(1);
    const game = await call('GET', `/api/v1/instant-win-games/${gameId}`, { key: team.privateKey });
    expect(game.body.data.tiers[0]).toMatchObject({ codesAvailable: 1 });
  });
});
