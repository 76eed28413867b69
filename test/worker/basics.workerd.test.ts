/**
 * The real Worker (src/worker.ts) inside workerd, over the real Neon driver → local HTTP endpoint → the
 * local Postgres: health, auth, contests, the admin API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, hasPostgres, makeContest, makeTeam, type Team } from './support/workerd.js';

describe.skipIf(!hasPostgres)('Worker in workerd: health, auth, contests, admin', () => {
  let team: Team;
  let contestId: string;

  beforeAll(async () => {
    team = await makeTeam();
    contestId = (await makeContest(team.teamId, { title: 'Spring giveaway' })).id;
  });

  it('GET /health answers ok once the database answers (a real query through the Neon driver)', async () => {
    const res = await call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('refuses missing, wrong and query-string keys with the documented wording', async () => {
    expect(await call('GET', '/api/v1/contests')).toMatchObject({
      status: 401,
      body: { success: false, error: 'Invalid API key' },
    });
    expect(await call('GET', '/api/v1/contests', { key: 'pk_nope' })).toMatchObject({
      status: 401,
      body: { error: 'Invalid API key' },
    });
    const viaQuery = await call('GET', `/api/v1/contests?apiKey=${team.publicKey}`);
    expect(viaQuery.status).toBe(401);
  });

  it('lists and reads the team contest with a public key', async () => {
    const list = await call('GET', '/api/v1/contests', { key: team.publicKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([contestId]);
    expect(list.body.pagination).toMatchObject({ page: 1, total: 1 });
    const one = await call('GET', `/api/v1/contests/${contestId}`, { key: team.publicKey });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: contestId, title: 'Spring giveaway', status: 'active', viewsCount: 0 });
  });

  it("another team's contest answers 404 like a missing one", async () => {
    const other = await makeTeam('Other');
    const res = await call('GET', `/api/v1/contests/${contestId}`, { key: other.publicKey });
    expect(res).toMatchObject({ status: 404, body: { success: false, error: 'Contest not found' } });
  });

  it('admin API: wrong token 401, revoked key answers 401 afterwards', async () => {
    const bad = await call('POST', '/api/admin/teams', {
      body: { name: 'x' },
      headers: { authorization: 'Bearer wrong' },
    });
    expect(bad).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized' } });
    const key = await call('POST', `/api/admin/teams/${team.teamId}/api-keys`, {
      admin: true,
      body: { type: 'public', name: 'temp' },
    });
    expect(key.status).toBe(201);
    expect((await call('GET', '/api/v1/contests', { key: key.body.data.key })).status).toBe(200);
    const revoked = await call('DELETE', `/api/admin/api-keys/${key.body.data.id}`, { admin: true });
    expect(revoked.body.data).toEqual({ id: key.body.data.id, revoked: true });
    expect((await call('GET', '/api/v1/contests', { key: key.body.data.key })).status).toBe(401);
  });

  it('unknown routes answer the JSON 404 envelope', async () => {
    expect(await call('GET', '/nope')).toMatchObject({ status: 404, body: { success: false, error: 'Not found' } });
  });
});
