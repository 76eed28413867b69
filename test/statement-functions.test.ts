/**
 * The Worker's statement functions (src/db/statement-functions.ts) are the statements the hot
 * endpoints send now: each endpoint's request is made, the first statement it sends is recorded,
 * and the registered names must be exactly those. With UPDATE_STATEMENT_FUNCTIONS=1 on a real
 * Postgres, the test writes them instead: each statement described by Postgres (Parse/Describe:
 * its parameters' and columns' types) and turned into its function.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, statementName } from '../src/db/client.js';
import {
  type DescribedStatement,
  FUNCTION_SEPARATOR,
  STATEMENT_FUNCTIONS,
  STATEMENT_FUNCTIONS_FILE,
  statementFunctionSql,
} from '../src/db/statement-functions.js';
import { createTestEnv, query, type TeamFixture, type TestEnv, wheelGameBody } from './support/harness.js';

const update = process.env.UPDATE_STATEMENT_FUNCTIONS === '1';
let env: TestEnv;
let t: TeamFixture;

beforeAll(async () => {
  env = await createTestEnv(update ? { backend: 'postgres' } : {});
  t = await env.team('Functions');
});
afterAll(() => env?.close());

type Send = () => Promise<{ status: number; text: string }>;
/**
 * A request, or one that needs a fixture of its own made first (`setup` makes it, then returns the
 * request). `every`: not only its first statement but every one it sends, the work after the
 * answer included (a batch, an email's delivery).
 */
type Hot = Send | { setup: () => Promise<Send>; every?: boolean };

/** The hot endpoints, each as the Worker bench sends it: [name, request]. */
async function hotRequests(): Promise<[string, Hot][]> {
  const c = await env.contest(t.teamId, {
    requireEmailConfirmation: false,
    referral: { advocatePoints: 10, friendPoints: 5 },
    purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 1 },
    publicSignup: true,
  } as never);
  const priv = { key: t.privateKey };
  const ann = (
    await env.request('POST', `/api/v1/contests/${c.id}/entries`, { ...priv, body: { email: 'ann@example.com' } })
  ).body.data;
  const action = (
    await env.request('POST', `/api/v1/contests/${c.id}/bonus-actions`, { ...priv, body: { action: 'a', points: 5 } })
  ).body.data;
  const token = `et_${'StatementFunctions'.padEnd(40, 'x')}`;
  await query(
    env.db,
    sql`insert into entry_tokens (token_hash, entry_id) values (${createHash('sha256').update(token).digest('hex')}, ${ann.entryId})`,
  );
  const game = (await env.request('POST', '/api/v1/instant-win-games', { ...priv, body: wheelGameBody(100) })).body
    .data;
  let n = 0;
  const pub = { key: t.publicKey };
  return [
    [
      'entry create',
      () =>
        env.request('POST', `/api/v1/contests/${c.id}/entries`, {
          ...priv,
          body: { email: `p${++n}@example.com`, name: 'P', referralCode: ann.referralCode },
        }),
    ],
    [
      'entry update',
      () => env.request('PUT', `/api/v1/entries/${ann.entryId}`, { ...priv, body: { name: `A${++n}` } }),
    ],
    [
      'points adjust',
      () => env.request('POST', `/api/v1/entries/${ann.entryId}/points`, { ...priv, body: { points: 1, reason: 'r' } }),
    ],
    [
      'bonus complete',
      {
        setup: async () => {
          const e = (
            await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
              ...priv,
              body: { email: `b${++n}@example.com` },
            })
          ).body.data;
          return () =>
            env.request('POST', `/api/v1/entries/${e.entryId}/bonus-actions/${action.id}/complete`, {
              ...pub,
              body: {},
            });
        },
      },
    ],
    [
      'purchase',
      () =>
        env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
          ...priv,
          body: { email: 'ann@example.com', orderId: `o${++n}`, amount: 10 },
        }),
    ],
    ['me', () => env.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } })],
    [
      // a share link's visit, without a key: the viral path
      'visit',
      () =>
        env.request('POST', `/api/v1/contests/${c.id}/visits`, {
          body: { referralCode: ann.referralCode, channel: 'x' },
        }),
    ],
    ['contest view', () => env.request('POST', `/api/v1/contests/${c.id}/views`, { ...pub, body: {} })],
    ['contests list', () => env.request('GET', '/api/v1/contests', pub)],
    ['plays list', () => env.request('GET', `/api/v1/instant-win-games/${game.id}/plays?limit=20`, priv)],
    [
      'game update',
      {
        setup: async () => () =>
          env.request('PUT', `/api/v1/instant-win-games/${game.id}`, { ...priv, body: { title: `G${++n}` } }),
        every: true,
      },
    ],
    [
      // and the delivery of the email it writes
      'instant-win claim',
      {
        every: true,
        setup: async () => {
          const play = (await env.request('POST', `/api/v1/instant-win-games/${game.id}/play`, { ...pub, body: {} }))
            .body.data;
          return () =>
            env.request('POST', `/api/v1/instant-win-games/${game.id}/plays/${play.playId}/claim`, {
              ...pub,
              body: { email: `w${++n}@example.com`, playCookie: play.playCookie },
            });
        },
      },
    ],
    // the reads a page makes with its public key, and a team's server with its private one
    ...(['public', 'private'] as const).flatMap((kind): [string, Hot][] => {
      const key = { key: kind === 'public' ? t.publicKey : t.privateKey };
      return [
        [`leaderboard (${kind})`, () => env.request('GET', `/api/v1/contests/${c.id}/leaderboard?limit=25`, key)],
        [`entry get (${kind})`, () => env.request('GET', `/api/v1/entries/${ann.entryId}`, key)],
        [`entries list (${kind})`, () => env.request('GET', `/api/v1/contests/${c.id}/entries?limit=20`, key)],
        [
          `entries search (${kind})`,
          () => env.request('GET', `/api/v1/contests/${c.id}/entries?search=ann&limit=20`, key),
        ],
        [`contest get (${kind})`, () => env.request('GET', `/api/v1/contests/${c.id}`, key)],
        [`analytics (${kind})`, () => env.request('GET', `/api/v1/contests/${c.id}/analytics`, key)],
        // a private key's game view also says the tiers' redeem codes
        [`game get (${kind})`, () => env.request('GET', `/api/v1/instant-win-games/${game.id}`, key)],
        [
          `instant-win play (${kind})`,
          () => env.request('POST', `/api/v1/instant-win-games/${game.id}/play`, { ...key, body: {} }),
        ],
      ];
    }),
  ];
}

/** The first statement each hot request sends (its one round trip), or every one (`every`). */
async function recordHot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [name, hot] of await hotRequests()) {
    // a fixture the request needs is made before the recording starts
    const send = typeof hot === 'function' ? hot : await hot.setup();
    const every = typeof hot !== 'function' && hot.every === true;
    const texts: string[] = [];
    recordStatements((text) => texts.push(text));
    try {
      const r = await send();
      expect(r.status, `${name}: ${r.text}`).toBeLessThan(300);
      if (every) await env.settle();
    } finally {
      recordStatements(null);
    }
    await env.settle();
    expect(texts.length, name).toBeGreaterThan(0);
    if (!every) out.set(name, texts[0]!);
    else for (const [i, text] of [...new Set(texts)].entries()) out.set(i === 0 ? name : `${name} (${i + 1})`, text);
  }
  return out;
}

describe("the Worker's statement functions", () => {
  it('are the first statements of the hot endpoints as the code builds them now', async () => {
    const texts = await recordHot();
    const names = new Map([...texts].map(([endpoint, text]) => [statementName(text), { endpoint, text }]));
    if (update) {
      const url = (env.pool as unknown as { options: { connectionString: string } }).options.connectionString;
      const pgc = postgres(url, { max: 1 });
      const parts: string[] = [
        '-- generated by test/statement-functions.test.ts (UPDATE_STATEMENT_FUNCTIONS=1): do not edit',
      ];
      const registered: string[] = [];
      try {
        const typeName = async (oid: number) => (await pgc`select format_type(${oid}::oid, null) as t`)[0]!.t as string;
        for (const [name, { endpoint, text }] of [...names].sort()) {
          const d = await pgc.unsafe(text, [], { prepare: true }).describe();
          const described: DescribedStatement = {
            text,
            name,
            params: await Promise.all(d.types.map(typeName)),
            columns: await Promise.all(d.columns.map(async (c) => ({ name: c.name, type: await typeName(c.type) }))),
          };
          const fn = statementFunctionSql(described);
          if (!fn) {
            console.warn(`statement functions: ${endpoint} cannot be a function (its columns)`);
            continue;
          }
          parts.push(`-- ${endpoint}\n${fn}`);
          registered.push(name);
        }
      } finally {
        await pgc.end();
      }
      writeFileSync(STATEMENT_FUNCTIONS_FILE, `${parts.join(FUNCTION_SEPARATOR)}\n`);
      writeFileSync(
        fileURLToPath(new URL('../src/db/statement-functions.generated.ts', import.meta.url)),
        `/** Generated by test/statement-functions.test.ts (UPDATE_STATEMENT_FUNCTIONS=1): the statement functions the database has. */\nexport const STATEMENT_FUNCTIONS: ReadonlySet<string> = new Set([\n${registered.map((n) => `  '${n}',`).join('\n')}\n]);\n`,
      );
      console.log(`statement functions: ${registered.length} written; run it again without UPDATE_STATEMENT_FUNCTIONS`);
      return;
    }
    expect(
      [...STATEMENT_FUNCTIONS].sort(),
      'the hot statements changed: UPDATE_STATEMENT_FUNCTIONS=1 TEST_DATABASE_URL=postgres://… npx vitest run test/statement-functions.test.ts',
    ).toEqual([...names.keys()].sort());
  });
});
