/**
 * Share links (docs/signups.md, "Sharing"): a visit of a link that carries a referral code, and a
 * click on a share button. Each is one appended row (src/db/tables/sharing.ts). A visit is written
 * whether or not the contest has its code (the referrer's id, or null: the fold deletes those), so
 * that a made-up code costs the same work and gets the same answer as a real one.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid, sha256Hex } from '../lib/crypto.js';
import type { ShareChannel } from '../lib/share-channels.js';
import { sqlNotErased } from '../sql/scope.js';

/** Records a visit of `referralCode`'s link in the contest; 404 for a contest not the team's. */
export async function recordVisit(
  db: Db,
  team: Team,
  contestId: string,
  visit: { referralCode: string; channel: ShareChannel | null },
  now: Date,
): Promise<void> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const row = await queryOne<{ found: boolean }>(
    db,
    sql`with ${team.cte} c as (
          select c.id from contests c where c.id = ${contestId} and c.team_id = ${team.id}
        ), ins as (
          -- one row for every visit: the same index probe and the same insert for any code
          insert into link_visits (contest_id, entry_id, channel, created_at)
          select c.id, (select e.id from entries e
                        where e.contest_id = c.id and e.referral_code = ${visit.referralCode}::text and ${sqlNotErased('e')}),
            ${visit.channel}::text, ${now.toISOString()}::timestamptz
          from c
          returning 1
        )
        select exists (select 1 from c) as found`,
  );
  if (!row?.found) throw Errors.contestNotFound();
}

/** Records a click on a share button by the entry of `token`; 401 for an unknown token. */
export async function recordShare(db: Db, token: string, channel: ShareChannel, now: Date): Promise<void> {
  const row = await queryOne<{ n: number | string }>(
    db,
    sql`with ins as (
          insert into link_shares (contest_id, entry_id, channel, created_at)
          select e.contest_id, e.id, ${channel}::text, ${now.toISOString()}::timestamptz
          from entry_tokens t join entries e on e.id = t.entry_id
          where t.token_hash = ${await sha256Hex(token)} and ${sqlNotErased('e')}
          returning 1
        )
        select count(*) as n from ins`,
  );
  if (!row || Number(row.n) === 0) throw Errors.invalidEntryToken();
}
