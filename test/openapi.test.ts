/**
 * The OpenAPI 3.1 document is generated from the routes' valibot schemas, is valid, complete
 * (operationIds, security, 2xx and error schemas) and lint-clean; the contract check that every
 * test's answers go through catches a document that lies.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../scripts/openapi-document.js';
import { ContractError, createValidator } from './support/contract.js';
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
    // an email's kind is a path parameter too (the rows name one: auth.test.ts sends them)
    const reference = ENDPOINTS.map(
      ([m, p]) => [m, p.replaceAll(ID, ':x').replace('/emails/reward', '/emails/:x')] as const,
    );
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

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );

  it('is the document scripts/openapi-document.ts makes without a server', async () => {
    expect(await openApiDocument()).toEqual(doc);
  });

  it('names every operation readably and uniquely, with a summary, tags and its security', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations()) {
      const at = `${method} ${path}`;
      expect(op.operationId, at).toMatch(/^[a-z][A-Za-z]+$/);
      // not hono-openapi's path-generated names (getApiV1ContestsByContestId)
      expect(op.operationId, at).not.toMatch(/^(get|post|put|patch|delete)Api(V1|Admin|Webhooks|Confirm)|By[A-Z]/);
      expect(op.summary, at).toBeTruthy();
      expect(op.tags?.length, at).toBeGreaterThan(0);
      expect(op.security, at).toBeDefined();
    }
    const byId = Object.fromEntries(operations().map((o) => [o.op.operationId, o]));
    expect(byId.listEntries?.path).toBe('/api/v1/contests/{contestId}/entries');
    expect(byId.createEntry?.method).toBe('post');
    expect(byId.playInstantWinGame?.path).toBe('/api/v1/instant-win-games/{gameId}/play');
  });

  it('says which credentials each route takes', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'adminToken',
      'entryToken',
      'privateKey',
      'publicKey',
    ]);
    expect(doc.security).toBeUndefined();
    for (const { path, method, op } of operations()) {
      const schemes = (op.security as Record<string, unknown>[]).flatMap((r) => Object.keys(r)).sort();
      const at = `${method} ${path}`;
      if (path.startsWith('/api/admin/')) expect(schemes, at).toEqual(['adminToken']);
      else if (path === '/api/v1/me' || path.startsWith('/api/v1/me/')) expect(schemes, at).toEqual(['entryToken']);
      else if (path.startsWith('/api/v1/entries/{entryId}/bonus-actions') && method === 'get')
        // a visitor's own entry token alone reaches its entry (the keyless widget)
        expect(schemes, at).toEqual(['entryToken', 'privateKey', 'publicKey']);
      else if (path === '/api/v1/entries/{entryId}/bonus-actions/{bonusActionId}/complete')
        expect(schemes, at).toEqual(['entryToken', 'privateKey', 'publicKey']);
      else if (path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json') {
        const row = ENDPOINTS.find(
          ([m, p]) =>
            m === method.toUpperCase() && p.replace(/[0-9a-f-]{36}/g, '{}') === path.replace(/\{\w+\}/g, '{}'),
        );
        expect(schemes, at).toEqual(row?.[2] === 'pub' ? ['privateKey', 'publicKey'] : ['privateKey']);
      } else expect(schemes, at).toEqual([]);
    }
    const headers = (path: string) =>
      doc.paths[path].post.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
    expect(headers('/api/webhooks/purchase/{contestId}')).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'x-webhook-secret',
    ]);
    expect(headers('/api/webhooks/referral/shopify/{contestId}')).toContain('X-Shopify-Hmac-Sha256');
    expect(headers('/api/webhooks/referral/stripe/{contestId}')).toEqual(['Stripe-Signature']);
  });

  it('documents a 2xx answer with its schema or media type, and every error in the error envelope', () => {
    for (const { path, method, op } of operations()) {
      const at = `${method} ${path}`;
      const ok = Object.entries(op.responses as Record<string, any>).filter(([s]) => s.startsWith('2'));
      expect(ok.length, at).toBeGreaterThan(0);
      for (const [, r] of ok)
        expect(
          Object.values(r.content ?? {}).every((m: any) => m.schema),
          at,
        ).toBe(true);
      expect(op.responses.default, at).toBeUndefined();
      for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
        const schema = r.content?.['application/json']?.schema;
        if (!/^[45]/.test(status) || !schema || path === '/health') continue;
        expect(schema, `${at} ${status}`).toMatchObject({
          type: 'object',
          properties: { success: { const: false }, error: { type: 'string' } },
          required: ['success', 'error'],
          additionalProperties: false,
        });
      }
    }
    // the answers that are not JSON
    expect(Object.keys(doc.paths['/widget.js'].get.responses['200'].content)).toEqual(['text/javascript']);
    expect(Object.keys(doc.paths['/demo/instant-win/{gameId}'].get.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/api/confirm/{token}'].get.responses['200'].content).sort()).toEqual([
      'application/json',
      'text/html',
    ]);
    // the create-entry answer carries the entry's own referral code
    const created =
      doc.paths['/api/v1/contests/{contestId}/entries'].post.responses['201'].content['application/json'].schema;
    expect(created.properties.data.properties.referralCode).toMatchObject({ type: 'string' });
    expect(created.properties.data.required).toContain('referralCode');
    expect(doc.paths['/api/v1/instant-win-games/{gameId}/play'].post.responses['429']).toBeDefined();
  });

  it('types page and limit as integers, and has servers', () => {
    for (const { path, method, op } of operations()) {
      for (const p of (op.parameters ?? []) as any[]) {
        if (p.in === 'query' && (p.name === 'page' || p.name === 'limit'))
          expect(p.schema.type, `${method} ${path} ${p.name}`).toBe('integer');
      }
    }
    expect(
      doc.paths['/api/v1/contests/{contestId}/leaderboard'].get.parameters.find((p: any) => p.name === 'limit').schema,
    ).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it("passes Redocly's recommended lint with 0 errors and 0 warnings", () => {
    mkdirSync('.tmp', { recursive: true });
    writeFileSync('.tmp/openapi.json', JSON.stringify(doc, null, 2));
    const r = spawnSync(
      process.execPath,
      ['node_modules/@redocly/cli/bin/cli.js', 'lint', '.tmp/openapi.json', '--extends=recommended', '--format=json'],
      { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const report = JSON.parse(r.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  });

  it('serves an API reference page at /docs', async () => {
    const r = await env.request('GET', '/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.text).toContain('/api/v1/openapi.json');
  });
});

describe('the contract check catches a document that lies', () => {
  const answer = (
    status: number,
    body: unknown,
    path = '/api/v1/contests/00000000-0000-4000-8000-000000000000/views',
  ) => ({
    method: 'POST',
    path,
    status,
    contentType: 'application/json; charset=UTF-8',
    body: JSON.stringify(body),
  });

  it('passes a true answer', () => {
    createValidator(doc).check(answer(200, { success: true, data: { viewsCount: 3 } }));
  });

  it('fails a field of the wrong type, a missing field and a field the document does not list', () => {
    const contract = createValidator(doc);
    expect(() => contract.check(answer(200, { success: true, data: { viewsCount: '3' } }))).toThrow(
      /viewsCount must be integer/,
    );
    expect(() => contract.check(answer(200, { success: true, data: {} }))).toThrow(
      /must have required property 'viewsCount'/,
    );
    expect(() => contract.check(answer(200, { success: true, data: { viewsCount: 3, extra: 1 } }))).toThrow(
      /additional properties/,
    );
    expect(() => contract.check(answer(404, { success: false, error: ['Contest not found'] }))).toThrow(ContractError);
  });

  it('fails an undocumented status and an undocumented media type', () => {
    const contract = createValidator(doc);
    expect(() => contract.check(answer(418, { success: false, error: 'I am a teapot' }))).toThrow(
      /status 418 is not documented/,
    );
    expect(() => contract.check({ ...answer(200, {}), contentType: 'text/plain', body: 'ok' })).toThrow(
      /content type "text\/plain" is not documented/,
    );
    expect(() =>
      contract.check({ method: 'GET', path: '/widget.js', status: 200, contentType: 'application/json', body: '{}' }),
    ).toThrow(/content type "application\/json" is not documented/);
  });

  it('fails an answer of an operation the document does not have, through the request helper of every test', async () => {
    const lying = await createTestEnv({ backend: 'pglite' });
    try {
      // routes added before the first request (Hono builds its router then)
      lying.app.get('/api/v1/undocumented', (c) => c.json({ success: true, data: 1 }));
      // a method the document does not have on a documented path
      lying.app.patch('/api/v1/contests/:contestId/views', (c) => c.json({ success: true, data: { viewsCount: 1 } }));
      await expect(lying.request('GET', '/api/v1/undocumented')).rejects.toThrow(/undocumented operation/);
      await expect(lying.request('PATCH', '/api/v1/contests/x/views')).rejects.toThrow(/undocumented operation/);
      // a true answer still passes through the same helper
      await expect(lying.request('POST', '/api/v1/contests/x/views')).resolves.toMatchObject({ status: 401 });
    } finally {
      await lying.close();
    }
  });
});

describe('trust and safety in the document', () => {
  let doc: any;
  beforeAll(async () => {
    doc = await openApiDocument();
  });

  it('documents the trust-and-safety endpoints and fields with their response schemas', () => {
    const review = doc.paths['/api/v1/entries/{entryId}/review'].post;
    expect(review.operationId).toBe('reviewEntry');
    expect(review.requestBody.content['application/json'].schema.properties.decision.enum).toEqual([
      'approve',
      'reject',
    ]);
    const reviewed = review.responses['200'].content['application/json'].schema.properties.data;
    expect(reviewed.properties.risk.properties.level.enum).toEqual(['none', 'review', 'high']);
    expect(review.responses['409']).toBeDefined();
    const verify = doc.paths['/api/v1/entries/{entryId}/bonus-actions/{bonusActionId}/verify'].post;
    expect(verify.operationId).toBe('verifyBonusCompletion');
    expect(
      verify.responses['200'].content['application/json'].schema.properties.data.properties.completionStatus.enum,
    ).toEqual(['verified', 'rejected']);
    const keys = doc.paths['/api/admin/teams/{teamId}/api-keys'];
    expect(keys.get.operationId).toBe('listApiKeys');
    expect(keys.post.requestBody.content['application/json'].schema.properties).toHaveProperty('personalData');
    const create = doc.paths['/api/v1/contests/{contestId}/entries'];
    expect(Object.keys(create.post.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['ipAddress', 'userAgent']),
    );
    expect(create.get.parameters.find((p: { name: string }) => p.name === 'risk').schema.enum).toEqual([
      'review',
      'high',
    ]);
    const settings =
      doc.paths['/api/admin/teams/{teamId}/contests'].post.requestBody.content['application/json'].schema.properties;
    expect(settings.risk.properties.mode.enum).toEqual(['flag', 'hold', 'block']);
    expect(settings.referral.properties.creditOn.enum).toEqual(['create', 'confirm']);
  });
});
