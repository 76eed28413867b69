/** The OpenAPI 3.1 document is generated from the routes' valibot schemas and is valid. */
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from './support/endpoints.js';
import { createTestEnv, type TestEnv } from './support/harness.js';

let env: TestEnv;
let doc: any;
beforeAll(async () => {
  env = await createTestEnv({ backend: 'pglite' });
  const r = await env.request('GET', '/api/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(() => env.close());

const openapiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    if (!result.valid) console.error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('has every route of the reference, the webhooks and the admin API', () => {
    const ID = '00000000-0000-4000-8000-000000000000';
    const reference = ENDPOINTS.map(([m, p]) => [m, p.replaceAll(ID, ':x')] as const);
    const expected: [string, string][] = [
      ...reference.map(([m, p]) => [m, p] as [string, string]),
      ['POST', '/api/webhooks/purchase/:contestId'],
      ['POST', '/api/webhooks/signup/:contestId'],
      ['POST', '/api/webhooks/referral/shopify/:contestId'],
      ['POST', '/api/webhooks/referral/stripe/:contestId'],
      ['GET', '/api/confirm/:token'],
      ['POST', '/api/admin/teams'],
      ['POST', '/api/admin/teams/:teamId/api-keys'],
      ['DELETE', '/api/admin/api-keys/:keyId'],
      ['POST', '/api/admin/teams/:teamId/contests'],
      ['PATCH', '/api/admin/contests/:contestId'],
      ['POST', '/api/admin/contests/:contestId/bonus-actions'],
      ['POST', '/api/admin/contests/:contestId/webhook-secret'],
      ['GET', '/api/admin/teams/:teamId/emails'],
      ['GET', '/health'],
    ];
    // compare by shape: parameter names may differ ({x} vs {contestId})
    const shape = (p: string) => openapiPath(p).replace(/\{\w+\}/g, '{}');
    const have = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(p)}`),
      ),
    );
    const missing = expected.filter(([m, p]) => !have.has(`${m} ${shape(p)}`));
    expect(missing).toEqual([]);
  });

  it('documents request bodies from the same schemas the routes validate with', () => {
    const op = doc.paths['/api/admin/teams/{teamId}/contests'].post;
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(['title']);
    expect(schema.properties.mode.enum).toEqual(['giveaway', 'leaderboard', 'waitlist']);
    const list = doc.paths['/api/v1/contests'].get;
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['limit', 'page', 'toolType']);
  });

  it('documents the trust-and-safety endpoints and fields with their response schemas', () => {
    const review = doc.paths['/api/v1/entries/{entryId}/review'].post;
    expect(review.operationId).toBe('reviewEntry');
    expect(review.requestBody.content['application/json'].schema.properties.decision.enum).toEqual(['approve', 'reject']);
    const reviewed = review.responses['200'].content['application/json'].schema.properties.data;
    expect(reviewed.properties.risk.properties.level.enum).toEqual(['none', 'review', 'high']);
    expect(review.responses['409']).toBeDefined();
    const verify = doc.paths['/api/v1/entries/{entryId}/bonus-actions/{bonusActionId}/verify'].post;
    expect(verify.operationId).toBe('verifyBonusCompletion');
    expect(verify.responses['200'].content['application/json'].schema.properties.data.properties.completionStatus.enum).toEqual(['verified', 'rejected']);
    const keys = doc.paths['/api/admin/teams/{teamId}/api-keys'];
    expect(keys.get.operationId).toBe('adminListApiKeys');
    expect(keys.post.requestBody.content['application/json'].schema.properties).toHaveProperty('personalData');
    const create = doc.paths['/api/v1/contests/{contestId}/entries'];
    expect(Object.keys(create.post.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['ipAddress', 'userAgent']),
    );
    expect(create.get.parameters.find((p: { name: string }) => p.name === 'risk').schema.enum).toEqual(['review', 'high']);
    const settings = doc.paths['/api/admin/teams/{teamId}/contests'].post.requestBody.content['application/json'].schema.properties;
    expect(settings.risk.properties.mode.enum).toEqual(['flag', 'hold', 'block']);
    expect(settings.referral.properties.creditOn.enum).toEqual(['create', 'confirm']);
  });

  it('serves an API reference page at /docs', async () => {
    const r = await env.request('GET', '/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.text).toContain('/api/v1/openapi.json');
  });
});
