/**
 * Outbound events and getting data out, through the real Worker in workerd: an endpoint, an
 * event recorded by the entry's own statement and delivered after the response (ctx.waitUntil)
 * with a Standard Webhooks signature (checked with the `standardwebhooks` package), the streamed
 * CSV export, the per-person export and erasure.
 */
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, hasPostgres, makeContest, makeTeam, resendLog, type Team, wenv } from './support/workerd.js';

const tag = Math.random().toString(36).slice(2, 8);

describe.skipIf(!hasPostgres)('Worker in workerd: outbound events, export, erasure', () => {
  let team: Team;
  let contest: { id: string; slug: string };
  let endpoint: { id: string; secret: string };
  let entryId: string;

  beforeAll(async () => {
    team = await makeTeam('Events');
    contest = await makeContest(team.teamId, { title: `Export ${tag}`, requireEmailConfirmation: false });
  });

  it('delivers a signed entry.created after the response (waitUntil), logged in the deliveries', async () => {
    const ep = await call('POST', '/api/v1/webhook-endpoints', {
      key: team.privateKey,
      body: { url: `${wenv.RESEND_API_URL}/hooks/${tag}` },
    });
    expect(ep.status, ep.text).toBe(201);
    endpoint = ep.body.data;
    const res = await call('POST', `/api/v1/contests/${contest.id}/entries`, {
      key: team.privateKey,
      body: { email: `ev-${tag}@example.com`, phone: '+15550100' },
    });
    expect(res.status).toBe(201);
    entryId = res.body.data.entryId;
    // the fake server answers 404 to this path: a failed attempt, but the request is recorded as sent
    const got = await eventually(async () => (await resendLog()).requests.find((r) => r.path === `/hooks/${tag}`));
    const body = JSON.stringify(got.body);
    const payload = new Webhook(endpoint.secret).verify(body, {
      'webhook-id': got.headers['webhook-id'],
      'webhook-timestamp': got.headers['webhook-timestamp'],
      'webhook-signature': got.headers['webhook-signature'],
    }) as { id: string; type: string; data: { entryId: string } };
    expect(payload).toMatchObject({ id: got.headers['webhook-id'], type: 'entry.created', data: { entryId } });
    const log = await eventually(async () => {
      const r = await call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: team.privateKey });
      return r.body.data[0]?.attempts === 1 ? r.body.data[0] : undefined;
    });
    expect(log).toMatchObject({
      type: 'entry.created',
      status: 'pending',
      attempts: 1,
      lastStatusCode: 404,
      lastError: 'HTTP 404',
    });
  });

  // this suite's Worker runs with ALLOW_HTTP_WEBHOOKS=1 (its receiver is on loopback), so the
  // address ranges are allowed here; their table is the same module on both runtimes
  // (src/events/urls.test.ts lists every form). The fragment rule holds whatever the setting.
  it('refuses a receiver URL with a fragment (400 Invalid url)', async () => {
    for (const url of ['https://hooks.example.com/x#frag', `${wenv.RESEND_API_URL}/hooks/${tag}#`]) {
      const r = await call('POST', '/api/v1/webhook-endpoints', { key: team.privateKey, body: { url } });
      expect([url, r.status, r.body.error]).toEqual([url, 400, 'Invalid url']);
    }
  });

  it('streams the CSV export', async () => {
    const res = await call('GET', `/api/v1/contests/${contest.id}/entries/export`, { key: team.privateKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${contest.slug}-entries.csv"`);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(
      'id,email,name,phone,points,emailConfirmed,disqualified,referralCode,referredBy,referralsCount,riskLevel,createdAt,consentedAt,consentTextSha256,admittedAt',
    );
    expect(lines[1]).toMatch(new RegExp(`^${entryId},ev-${tag}@example.com,,'\\+15550100,0,true,false,`));
    expect(lines[2]).toBe('');
  });

  it('exports one person, then erases them: 404 from then on', async () => {
    const exp = await call('GET', `/api/v1/entries/${entryId}/export`, { key: team.privateKey });
    expect(exp.status).toBe(200);
    expect(exp.body.data.entry).toMatchObject({ id: entryId, email: `ev-${tag}@example.com` });
    const del = await call('DELETE', `/api/v1/entries/${entryId}`, { key: team.privateKey });
    expect(del.body).toEqual({ success: true, data: { entryId, erased: true } });
    const gone = await call('GET', `/api/v1/entries/${entryId}`, { key: team.publicKey });
    expect([gone.status, gone.body.error]).toEqual([404, 'Entry not found']);
    const erased = await eventually(async () =>
      (await resendLog()).requests.find((r) => r.path === `/hooks/${tag}` && r.body?.type === 'entry.erased'),
    );
    expect(erased.body.data).toEqual({ entryId });
  });

  it('after the erasure, the pending entry.created delivery is sent scrubbed when retried', async () => {
    const log = await call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries?status=pending`, {
      key: team.privateKey,
    });
    const pending = log.body.data.find((d: { type: string }) => d.type === 'entry.created');
    expect(pending).toBeTruthy();
    const before = (await resendLog()).requests.filter(
      (r) => r.path === `/hooks/${tag}` && r.body?.type === 'entry.created',
    ).length;
    const retried = await call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${pending.id}/retry`, {
      key: team.privateKey,
    });
    expect(retried.status, retried.text).toBe(200);
    const sent = await eventually(async () => {
      const all = (await resendLog()).requests.filter(
        (r) => r.path === `/hooks/${tag}` && r.body?.type === 'entry.created',
      );
      return all.length > before ? all[all.length - 1] : undefined;
    });
    expect(sent.body.data).toMatchObject({ entryId, email: null, name: null, phone: null });
    expect(JSON.stringify(sent.body)).not.toContain(`ev-${tag}`);
    expect(JSON.stringify(sent.body)).not.toContain('15550100');
  });
});
