/**
 * Getting data out: the CSV export (RFC 4180, formula guard, keyset pages), the per-person
 * export, and erasure (totals stay exact, the person disappears everywhere, the email can enter
 * again).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { createBonusAction } from '../admin/admin.js';
import { query } from '../db/client.js';
import { teamById } from '../db/team.js';
import { csvCell, EXPORT_HEADER, exportEntries } from './data-out.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

/** A strict RFC 4180 reader (CRLF records, quoted fields): what a spreadsheet import does. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const row: string[] = [];
    for (;;) {
      let cell = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (text[i] === '"' && text[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else if (text[i] === '"') {
            i++;
            break;
          } else cell += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
          if (text[i] === '\n' || text[i] === '"') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
          cell += text[i++];
        }
      }
      row.push(cell);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r' && text[i + 1] === '\n') {
        i += 2;
        break;
      }
      throw new Error(`record not ended by CRLF at ${i}`);
    }
    rows.push(row);
  }
  return rows;
}

const key = () => ({ key: t.privateKey });

describe('CSV export', () => {
  it('csvCell: formula guard on every cell, then RFC 4180 quoting', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
    expect(csvCell('=SUM(A1:A9)')).toBe("'=SUM(A1:A9)");
    expect(csvCell('+15551234567')).toBe("'+15551234567");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@cmd')).toBe("'@cmd");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=1,"2"')).toBe('"\'=1,""2"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
  });

  it('streams every entry oldest first with the exact header, CRLF, no BOM, guarded and quoted cells', async () => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 2, friendPoints: 1 },
      slug: 'summer-csv',
    } as never);
    const mk = async (body: Record<string, unknown>) => {
      env.clock.advance(1000);
      const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, { ...key(), body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.data;
    };
    const a = await mk({ email: 'ann@example.com', name: 'Ann, "the" first', phone: '+1 555 0100' });
    const b = await mk({ email: 'bob@example.com', name: '=HYPERLINK("http://x","y")', referralCode: a.referralCode });
    const cc = await mk({ phone: '+15550199', name: '@evil' });
    const res = await env.app.request(`/api/v1/contests/${c.id}/entries/export`, {
      headers: { 'x-api-key': t.privateKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="summer-csv-entries.csv"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith(`${EXPORT_HEADER}\r\n`)).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(text);
    expect(rows[0]!.join(',')).toBe(
      'id,email,name,phone,points,emailConfirmed,disqualified,referralCode,referredBy,referralsCount,riskLevel,createdAt,consentedAt,consentTextSha256,admittedAt',
    );
    const entries = (await env.request('GET', `/api/v1/contests/${c.id}/entries`, { key: t.publicKey })).body.data as {
      id: string;
      createdAt: string;
      referralCode: string;
    }[];
    const byId = Object.fromEntries(entries.map((e) => [e.id, e]));
    expect(rows.slice(1)).toEqual([
      [
        a.entryId,
        'ann@example.com',
        'Ann, "the" first',
        "'+15550100",
        '2',
        'true',
        'false',
        byId[a.entryId]!.referralCode,
        '',
        '1',
        'none',
        byId[a.entryId]!.createdAt,
        '',
        '',
        '',
      ],
      [
        b.entryId,
        'bob@example.com',
        '\'=HYPERLINK("http://x","y")',
        '',
        '1',
        'true',
        'false',
        byId[b.entryId]!.referralCode,
        a.entryId,
        '0',
        'none',
        byId[b.entryId]!.createdAt,
        '',
        '',
        '',
      ],
      [
        cc.entryId,
        '',
        "'@evil",
        "'+15550199",
        '0',
        'true',
        'false',
        byId[cc.entryId]!.referralCode,
        '',
        '0',
        'none',
        byId[cc.entryId]!.createdAt,
        '',
        '',
        '',
      ],
    ]);
    expect(byId[a.entryId]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("the list's filters: the export holds the entries the console's table shows, across pages; a bad filter is a 400", async () => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: false,
      referral: { advocatePoints: 1 },
    } as never);
    const mk = async (body: Record<string, unknown>) => {
      env.clock.advance(1000);
      const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, { ...key(), body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.data;
    };
    const ann = await mk({ email: 'ann.filter@example.com', name: 'Ann' });
    const bob = await mk({ email: 'bob.filter@example.com', name: 'Bob', referralCode: ann.referralCode });
    const cy = await mk({ email: 'cy.filter@example.com', name: 'Cy Annson', referralCode: ann.referralCode });
    await mk({ email: 'dee.filter@example.com', name: 'Dee' });
    await env.request('POST', `/api/v1/entries/${cy.entryId}/disqualify`, { ...key(), body: { disqualify: true } });
    const ids = async (q: string) => {
      const res = await env.app.request(`/api/v1/contests/${c.id}/entries/export?${q}`, {
        headers: { 'x-api-key': t.privateKey },
      });
      if (res.status !== 200) return [res.status, ((await res.json()) as { error: string }).error];
      return parseCsv(await res.text())
        .slice(1)
        .map((r) => r[0]);
    };
    expect(await ids('referred=true')).toEqual([bob.entryId, cy.entryId]);
    expect(await ids('referred=true&disqualified=false')).toEqual([bob.entryId]);
    expect(await ids(`referredBy=${ann.entryId}`)).toEqual([bob.entryId, cy.entryId]);
    // a search: a substring of the email or the name, or a referral code exactly
    expect(await ids('search=ann')).toEqual([ann.entryId, cy.entryId]);
    expect(await ids(`search=${bob.referralCode}`)).toEqual([bob.entryId]);
    expect(await ids('search=100%25')).toEqual([]);
    // the same answer as the list, filter by filter
    for (const q of ['referred=true', 'disqualified=true', 'search=filter', 'referred=false&confirmed=true']) {
      const listed = (await env.request('GET', `/api/v1/contests/${c.id}/entries?${q}&sort=oldest`, key())).body.data;
      expect(await ids(q), q).toEqual(listed.map((e: { id: string }) => e.id));
    }
    // across keyset pages of one entry each
    const out = await exportEntries(
      env.db,
      teamById(t.teamId),
      c.id,
      { pageSize: 1, acquire: () => ({ db: env.db, release: async () => {} }) },
      { referred: true },
    );
    expect(
      parseCsv(await new Response(out.stream).text())
        .slice(1)
        .map((r) => r[0]),
    ).toEqual([bob.entryId, cy.entryId]);
    expect(await ids('risk=low')).toEqual([400, 'risk must be review or high']);
    expect(await ids('referredBy=nope')).toEqual([400, 'referredBy must be an entry id']);
  });

  it('keyset pages: entries with the same created_at are neither lost nor repeated across page boundaries', async () => {
    const c = await env.contest(t.teamId, { requireEmailConfirmation: false });
    env.clock.freeze();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 7; i++) {
        const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
          ...key(),
          body: { email: `p${i}@example.com` },
        });
        ids.push(r.body.data.entryId);
      }
    } finally {
      env.clock.thaw();
    }
    let acquired = 0;
    let released = 0;
    const out = await exportEntries(env.db, teamById(t.teamId), c.id, {
      pageSize: 2,
      acquire: () => {
        acquired++;
        return { db: env.db, release: async () => void released++ };
      },
    });
    const text = await new Response(out.stream).text();
    const got = parseCsv(text)
      .slice(1)
      .map((r) => r[0]);
    expect(got).toEqual([...ids].sort());
    expect([acquired, released]).toEqual([1, 1]);
  });

  it('unknown or other team contest: 404 Contest not found; public key: 403', async () => {
    const other = await env.team('Other');
    const c = await env.contest(other.teamId);
    for (const id of [c.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const r = await env.request('GET', `/api/v1/contests/${id}/entries/export`, key());
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Contest not found' }]);
    }
    const p = await env.request('GET', `/api/v1/contests/${c.id}/entries/export`, { key: t.publicKey });
    expect([p.status, p.body.error]).toEqual([403, 'This endpoint requires a private API key']);
  });
});

describe('per-person export and erasure', () => {
  it('exports everything held about the person; erasure removes it, keeps totals, and the email can enter again', async () => {
    const c = await env.contest(t.teamId, {
      requireEmailConfirmation: true,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 1 },
    });
    const ann = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key(),
      body: { email: 'erase.me@example.com', name: 'Erin', phone: '+15550111', customFieldData: { shoe: 42 } },
    });
    const annId = ann.body.data.entryId;
    env.clock.advance(1000);
    const bob = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key(),
      body: { email: 'friend@example.com', referralCode: ann.body.data.referralCode },
    });
    await env.request('POST', `/api/v1/entries/${annId}/points`, { ...key(), body: { points: 3, reason: 'goodwill' } });
    const action = await createBonusAction(env.db, c.id, { action: 'visit', points: 2, confirmationType: 'click' });
    await env.request('POST', `/api/v1/entries/${annId}/bonus-actions/${action.id}/complete`, {
      key: t.publicKey,
      body: {},
    });
    await env.request('POST', `/api/v1/contests/${c.id}/purchases`, {
      ...key(),
      body: { email: 'erase.me@example.com', orderId: 'o-9', amount: 20 },
    });
    const game = await env.request('POST', '/api/v1/instant-win-games', {
      ...key(),
      body: {
        slug: 'spin-to-win',
        title: 'Wheel',
        mechanic: 'wheel',
        layout: 'default',
        entryLimit: 'device',
        publishAs: 'landing',
        tiers: [
          { name: 'Prize', oddsPercent: 100, redeemCode: 'C' },
          { name: 'Miss', oddsPercent: 0, isMiss: true },
        ],
      },
    });
    const gameId = game.body.data.id;
    const play = await env.request('POST', `/api/v1/instant-win-games/${gameId}/play`, { key: t.publicKey, body: {} });
    await env.request('POST', `/api/v1/instant-win-games/${gameId}/plays/${play.body.data.playId}/claim`, {
      key: t.publicKey,
      body: { email: 'erase.me@example.com', playCookie: play.body.data.playCookie },
    });
    await env.settle();

    const detail = await env.request('GET', `/api/v1/entries/${annId}`, { key: t.publicKey });
    const exp = await env.request('GET', `/api/v1/entries/${annId}/export`, key());
    expect(exp.status).toBe(200);
    expect(Object.keys(exp.body.data)).toEqual([
      'entry',
      'ledger',
      'bonusActions',
      'purchases',
      'instantWinPlays',
      'emails',
    ]);
    expect(exp.body.data.entry).toEqual(detail.body.data);
    expect(exp.body.data.ledger.map((l: { delta: number; source: string }) => [l.delta, l.source])).toEqual([
      [10, 'referral'],
      [3, 'manual'],
      [2, 'bonus_action'],
      [21, 'purchase'],
    ]);
    expect(Object.keys(exp.body.data.ledger[0]).sort()).toEqual(['createdAt', 'delta', 'reason', 'source']);
    expect(exp.body.data.bonusActions).toMatchObject([{ bonusActionId: action.id, pointsAwarded: 2 }]);
    expect(exp.body.data.purchases).toMatchObject([{ orderId: 'o-9', amount: 20, pointsAwarded: 21 }]);
    expect(exp.body.data.instantWinPlays).toMatchObject([
      { id: play.body.data.playId, gameId, status: 'claimed', email: 'erase.me@example.com' },
    ]);
    expect(exp.body.data.emails.map((m: { type: string }) => m.type)).toEqual(['confirmation', 'prize']);
    expect(Object.keys(exp.body.data.emails[0]).sort()).toEqual(['createdAt', 'sentAt', 'status', 'type']);
    for (const m of exp.body.data.emails) expect(m.createdAt).toMatch(/Z$/);

    const analyticsBefore = (await env.request('GET', `/api/v1/contests/${c.id}/analytics`, { key: t.publicKey })).body
      .data;
    const contestBefore = (await env.request('GET', `/api/v1/contests/${c.id}`, { key: t.publicKey })).body.data;
    // an unsent email to the person, to be cancelled
    await query(
      env.db,
      sql`update email_outbox set status = 'pending', sent_at = null, next_attempt_at = now() + interval '1 day'
                            where "to" = 'erase.me@example.com' and kind = 'confirmation'`,
    );

    const del = await env.request('DELETE', `/api/v1/entries/${annId}`, key());
    expect([del.status, del.body]).toEqual([200, { success: true, data: { entryId: annId, erased: true } }]);

    // gone everywhere, exactly like an entry that never existed
    const gone = { success: false, error: 'Entry not found' };
    for (const [m, p, k, b] of [
      ['GET', `/api/v1/entries/${annId}`, t.publicKey, undefined],
      ['GET', `/api/v1/entries/${annId}/export`, t.privateKey, undefined],
      ['DELETE', `/api/v1/entries/${annId}`, t.privateKey, undefined],
      ['PUT', `/api/v1/entries/${annId}`, t.privateKey, { name: 'x' }],
      ['POST', `/api/v1/entries/${annId}/points`, t.privateKey, { points: 1, reason: 'x' }],
      ['POST', `/api/v1/entries/${annId}/disqualify`, t.privateKey, {}],
    ] as const) {
      const r = await env.request(m, p, { key: k, body: b });
      expect([r.status, r.body], `${m} ${p}`).toEqual([404, gone]);
    }
    const ba = await env.request('GET', `/api/v1/entries/${annId}/bonus-actions`, { key: t.publicKey });
    expect(ba.status).toBe(404);
    const list = await env.request('GET', `/api/v1/contests/${c.id}/entries`, { key: t.publicKey });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([bob.body.data.entryId]);
    expect(list.body.pagination.total).toBe(1);
    expect(
      (await env.request('GET', `/api/v1/contests/${c.id}/entries?search=erin`, { key: t.publicKey })).body.data,
    ).toEqual([]);
    const board = await env.request('GET', `/api/v1/contests/${c.id}/leaderboard`, { key: t.publicKey });
    expect(board.body.data.map((e: { id?: string; entryId?: string }) => e.id ?? e.entryId)).not.toContain(annId);
    const csv = await (
      await env.app.request(`/api/v1/contests/${c.id}/entries/export`, { headers: { 'x-api-key': t.privateKey } })
    ).text();
    // its own line is gone; the friend's referredBy keeps the link (an id, nothing personal)
    expect(parseCsv(csv).map((r) => r[0])).not.toContain(annId);
    expect(csv).not.toContain('erase.me');
    // totals exact: analytics and entriesCount still count it
    expect((await env.request('GET', `/api/v1/contests/${c.id}/analytics`, { key: t.publicKey })).body.data).toEqual(
      analyticsBefore,
    );
    expect((await env.request('GET', `/api/v1/contests/${c.id}`, { key: t.publicKey })).body.data.entriesCount).toBe(
      contestBefore.entriesCount,
    );

    // what the database keeps: amounts and links, nothing that names the person
    const [row] = await query<Record<string, unknown>>(env.db, sql`select * from entries where id = ${annId}`);
    expect(row).toMatchObject({
      email: null,
      name: null,
      phone: null,
      custom_field_data: null,
      confirmation_token_hash: null,
      points: 36,
    });
    expect(row!.erased_at).not.toBeNull();
    const [friend] = await query<{ referred_by: string }>(
      env.db,
      sql`select referred_by from entries where id = ${bob.body.data.entryId}`,
    );
    expect(friend!.referred_by).toBe(annId);
    expect((await query(env.db, sql`select 1 from points_ledger where entry_id = ${annId}`)).length).toBe(4);
    expect((await query(env.db, sql`select 1 from purchases where entry_id = ${annId}`)).length).toBe(1);
    const plays = await query<{ ip_hash: string | null; limit_ip_key: string | null; email: string | null }>(
      env.db,
      sql`select ip_hash, limit_ip_key, email from instant_win_plays where id = ${play.body.data.playId}`,
    );
    expect(plays).toEqual([{ ip_hash: null, limit_ip_key: null, email: null }]);
    expect(
      await query(env.db, sql`select 1 from email_outbox where "to" = 'erase.me@example.com' or text like '%Erin%'`),
    ).toEqual([]);
    const mails = await query<{ status: string; text: string }>(
      env.db,
      sql`select status, text from email_outbox where "to" = '' order by created_at`,
    );
    expect(mails.map((m) => m.status)).toEqual(['cancelled', 'sent']);
    expect(mails.every((m) => m.text === '')).toBe(true);

    // the same address can enter again, as a new entry
    const again = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key(),
      body: { email: 'erase.me@example.com' },
    });
    expect(again.status).toBe(201);
    expect(again.body.data.entryId).not.toBe(annId);
    expect(again.body.data.alreadyExists).toBe(false);
    // the erased entry's referral code no longer credits anyone
    const viaOld = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      ...key(),
      body: { email: 'late@example.com', referralCode: ann.body.data.referralCode },
    });
    expect(viaOld.body.data.isReferred).toBe(false);
  });

  it("another team's entry, unknown and malformed ids: 404 Entry not found; public key: 403", async () => {
    const other = await env.team('Other2');
    const c = await env.contest(other.teamId, { requireEmailConfirmation: false });
    const e = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
      key: other.privateKey,
      body: { email: 'o@example.com' },
    });
    for (const id of [e.body.data.entryId, '00000000-0000-4000-8000-000000000000', 'nope']) {
      for (const [m, p] of [
        ['GET', `/api/v1/entries/${id}/export`],
        ['DELETE', `/api/v1/entries/${id}`],
      ] as const) {
        const r = await env.request(m, p, key());
        expect([r.status, r.body]).toEqual([404, { success: false, error: 'Entry not found' }]);
      }
    }
    const p = await env.request('DELETE', `/api/v1/entries/${e.body.data.entryId}`, { key: other.publicKey });
    expect([p.status, p.body.error]).toEqual([403, 'This endpoint requires a private API key']);
    const still = await env.request('GET', `/api/v1/entries/${e.body.data.entryId}`, { key: other.publicKey });
    expect(still.status).toBe(200);
  });
});
