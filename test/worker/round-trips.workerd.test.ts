/**
 * One database round trip per request on the Worker over Neon's HTTP path (the default
 * transport): the endpoint of scripts/neon-http.ts counts the SQL-over-HTTP requests it receives
 * (one per statement, one per batch), and every answer says what it cost in `Server-Timing`.
 * The key check rides inside the request's statement, so a read, a write with a referral, a
 * play, a claim and a game create (one batch: write + read back) are each one HTTP request.
 */

import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATEMENT_FUNCTIONS } from '../../src/db/statement-functions.generated.js';
import {
  call,
  eventually,
  hasPostgres,
  makeContest,
  makeTeam,
  quietSqlRequests as quiet,
  sqlRows,
  type Team,
} from './support/workerd.js';

describe.skipIf(!hasPostgres)('round trips on the Worker over HTTP', () => {
  let team: Team;
  let contestId: string;

  beforeAll(async () => {
    team = await makeTeam('Round trips');
    contestId = (
      await makeContest(team.teamId, {
        title: 'RT',
        requireEmailConfirmation: false,
        referral: { advocatePoints: 10, friendPoints: 5 },
      })
    ).id;
  });

  async function trips(method: string, path: string, opts: Parameters<typeof call>[2]) {
    const before = await quiet();
    const res = await call(method, path, opts);
    const after = await quiet();
    return { res, http: after - before, timing: res.headers.get('server-timing') };
  }

  it('reads, writes, play and claim are one SQL-over-HTTP request each, the key check included', async () => {
    const seen: Record<string, [number, number, string | null]> = {};
    const run = async (
      name: string,
      method: string,
      path: string,
      opts: Parameters<typeof call>[2],
      status: number,
    ) => {
      const r = await trips(method, path, opts);
      expect(r.res.status, `${name}: ${r.res.text}`).toBe(status);
      seen[name] = [r.http, status, r.timing];
      return r.res;
    };
    const ada = await run(
      'entry create',
      'POST',
      `/api/v1/contests/${contestId}/entries`,
      { key: team.privateKey, body: { email: 'rt-ada@example.com' } },
      201,
    );
    await run(
      'entry create (referral)',
      'POST',
      `/api/v1/contests/${contestId}/entries`,
      { key: team.privateKey, body: { email: 'rt-bob@example.com', referralCode: ada.body.data.referralCode } },
      201,
    );
    await run('contest get', 'GET', `/api/v1/contests/${contestId}`, { key: team.publicKey }, 200);
    await run('entry get', 'GET', `/api/v1/entries/${ada.body.data.entryId}`, { key: team.publicKey }, 200);
    await run('leaderboard', 'GET', `/api/v1/contests/${contestId}/leaderboard`, { key: team.publicKey }, 200);
    await run('bad key', 'GET', `/api/v1/contests/${contestId}`, { key: `pk_${'Z'.repeat(40)}` }, 401);
    await run(
      'public key on a private route',
      'POST',
      `/api/v1/entries/${ada.body.data.entryId}/points`,
      { key: team.publicKey, body: { points: 1, reason: 'x' } },
      403,
    );
    const game = await run(
      'game create (one batch)',
      'POST',
      '/api/v1/instant-win-games',
      {
        key: team.privateKey,
        body: {
          slug: 'spin-to-win',
          title: 'RT wheel',
          mechanic: 'wheel',
          layout: 'default',
          entryLimit: 'none',
          publishAs: 'landing',
          tiers: [
            { name: 'Prize', oddsPercent: 100, redeemCode: 'RT' },
            { name: 'Miss', oddsPercent: 0, isMiss: true },
          ],
        },
      },
      201,
    );
    const gameId = game.body.data.id;
    const play = await run(
      'play',
      'POST',
      `/api/v1/instant-win-games/${gameId}/play`,
      { key: team.publicKey, body: {} },
      200,
    );
    await run(
      'claim',
      'POST',
      `/api/v1/instant-win-games/${gameId}/plays/${play.body.data.playId}/claim`,
      {
        key: team.publicKey,
        body: { email: 'rt-winner@example.com', playCookie: play.body.data.playCookie },
      },
      200,
    );
    for (const [name, [http, , timing]] of Object.entries(seen)) {
      // on the answer's path: one round trip, as the answer itself reports
      expect(timing, name).toMatch(/desc="1 round trip"$/);
      // at the endpoint, what follows the answer (ctx.waitUntil) included: exactly one request
      // for every read and for every write of this team, which has no event endpoint (no
      // delivery pass is started when the statement recorded no delivery); the claim queued a
      // prize email, so its delivery follows it
      if (name === 'claim') expect(http, name).toBeGreaterThan(1);
      else expect([name, http], JSON.stringify(seen)).toEqual([name, 1]);
    }
    // the game update reads what its rules need, then writes and reads back in one batch: 2
    const upd = await trips('PUT', `/api/v1/instant-win-games/${gameId}`, {
      key: team.privateKey,
      body: { title: 'RT wheel 2' },
    });
    expect(upd.res.status, upd.res.text).toBe(200);
    expect(upd.res.body.data.title).toBe('RT wheel 2');
    expect(upd.res.headers.get('server-timing')).toMatch(/desc="2 round trips"$/);
  });

  it('an inbound webhook (interactive transaction) goes over the WebSocket Pool and works', async () => {
    const secret = await call('POST', `/api/admin/contests/${contestId}/webhook-secret`, { admin: true });
    expect(secret.status).toBe(200);
    const res = await call('POST', `/api/webhooks/signup/${contestId}`, {
      headers: { 'x-webhook-secret': secret.body.data.secret },
      body: { email: 'rt-hook@example.com' },
    });
    // external tracking is off on this contest: the answer comes from inside the transaction
    expect([res.status, res.body]).toEqual([
      403,
      { success: false, error: 'External tracking is not enabled for this contest' },
    ]);
  });
  it('the hot statements reach Postgres as their functions (plans kept per connection), one request each', async () => {
    const entry = await trips('POST', `/api/v1/contests/${contestId}/entries`, {
      key: team.privateKey,
      body: { email: 'fn-ann@example.com', name: 'Fn' },
    });
    expect(entry.res.status, entry.res.text).toBe(201);
    expect(entry.http).toBe(1);
    for (const path of [
      `/api/v1/contests/${contestId}/leaderboard`,
      `/api/v1/entries/${entry.res.body.data.entryId}`,
    ]) {
      const r = await trips('GET', path, { key: team.publicKey });
      expect([path, r.res.status, r.http]).toEqual([path, 200, 1]);
    }
    // three of the registered functions were called (a backend reports its counts at the end of a
    // transaction a second after its last report, or 10 s into being idle)
    const called = await eventually(async () => {
      const rows = await sqlRows<{ funcname: string }>(
        sql`select funcname from pg_stat_user_functions where calls > 0 and funcname like 'ce\_%'`,
      );
      const names = rows.map((r) => r.funcname).filter((n) => STATEMENT_FUNCTIONS.has(n));
      return names.length >= 3 ? names : null;
    }, 20_000);
    expect(called.length).toBeGreaterThanOrEqual(3);
  }, 40_000);
});
