/**
 * The typed client of examples/typed-client: types generated from the current OpenAPI document
 * with openapi-typescript, the example type-checked against them with tsc, then run against a
 * real server (createApp over PGlite on a free port) with a seeded team, contest and game. A
 * breaking change to the document breaks this test.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../scripts/openapi-document.js';
import { contractValidator } from './support/contract.js';
import { createTestEnv, type TeamFixture, type TestEnv } from './support/harness.js';

const DIR = '.tmp/typed-client';
let env: TestEnv;
let team: TeamFixture;
let server: ReturnType<typeof serve>;
let baseUrl: string;

beforeAll(async () => {
  env = await createTestEnv({ backend: 'pglite' });
  team = await env.team('Typed client team');
  server = serve({ fetch: env.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await env.close();
});

describe('typed client example (openapi-typescript + openapi-fetch)', () => {
  it('type-checks against types generated from the current document', async () => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    const types = astToString(await openapiTS((await openApiDocument()) as any));
    writeFileSync(`${DIR}/contest-api.d.ts`, types);
    copyFileSync('examples/typed-client/client.ts', `${DIR}/client.ts`);
    writeFileSync(
      `${DIR}/tsconfig.json`,
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          typeRoots: ['../../node_modules/@types'],
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          noEmit: true,
        },
        files: ['client.ts', 'contest-api.d.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `${DIR}/tsconfig.json`], {
      encoding: 'utf8',
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    // the generated types carry the document's names and shapes
    expect(types).toContain('createEntry: ');
    expect(types).toMatch(/referralCode: string;/);
  }, 120_000);

  it('the example itself fails to type-check when the document changes under it', async () => {
    const doc = await openApiDocument();
    // a breaking change: the leaderboard rows lose `rank`
    const rows =
      doc.paths['/api/v1/contests/{contestId}/leaderboard'].get.responses['200'].content['application/json'].schema
        .properties.data.items;
    delete rows.properties.rank;
    rows.required = rows.required.filter((k: string) => k !== 'rank');
    writeFileSync(`${DIR}/contest-api.d.ts`, astToString(await openapiTS(doc as any)));
    const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `${DIR}/tsconfig.json`], {
      encoding: 'utf8',
    });
    expect(tsc.status).not.toBe(0);
    expect(tsc.stdout).toMatch(/client\.ts.*Property 'rank' does not exist/);
  }, 120_000);

  it('runs against a real server: creates an entry, reads the leaderboard, plays and claims', async () => {
    const contest = await env.contest(team.teamId, { title: 'Typed client contest', requireEmailConfirmation: false });
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      key: team.privateKey,
      body: {
        slug: 'spin-to-win',
        title: 'Spin',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'none',
        publishAs: 'landing',
        status: 'active',
        tiers: [
          { name: '10% off', oddsPercent: 100, redeemCode: 'SAVE10' },
          { name: 'Try again', oddsPercent: 0, isMiss: true },
        ],
      },
    });
    expect(game.status, game.text).toBe(201);

    // every answer the example receives over HTTP is held to the document too
    const contract = await contractValidator();
    let checked = 0;
    const checkingFetch: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      const res = await fetch(req);
      const body = await res.clone().text();
      contract.check({
        method: req.method,
        path: new URL(req.url).pathname,
        status: res.status,
        contentType: res.headers.get('content-type'),
        body,
      });
      checked++;
      return res;
    };

    // imported by a computed path: the project's typecheck does not see the example (its types are
    // generated, into .tmp/, by the first test), tsc checked it above
    const examplePath = '../examples/typed-client/client.js';
    const { runExample } = (await import(examplePath)) as { runExample: (o: Record<string, unknown>) => Promise<any> };
    const out = await runExample({
      baseUrl,
      privateKey: team.privateKey,
      publicKey: team.publicKey,
      contestId: contest.id,
      gameId: game.body.data.id,
      email: 'ann@example.com',
      fetch: checkingFetch,
    });
    expect(out).toMatchObject({
      alreadyExists: false,
      metric: 'points',
      top: ['1. Ann Example: 0'],
      result: '10% off',
      prize: { name: '10% off', couponCode: 'SAVE10', redeemUrl: null },
    });
    expect(out.shareLink).toMatch(/^https:\/\/shop\.example\/\?ref=\w+$/);
    expect(checked).toBe(4);
    await env.settle();
  });
});
