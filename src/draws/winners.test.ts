/**
 * Telling winners (a draw made with notifyWinners): at the reveal each winner is emailed and
 * `draw.winner_notified` recorded, in the reveal's own statements; a replacement notifies the
 * new winner only; a draw without it emails nobody. Emails go through the outbox.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { a, addEntries, draw, env, replace, reveal, uuidN } from '../../test/support/fixtures/draws.js';
import { query } from '../db/client.js';

const winnerMails = async (title: string) => {
  await env.settle();
  return env.sent.filter((m) => m.subject === `You won: ${title}`);
};
const notified = (drawId: string) =>
  query<{ data: { entryId: string; position: number } }>(
    env.db,
    sql`select data from events where type = 'draw.winner_notified' and data->>'drawId' = ${drawId} order by created_at`,
  );

describe('notifyWinners', () => {
  it('each winner is emailed at the reveal, once; a replacement emails the new winner only', async () => {
    // events are recorded for teams with an endpoint: a receiver of draw.winner_notified (never called out)
    const saved = env.deps.fetch;
    env.deps.fetch = async () => new Response('ok');
    const ep = await env.request('POST', '/api/v1/webhook-endpoints', {
      key: a.privateKey,
      body: { url: 'https://hooks.example.test/winners', events: ['draw.winner_notified'] },
    });
    expect(ep.status, ep.text).toBe(201);
    const c = await env.contest(a.teamId, { title: 'Bike giveaway' });
    await addEntries(
      c.id,
      [1, 2, 3, 4, 5].map((n) => ({ id: uuidN(n, 'a'), email: `w${n}@example.com`, name: `Winner ${n}` })),
    );
    const d = await draw(c.id, { winners: 2, label: 'A bike', notifyWinners: true });
    expect([d.status, d.body.data.notifyWinners]).toEqual([201, true]);
    const r = await reveal(d.body.data.id, { publicRandomness: 'tell them' });
    expect(r.status, r.text).toBe(200);
    const winners = r.body.data.results.map((x: { entryId: string }) => x.entryId) as string[];
    const mails = await winnerMails('Bike giveaway');
    expect(mails.map((m) => m.to).sort()).toEqual(winners.map((id) => `w${Number(id.slice(-12))}@example.com`).sort());
    expect(mails[0]!.text).toMatch(/^Hi Winner \d,\n\nYou are a winner of "A bike" in "Bike giveaway"/);
    expect((await notified(d.body.data.id)).map((e) => e.data.entryId).sort()).toEqual([...winners].sort());

    const replaced = await replace(d.body.data.id, winners[0]!);
    expect(replaced.status, replaced.text).toBe(200);
    const newcomer = replaced.body.data.results.at(-1).entryId as string;
    const after = await winnerMails('Bike giveaway');
    expect(after.length).toBe(3);
    expect(after.at(-1)!.to).toBe(`w${Number(newcomer.slice(-12))}@example.com`);
    expect((await notified(d.body.data.id)).length).toBe(3);
    await env.settle();
    env.deps.fetch = saved;
  });

  it('a draw without notifyWinners emails nobody', async () => {
    const c = await env.contest(a.teamId, { title: 'Quiet giveaway' });
    await addEntries(
      c.id,
      [1, 2].map((n) => ({ id: uuidN(n, 'b') })),
    );
    const d = await draw(c.id, { winners: 1 });
    expect(d.body.data.notifyWinners).toBe(false);
    expect((await reveal(d.body.data.id)).status).toBe(200);
    expect(await winnerMails('Quiet giveaway')).toEqual([]);
    expect(await notified(d.body.data.id)).toEqual([]);
  });
});
