/**
 * Rewards and the team's emails through the real Worker in workerd: a reward created in one SQL
 * request, unlocked by the adjustment that crosses its threshold (in that request's statement),
 * shown to the entry's owner with its code, its email (the team's text) delivered right after the
 * answer, without the cron; the
 * preview of a text.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/worker.js';
import { call, eventually, hasPostgres, makeContest, makeTeam, resendLog, type Team } from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);

async function runCron() {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env as never, ctx);
  await waitOnExecutionContext(ctx);
}

describe.skipIf(!hasPostgres)('rewards on the Worker', () => {
  let team: Team;
  beforeAll(async () => {
    team = await makeTeam('Rewards');
  });

  it('a pool reward unlocks in the adjustment that crosses it; the code shows and is emailed with the team text', async () => {
    const c = await makeContest(team.teamId, { requireEmailConfirmation: false });
    const put = await call('PUT', `/api/v1/contests/${c.id}/emails/reward`, {
      key: team.privateKey,
      body: { subject: '{{reward}} unlocked', text: 'Hi {{name}}, your code is {{code}}.' },
    });
    expect(put.status, put.text).toBe(200);
    const r = await call('POST', `/api/v1/contests/${c.id}/rewards`, {
      key: team.privateKey,
      body: { name: 'Ten off', pointsRequired: 10, codes: [`W-${tag}-1`, `W-${tag}-2`] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const email = `reward-${tag}@example.com`;
    const e = await call('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email, name: 'Rio' },
    });
    expect(e.status).toBe(201);
    const adj = await call('POST', `/api/v1/entries/${e.body.data.entryId}/points`, {
      key: team.privateKey,
      body: { points: 12, reason: 'launch' },
    });
    expect(adj.status).toBe(200);
    expect(adj.headers.get('server-timing')).toMatch(/desc="1 round trip"/);
    const mine = await call('GET', `/api/v1/entries/${e.body.data.entryId}/rewards`, { key: team.privateKey });
    expect(mine.body.data.unlocked).toEqual([
      expect.objectContaining({ name: 'Ten off', code: `W-${tag}-1`, waitingForCode: false }),
    ]);
    const pub = await call('GET', `/api/v1/contests/${c.id}/rewards`, { key: team.publicKey });
    expect(pub.body.data).toEqual([
      {
        id: r.body.data.id,
        name: 'Ten off',
        description: null,
        imageUrl: null,
        referralsRequired: null,
        pointsRequired: 10,
      },
    ]);
    // no cron: the email leaves after the adjustment's answer (the write in a contest with rewards
    // starts a delivery pass), within a few seconds
    const started = Date.now();
    const mail = await eventually(
      async () =>
        (await resendLog()).delivered.find((d) => d.body?.to?.[0] === email) as
          | { body: { subject: string; text: string } }
          | undefined,
    );
    expect([mail.body.subject, mail.body.text]).toEqual(['Ten off unlocked', `Hi Rio, your code is W-${tag}-1.`]);
    console.log(`reward email on the Worker: delivered ${Date.now() - started} ms after the adjustment's answer`);
    // the cron finds nothing more to send
    await runCron();
    expect((await resendLog()).delivered.filter((d) => d.body?.to?.[0] === email)).toHaveLength(1);
  });

  it('the preview fills a text for a sample person; an unknown placeholder is a 400 naming it', async () => {
    const c = await makeContest(team.teamId, {});
    const p = await call('POST', `/api/v1/contests/${c.id}/emails/winner/preview`, {
      key: team.privateKey,
      body: { subject: 'Well done {{name}}', text: 'You won {{reward}}.' },
    });
    expect(p.status, p.text).toBe(200);
    expect(p.body.data.subject).toBe('Well done Alex');
    const bad = await call('PUT', `/api/v1/contests/${c.id}/emails/winner`, {
      key: team.privateKey,
      body: { subject: 'x', text: '{{code}}' },
    });
    expect([bad.status, bad.body.error]).toEqual([
      400,
      'Unknown placeholder {{code}} in text: winner emails take {{name}}, {{contest}}, {{reward}}',
    ]);
  });
});
