/**
 * Letting a waitlist in (POST /api/v1/contests/{contestId}/admit): the first `count` by position,
 * or the entries named, are admitted in one statement. Each gets `admittedAt`, an email and the
 * `entry.admitted` event, and leaves the positions of those still waiting. With an
 * Idempotency-Key, the list admitted is kept: a retry admits nobody and answers the same list.
 * Concurrent admissions never admit an entry twice (the update re-checks `admitted_at is null`
 * under the row lock); two with the same key at once: the second's insert of the key waits for the
 * first and fails, which undoes the whole second statement, and the retry answers the first's list.
 */
import { sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { arrayLiteral } from '../sql/arrays.js';
import { sqlEmitEvent, sqlEntryEventData, sqlEventDeliveries } from '../sql/events.js';
import { sqlQueueEmail } from '../sql/outbox.js';
import { sqlCounts } from '../sql/positions.js';
import { sqlOfTeam } from '../sql/scope.js';
import { admittedContent } from './emails.js';

export const ADMIT_MAX = 10_000;

export type AdmitWhom = { count: number } | { entryIds: string[] };

export async function admit(
  db: Db,
  team: Team,
  contestId: string,
  whom: AdmitWhom,
  idempotencyKey: string | null,
  now: Date,
): Promise<{ entryIds: string[]; emailsQueued: boolean }> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const at = now.toISOString();
  // a Postgres array literal: the ids are checked uuids, and one parameter keeps the statement's text fixed
  const ids = 'entryIds' in whom ? arrayLiteral(whom.entryIds.filter(isUuid)) : null;
  const limit = 'count' in whom ? whom.count : ADMIT_MAX;
  const mail = admittedContent(contestId)({ title: sql`c.title`, name: sql`upd.name`, link: sql`c.landing_url` });
  for (let attempt = 0; attempt < 3; attempt++) {
    let row: Awaited<ReturnType<typeof admitOnce>>;
    try {
      row = await admitOnce();
    } catch (e) {
      // the same key at the same instant: the other admission recorded it first, and this
      // statement (its updates and emails included) was undone; read the other's list
      if (idempotencyKey !== null && isUniqueViolation(e, 'admissions_contest_id_idempotency_key_pk')) continue;
      throw e;
    }
    if (!row?.contest_found) throw Errors.contestNotFound();
    if (!row.waitlist) throw Errors.notAWaitlist();
    if (row.previous) return { entryIds: row.previous, emailsQueued: false };
    return { entryIds: row.admitted ?? [], emailsQueued: Number(row.mails) > 0 };
  }
  throw Errors.admissionInProgress();

  function admitOnce() {
    return queryOne<{
      contest_found: boolean;
      waitlist: boolean;
      previous: string[] | null;
      admitted: string[] | null;
      mails: number | string;
    }>(
      db,
      sql`with ${team.cte} c as (
            select c.id, c.team_id, c.title, c.landing_url, c.mode = 'waitlist' as waitlist from contests c
            where c.id = ${contestId} and ${sqlOfTeam(team, 'c')}
          ), prev as (
            select a.entry_ids from admissions a join c on a.contest_id = c.id where a.idempotency_key = ${idempotencyKey}::text
          ), pick as (
            select e.id from entries e join c on e.contest_id = c.id
            where e.contest_id = ${contestId}::uuid and c.waitlist and not exists (select 1 from prev) and ${sqlCounts('e')}
              and (${ids}::text is null or e.id = any(${ids}::uuid[]))
            order by e.points desc, e.created_at, e.id
            limit ${limit}
            for update of e
          ), upd as (
            update entries e set admitted_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
            from pick where e.id = pick.id and e.admitted_at is null
            returning e.id, e.email, e.name, e.points, e.created_at, ${sqlEntryEventData('e')} as ev_data
          ), rec as (
            insert into admissions (contest_id, idempotency_key, entry_ids, created_at)
            select c.id, ${idempotencyKey}::text,
              coalesce((select array_agg(id order by points desc, created_at, id) from upd), '{}'::uuid[]), ${at}::timestamptz
            from c where ${idempotencyKey}::text is not null and not exists (select 1 from prev)
            returning 1
          ), mail as (
            ${sqlQueueEmail('admitted', mail, at, {
              teamId: sql`c.team_id`,
              contestId: sql`c.id`,
              to: sql`upd.email`,
              from: sql`upd, c where upd.email is not null`,
            })}
          ), ${sqlEmitEvent('ev_admitted', 'entry.admitted', sql`select c.team_id, c.id as contest_id, upd.ev_data as data from upd, c`, now)}
          select exists (select 1 from c) as contest_found, coalesce((select waitlist from c), false) as waitlist,
            (select entry_ids from prev) as previous,
            (select array_agg(id order by points desc, created_at, id) from upd) as admitted,
            (select count(*) from mail) as mails,
            ${sqlEventDeliveries('ev_admitted')}`,
    );
  }
}
