/**
 * Strings Postgres refuses, sent to the real Worker over the Neon driver (issue 49; the whole
 * table of routes runs on Node: test/hostile-strings.test.ts): the keyless routes and a keyed
 * one of each family with each hostile string in the path, the query and the body. Never 5xx;
 * a NUL or a lone surrogate in a body answers 400 naming the field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_PATH_VALUES } from '../support/hostile.js';
import { call, hasPostgres, makeContest, makeTeam, type Team } from './support/workerd.js';

describe.skipIf(!hasPostgres)('hostile strings on the Worker', () => {
  let team: Team;
  let contestId: string;
  beforeAll(async () => {
    team = await makeTeam('Hostile');
    contestId = (await makeContest(team.teamId, { requireEmailConfirmation: false, publicSignup: true })).id;
  });

  it('in path parameters, with a key and without: never 5xx', async () => {
    const failures: string[] = [];
    for (const hostile of HOSTILE_PATH_VALUES) {
      for (const [method, path] of [
        ['GET', `/api/v1/contests/${hostile}`],
        ['GET', `/api/v1/contests/${hostile}/signup`],
        ['POST', `/api/v1/contests/${hostile}/signup`],
        ['POST', `/api/v1/contests/${hostile}/visits`],
        ['GET', `/api/v1/contests/${hostile}/leaderboard`],
        ['GET', `/api/v1/contests/${hostile}/rewards`],
        ['GET', `/api/v1/entries/${hostile}`],
        ['GET', `/api/v1/instant-win-games/${hostile}`],
        ['GET', `/api/confirm/${hostile}`],
        ['GET', `/c/${hostile}`],
      ] as const) {
        for (const key of [undefined, team.publicKey, team.privateKey]) {
          const r = await call(method, path, { key, body: method === 'POST' ? {} : undefined });
          if (r.status >= 500) failures.push(`${method} ${path} ${key?.slice(0, 3) ?? 'no key'} → ${r.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('in query strings and body fields: 400 naming the field, never 5xx', async () => {
    const list = await call('GET', `/api/v1/contests/${contestId}/entries?search=a%00b`, { key: team.privateKey });
    expect([list.status, list.body.error]).toEqual([400, 'search must not contain NUL characters']);
    for (const [field, value, why] of [
      ['referralCode', 'a\u0000b', 'must not contain NUL characters'],
      ['referralCode', '\ud800', 'must not contain lone surrogate characters (invalid Unicode)'],
      ['channel', 'x\u0000', 'must not contain NUL characters'],
    ] as const) {
      const r = await call('POST', `/api/v1/contests/${contestId}/visits`, {
        body: { referralCode: 'abc', channel: 'x', [field]: value },
      });
      expect([r.status, r.body.error]).toEqual([400, `${field} ${why}`]);
    }
    const signup = await call('POST', `/api/v1/contests/${contestId}/signup`, {
      body: { email: 'nul@example.com', name: 'a\u0000b', consent: true },
    });
    expect([signup.status, signup.body.error]).toEqual([400, 'name must not contain NUL characters']);
  });
});
