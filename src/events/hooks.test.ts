/**
 * REST hooks (the Zapier app's subscriptions): POST /api/v1/hooks {url, event} subscribes a URL to
 * one event type, signed and delivered like every endpoint; DELETE /api/v1/hooks/{id} removes it.
 */
import { describe, expect, it } from 'vitest';
import { env, fresh, received, verify } from '../../test/support/fixtures/events.js';

describe('REST hooks', () => {
  it('subscribe: 201 with the hook; its event type alone is posted to the URL, signed; unsubscribe stops it', async () => {
    const team = await fresh();
    const r = await env.request('POST', '/api/v1/hooks', {
      key: team.privateKey,
      body: { url: 'https://hooks.example.test/zap/1', event: 'entry.created' },
    });
    expect(r.status, r.text).toBe(201);
    const hook = r.body.data;
    expect(Object.keys(hook).sort()).toEqual(['createdAt', 'event', 'id', 'secret', 'url']);
    expect(hook).toMatchObject({ url: 'https://hooks.example.test/zap/1', event: 'entry.created' });
    // a hook is a webhook endpoint of that one type
    const listed = await env.request('GET', '/api/v1/webhook-endpoints', { key: team.privateKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: hook.id, events: ['entry.created'] })]);

    const c = await env.contest(team.teamId);
    const made = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'zed@example.com' },
    });
    expect(made.status).toBe(201);
    await env.request('POST', `/api/v1/entries/${made.body.data.entryId}/points`, {
      key: team.privateKey,
      body: { points: 3, reason: 'x' },
    });
    await env.settle();
    expect(received.map((x) => [x.url, x.json.type])).toEqual([['https://hooks.example.test/zap/1', 'entry.created']]);
    expect(received[0]!.json.data).toMatchObject({ entryId: made.body.data.entryId, email: 'zed@example.com' });
    expect(() => verify(hook.secret, received[0]!)).not.toThrow();

    const gone = await env.request('DELETE', `/api/v1/hooks/${hook.id}`, { key: team.privateKey });
    expect([gone.status, gone.body.data]).toEqual([200, { id: hook.id, deleted: true }]);
    await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: team.privateKey,
      body: { email: 'y@example.com' },
    });
    await env.settle();
    expect(received).toHaveLength(1);
    const again = await env.request('DELETE', `/api/v1/hooks/${hook.id}`, { key: team.privateKey });
    expect([again.status, again.body.error]).toEqual([404, 'Hook not found']);
  });

  it('refuses a bad event, a bad URL, a public key and another team with the exact messages, and makes nothing', async () => {
    const team = await fresh();
    const other = await env.team();
    const cases: [string, string, Record<string, unknown> | undefined, string, number, string][] = [
      [
        'POST',
        '/api/v1/hooks',
        { url: 'https://hooks.example.test/z', event: 'entry.nope' },
        team.privateKey,
        400,
        'Unknown event type',
      ],
      [
        'POST',
        '/api/v1/hooks',
        { url: 'https://hooks.example.test/z', event: 'webhook.test' },
        team.privateKey,
        400,
        'Unknown event type',
      ],
      ['POST', '/api/v1/hooks', { url: 'ftp://x', event: 'entry.created' }, team.privateKey, 400, 'Invalid url'],
      [
        'POST',
        '/api/v1/hooks',
        { url: 'https://10.0.0.1/z', event: 'entry.created' },
        team.privateKey,
        400,
        'Invalid url',
      ],
      [
        'POST',
        '/api/v1/hooks',
        { url: 'https://hooks.example.test/z', event: 'entry.created' },
        team.publicKey,
        403,
        'This endpoint requires a private API key',
      ],
    ];
    for (const [method, path, body, key, status, error] of cases) {
      const r = await env.request(method, path, { key, body });
      expect([r.status, r.body.error], `${JSON.stringify(body)}`).toEqual([status, error]);
    }
    const mine = await env.request('POST', '/api/v1/hooks', {
      key: team.privateKey,
      body: { url: 'https://hooks.example.test/z', event: 'reward.unlocked' },
    });
    const foreign = await env.request('DELETE', `/api/v1/hooks/${mine.body.data.id}`, { key: other.privateKey });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Hook not found']);
    const bad = await env.request('DELETE', '/api/v1/hooks/not-a-uuid', { key: team.privateKey });
    expect([bad.status, bad.body.error]).toEqual([404, 'Hook not found']);
    const listed = await env.request('GET', '/api/v1/webhook-endpoints', { key: team.privateKey });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([mine.body.data.id]);
  });
});
