import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { type Db, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlRewardsMay } from '../sql/outbox.js';
import { sqlAdvocatePoints, sqlClampedTotal } from '../sql/points.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';
import { entryDetailJson, entryDetailSql } from './entry-detail.js';

/**
 * `POST /entries/:id/review` (private): approve releases held referral points (applied ledger
 * rows, source referral); reject disqualifies the entry, drops its held points and takes back
 * the referral points its creation gave the advocate (a negative ledger row, never below 0).
 * One statement; the entry row is locked and `risk_review is null` re-checked under the lock,
 * so a second review (even a concurrent one) answers 409 Entry already reviewed.
 */
export async function reviewEntry(db: Db, team: Team, entryId: string, decision: 'approve' | 'reject', now: Date) {
  if (!isUuid(entryId)) throw Errors.entryNotFound();
  const t = now.toISOString();
  const approve = decision === 'approve';
  const rows = await query<Record<string, unknown> & { found: boolean; reviewed_now: boolean }>(
    db,
    sql`with ${team.cte} x as (
          select e.id, e.contest_id, e.referred_by, e.points, e.risk_review from entries e join contests c on c.id = e.contest_id
          where e.id = ${entryId} and ${sqlOfTeam(team, 'c')} and ${sqlNotErased('e')}
          for update of e
        ), held as (
          select l.* from points_ledger l join x on l.held_for = x.id where l.status = 'pending' and x.risk_review is null
        ),
        -- approve: rows still waiting for a confirmation only stop waiting for the review
        rel as (
          update points_ledger l set wait_review = false,
            status = case when not ${approve}::boolean then 'dropped' when l.wait_confirm then 'pending' else 'released' end
          from held h where l.id = h.id
          returning l.id, l.entry_id, l.contest_id, l.requested_delta, l.reason, l.ref_id, l.status
        ), own as (
          select coalesce(sum(requested_delta), 0) as d from rel where status = 'released' and entry_id = ${entryId}
        ),
        -- reject: what the creation gave the advocate at once (applied rows), taken back
        given as (
          select l.entry_id, sum(l.delta) as d from points_ledger l join x on l.entry_id = x.referred_by
          where not ${approve}::boolean and x.risk_review is null and l.source = 'referral' and l.status = 'applied'
            and l.ref_id = x.id::text and l.delta > 0
          group by l.entry_id
        ), ${sqlAdvocatePoints({
          where: sql`e.id in (select entry_id from rel where status = 'released' and entry_id <> ${entryId} union select entry_id from given)`,
          delta: sql`coalesce((select sum(requested_delta) from rel r where r.entry_id = a.id and r.status = 'released'), 0)
                - coalesce((select d from given g where g.entry_id = a.id), 0)`,
          now: t,
        })}, me as (
          update entries e set risk_review = ${approve ? 'approved' : 'rejected'}::text,
            disqualified = e.disqualified or not ${approve}::boolean,
            points = ${sqlClampedTotal(sql`x.points`, sql`(select d from own)`)}, updated_at = ${t}::timestamptz
          from x where e.id = x.id and x.risk_review is null
          returning e.*, e.points - x.points as delta
        ), ledger as (
          insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
          select me.id, x.contest_id, me.delta, (select d from own), 'referral', 'Referral points released after review', x.referred_by::text, ${t}::timestamptz
          from me, x where (select d from own) > 0
          union all
          select u.id, x.contest_id, u.delta,
            coalesce((select sum(requested_delta) from rel r where r.entry_id = u.id and r.status = 'released'), 0)
              - coalesce((select d from given g where g.entry_id = u.id), 0),
            'referral',
            case when ${approve}::boolean then 'Referral points released after review' else 'Referred entry rejected in review' end,
            x.id::text, ${t}::timestamptz
          from adv_upd u, x
          returning 1
        )
        select exists (select 1 from x) as found, d.*${sqlRewardsMay(sql`(select contest_id from x)`)} from (select 1) one left join (
          ${entryDetailSql(team, sql`me`)}
        ) d on true`,
  );
  const row = rows[0];
  if (!row?.found) throw Errors.entryNotFound();
  if (!row.id) throw Errors.entryAlreadyReviewed();
  return entryDetailJson(row as unknown as Parameters<typeof entryDetailJson>[0]);
}

/** The review's answer: the entry as the detail shows it (read by the route after the write). */
export const reviewDecisionSchema = v.object({
  decision: v.picklist(['approve', 'reject'], 'decision must be approve or reject'),
});
