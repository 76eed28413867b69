/**
 * The rules written for both languages agree (issue 50): the share channels of
 * src/lib/share-channels.ts are exactly the list each table's check allows; the risk bounds of
 * src/lib/risk-limits.ts are the contests table's check, the settings' message, and the window
 * of ce_window_push (its hour and the one time more than the bound it keeps).
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TestEnv } from '../../test/support/harness.js';
import { FUNCTIONS_DIR } from '../db/functions.js';
import { RISK_PER_HOUR_MAX, RISK_WINDOW_MS } from './risk-limits.js';
import { SHARE_CHANNELS } from './share-channels.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const checkOf = async (name: string) =>
  (
    await query<{ def: string }>(
      env.db,
      sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = ${name}`,
    )
  )[0]?.def ?? '';

describe('one source for what SQL and TypeScript both need', () => {
  it.each(['entries_channel_ck', 'link_visits_channel_ck', 'link_shares_channel_ck'])(
    '%s allows exactly the share channels',
    async (name) => {
      const def = await checkOf(name);
      const listed = [...def.matchAll(/'([a-z]+)'::text/g)].map((m) => m[1]);
      expect(listed).toEqual([...SHARE_CHANNELS]);
    },
  );

  it('the risk bounds: the contests check, the settings message, the window function', async () => {
    const def = await checkOf('contests_risk_ck');
    const bounds = [...def.matchAll(/<= (\d+)/g)].map((m) => Number(m[1]));
    expect(bounds).toEqual([RISK_PER_HOUR_MAX, RISK_PER_HOUR_MAX]);
    const c = await env.team();
    const contest = await env.contest(c.teamId);
    const r = await env.request('PATCH', `/api/v1/contests/${contest.id}`, {
      key: c.privateKey,
      body: { risk: { maxEntriesPerIpPerHour: RISK_PER_HOUR_MAX + 1 } },
    });
    expect([r.status, r.body.error]).toEqual([
      400,
      `risk.maxEntriesPerIpPerHour must be between 1 and ${RISK_PER_HOUR_MAX}`,
    ]);
    const risk = readFileSync(`${FUNCTIONS_DIR}risk.sql`, 'utf8');
    const push = /FUNCTION ce_window_push[\s\S]*?END \$function\$/.exec(risk)![0];
    expect(push).toContain(`LIMIT ${RISK_PER_HOUR_MAX + 1}`);
    expect(RISK_WINDOW_MS).toBe(3_600_000);
    expect(push).toContain(`interval '1 hour'`);
  });
});
