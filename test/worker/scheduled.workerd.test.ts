/**
 * The Worker's cron (`scheduled()` in src/worker.ts, `* * * * *` in wrangler.toml) inside
 * workerd: due emails leave through the Resend transport (a fake Resend API on the Node side),
 * failures are retried later or failed for good.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/worker.js';
import { hasPostgres, makeTeam, resendLog, sqlRows, type Team } from './support/workerd.js';

async function runCron() {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env as never, ctx);
  await waitOnExecutionContext(ctx);
}

interface OutboxRow {
  id: string;
  to: string;
  status: string;
  attempts: number;
  last_error: string | null;
  idempotency_key: string;
  next_attempt_at: Date;
  sent_at: Date | null;
}

describe.skipIf(!hasPostgres)('Worker cron in workerd: email delivery', () => {
  let team: Team;
  const tag = Math.random().toString(36).slice(2, 8);
  const ok = `ok-${tag}@example.com`;
  const flaky = `fail-${tag}@example.com`;
  const bad = `reject-${tag}@example.com`;

  beforeAll(async () => {
    team = await makeTeam('Cron team');
    for (const to of [ok, flaky, bad]) {
      await sqlRows(sql`insert into email_outbox (team_id, "to", kind, subject, text, html)
                        values (${team.teamId}, ${to}, 'confirmation', ${`Confirm your entry: <b>Cron</b>`}, ${'Hi <script>,\nplease confirm'}, ${'<p>Hi &lt;script&gt;</p>'})`);
    }
  });

  it('sends due emails with the Idempotency-Key of the row, retries a 500 later, fails a 422 for good', async () => {
    const started = Date.now();
    await runCron();

    const rows = await sqlRows<OutboxRow>(sql`select * from email_outbox where team_id = ${team.teamId}`);
    const byTo = Object.fromEntries(rows.map((r) => [r.to, r]));
    expect(byTo[ok]).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    expect(byTo[ok]!.sent_at).not.toBeNull();
    expect(byTo[flaky]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(byTo[flaky]!.last_error).toContain('Resend 500');
    // first retry one minute later (the Worker's clock is the system clock)
    const delay = new Date(byTo[flaky]!.next_attempt_at).getTime() - started;
    expect(delay).toBeGreaterThan(55_000);
    expect(delay).toBeLessThan(70_000);
    expect(byTo[bad]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byTo[bad]!.last_error).toContain('Resend 422 validation_error');

    const log = await resendLog();
    const mine = log.requests.filter((r) => [ok, flaky, bad].includes(r.body?.to?.[0]));
    expect(mine).toHaveLength(3);
    const sent = mine.find((r) => r.body.to[0] === ok)!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/emails');
    expect(sent.headers.authorization).toBe('Bearer re_test_key');
    expect(sent.headers['idempotency-key']).toBe(byTo[ok]!.idempotency_key);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({
      from: 'Contests <contests@example.com>',
      to: [ok],
      subject: 'Confirm your entry: <b>Cron</b>',
      text: 'Hi <script>,\nplease confirm',
      html: '<p>Hi &lt;script&gt;</p>',
    });
  });

  it('a second run right away sends nothing again (the retry is not due yet)', async () => {
    const before = (await resendLog()).requests.length;
    await runCron();
    const after = await resendLog();
    const mine = after.requests.slice(before).filter((r) => [ok, flaky, bad].includes(r.body?.to?.[0]));
    expect(mine).toHaveLength(0);
  });
});
