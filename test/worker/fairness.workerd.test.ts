/**
 * Giveaway draws and provably fair instant win through the real Worker in workerd (Neon HTTP
 * driver → local endpoint → Postgres): commit, the snapshot CSV streamed in several pages, reveal
 * with public randomness and its draw.revealed event delivered after the response, replace, and
 * a play's number; every winner and the play's tier recomputed from the published data alone,
 * with the test suite's own implementation of the documented algorithm (test/support/fairness.ts,
 * not the server's code); hashes checked with WebCrypto.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawPicks, playNumber } from '../support/fairness.js';
import {
  call,
  eventually,
  hasPostgres,
  makeContest,
  makeTeam,
  resendLog,
  sqlRows,
  type Team,
  wenv,
} from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);
const enc = new TextEncoder();
const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
const bytes = (h: string): Uint8Array<ArrayBuffer> => new Uint8Array(h.match(/../g)!.map((x) => parseInt(x, 16)));
const sha256 = async (data: string | Uint8Array<ArrayBuffer>) =>
  hex(await crypto.subtle.digest('SHA-256', typeof data === 'string' ? enc.encode(data) : data));
const winners = (
  rows: { id: string; weight: bigint }[],
  seed: Uint8Array,
  snapshotHash: string,
  pr: string | null,
  picks: number,
) => drawPicks(rows, seed, snapshotHash, pr, picks).map((p) => p.id);

describe.skipIf(!hasPostgres)('Worker in workerd: verifiable draws and provably fair instant win', () => {
  let team: Team;
  let contestId: string;

  beforeAll(async () => {
    team = await makeTeam('Fairness');
    contestId = (await makeContest(team.teamId, { title: `Draws ${tag}`, requireEmailConfirmation: false })).id;
    // 25,000 entries: the snapshot (~2.6 MB) takes more than one ~2 MB page to stream
    await sqlRows(sql`insert into entries (contest_id, email, name, referral_code, points, email_confirmed)
                      select ${contestId}::uuid, 'w' || g || '-' || ${tag} || '@example.com', 'Fan ' || g, 'W' || ${tag} || g, 1 + g % 7, true
                      from generate_series(1, 25000) g`);
  });

  it('commits, streams the snapshot, reveals (event after the response), replaces: every winner recomputed', async () => {
    const ep = await call('POST', '/api/v1/webhook-endpoints', {
      key: team.privateKey,
      body: { url: `${wenv.RESEND_API_URL}/hooks/draws-${tag}`, events: ['draw.revealed'] },
    });
    expect(ep.status, ep.text).toBe(201);

    const made = await call('POST', `/api/v1/contests/${contestId}/draws`, {
      key: team.privateKey,
      body: { winners: 3, weighting: 'points', label: 'Bikes' },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const d = made.body.data;
    expect(d).toMatchObject({ status: 'committed', eligibleCount: 25000, seed: null, results: [] });

    const snap = await call('GET', `/api/v1/draws/${d.id}/snapshot`, { key: team.publicKey });
    expect(snap.status).toBe(200);
    expect(snap.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(snap.text.length).toBeGreaterThan(2_000_000);
    expect(await sha256(snap.text)).toBe(d.snapshotHash);
    const lines = snap.text.split('\n');
    expect([lines[0], lines.at(-1), lines.length]).toEqual(['entry_id,weight,email_sha256', '', 25002]);
    const rows = lines.slice(1, -1).map((l) => ({ id: l.split(',')[0]!, weight: BigInt(l.split(',')[1]!) }));
    expect(rows.every((r, i) => i === 0 || r.id > rows[i - 1]!.id)).toBe(true);
    expect(rows.reduce((s, r) => s + r.weight, 0n)).toBe(BigInt(d.totalWeight));

    const pr = `drand round ${tag}`;
    const rev = await call('POST', `/api/v1/draws/${d.id}/reveal`, {
      key: team.privateKey,
      body: { publicRandomness: pr },
    });
    expect(rev.status, rev.text).toBe(200);
    expect(rev.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const seed = bytes(rev.body.data.seed);
    expect(await sha256(seed)).toBe(d.seedHash);
    const picked = rev.body.data.results.map((r: { entryId: string }) => r.entryId);
    expect(picked).toEqual(winners(rows, seed, d.snapshotHash, pr, 3));

    const hook = await eventually(async () =>
      (await resendLog()).requests.find((r) => r.path === `/hooks/draws-${tag}`),
    );
    const { id, ...rest } = rev.body.data;
    expect(hook.body).toMatchObject({ type: 'draw.revealed', contestId, data: { drawId: id, ...rest } });

    const rep = await call('POST', `/api/v1/draws/${d.id}/results/${picked[1]}/replace`, {
      key: team.privateKey,
      body: { reason: 'no answer' },
    });
    expect(rep.status, rep.text).toBe(200);
    const all = rep.body.data.results.map((r: { entryId: string }) => r.entryId);
    expect(all).toEqual(winners(rows, seed, d.snapshotHash, pr, 4));
    expect(rep.body.data.results[1]).toMatchObject({ replaced: true, replacedReason: 'no answer' });
    expect((await call('GET', `/api/v1/draws/${d.id}`, { key: team.publicKey })).body.data).toEqual(rep.body.data);
  });

  it('an instant-win play: its number from the committed seed, nonces per device, verified after rotation', async () => {
    const g = await call('POST', '/api/v1/instant-win-games', {
      key: team.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        tiers: [
          { name: 'Big', oddsPercent: 5, redeemCode: 'BIG' },
          { name: 'Small', oddsPercent: 25, redeemCode: 'SMALL' },
          { name: 'Miss', oddsPercent: 70, isMiss: true },
        ],
      },
    });
    expect(g.status, g.text).toBe(201);
    const game = g.body.data;
    const plays = [];
    for (const clientSeed of ['lucky', 'lucky', 'other']) {
      const p = await call('POST', `/api/v1/instant-win-games/${game.id}/play`, {
        key: team.publicKey,
        body: { playCookie: `device-${tag}-aaaaaaaaaaaa`, clientSeed },
      });
      expect(p.status, p.text).toBe(200);
      expect(p.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
      plays.push(p.body.data);
    }
    expect(plays.map((p) => [p.fairness.seedId, p.fairness.seedHash, p.fairness.clientSeed, p.fairness.nonce])).toEqual(
      [
        [game.fairness.seedId, game.fairness.seedHash, 'lucky', 1],
        [game.fairness.seedId, game.fairness.seedHash, 'lucky', 2],
        [game.fairness.seedId, game.fairness.seedHash, 'other', 3],
      ],
    );
    const rot = await call('POST', `/api/v1/instant-win-games/${game.id}/fairness/rotate`, { key: team.privateKey });
    expect(rot.status, rot.text).toBe(200);
    expect(rot.body.data.revealed).toMatchObject({ seedId: game.fairness.seedId, seedHash: game.fairness.seedHash });
    const seed = bytes(rot.body.data.revealed.seed);
    expect(await sha256(seed)).toBe(game.fairness.seedHash);
    const log = await call('GET', `/api/v1/instant-win-games/${game.id}/plays`, { key: team.privateKey });
    for (const p of log.body.data) {
      const r = playNumber(seed, game.id, p.clientSeed, p.nonce);
      let sum = 0;
      const tier = game.tiers.find((t: { oddsPercent: number }) => {
        sum += t.oddsPercent;
        return sum > r;
      });
      expect([p.nonce, p.drawnTier.id]).toEqual([p.nonce, tier.id]);
    }
    const seeds = await call('GET', `/api/v1/instant-win-games/${game.id}/fairness/seeds`, { key: team.publicKey });
    expect(seeds.body.data.map((s: { seedId: string; plays: number }) => [s.seedId, s.plays])).toEqual([
      [rot.body.data.current.seedId, 0],
      [game.fairness.seedId, 3],
    ]);
  });
});
