/**
 * "Send the existing entries" (docs/integrations.md): one statement owes a connection every
 * confirmed person of the contests it takes who is not already waiting to be sent, as a
 * backfill whose progress is counted from its deliveries; the every-minute job sends them in
 * bulk (src/integrations/deliver.ts). Never a provider call on the request.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, num, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { sqlOfTeam } from '../sql/scope.js';

interface BackfillRow {
  id: string | null;
  total: number | null;
  created_at: Date | string | null;
  delivered: number | string;
  pending: number | string;
  failed: number | string;
}

/** A backfill's progress; its people deliveries counted by status. */
const sqlProgress = (b: string) => {
  const x = sql.raw(b);
  return sql`${x}.id, ${x}.total, ${x}.created_at,
    (select count(*) from integration_deliveries d where d.backfill_id = ${x}.id and d.status = 'delivered') as delivered,
    (select count(*) from integration_deliveries d where d.backfill_id = ${x}.id and d.status = 'pending') as pending,
    (select count(*) from integration_deliveries d where d.backfill_id = ${x}.id and d.status = 'failed') as failed`;
};

function backfillJson(r: BackfillRow) {
  return {
    id: r.id!,
    total: r.total!,
    delivered: num(r.delivered),
    pending: num(r.pending),
    failed: num(r.failed),
    done: num(r.pending) === 0,
    startedAt: iso(r.created_at)!,
  };
}

/**
 * Owes the connection its contests' confirmed people, in one statement. A disabled connection:
 * 409; one whose last backfill still has people waiting: 409.
 */
export async function startBackfill(db: Db, team: Team, id: string, now: Date) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const at = now.toISOString();
  const row = await queryOne<BackfillRow & { found: boolean; enabled: boolean | null; running: boolean }>(
    db,
    sql`with ${team.cte} i as (
          select i.id, i.team_id, i.enabled from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}
        ), running as (
          select 1 from integration_backfills b join i on b.integration_id = i.id
          where exists (select 1 from integration_deliveries d where d.backfill_id = b.id and d.status = 'pending')
        ), go as (
          select i.id from i where i.enabled and not exists (select 1 from running)
        ), taken as (
          -- the contests whose people the connection takes (the one rule: ce_integrations_of)
          select c.id from go join contests c on c.team_id = (select team_id from i)
          where go.id in (select ce_integrations_of(c.id))
        ), people as (
          select e.id from taken t join entries e on e.contest_id = t.id
          where e.email_confirmed and e.email is not null and e.erased_at is null
            and not exists (select 1 from integration_deliveries x where x.integration_id = (select id from go)
                              and x.entry_id = e.id and x.kind = 'person' and x.status = 'pending')
        ), b as (
          insert into integration_backfills (integration_id, total, created_at)
          select go.id, (select count(*) from people), ${at}::timestamptz from go
          returning id, total, created_at
        ), owed as (
          insert into integration_deliveries (integration_id, entry_id, kind, backfill_id, next_attempt_at, created_at)
          select go.id, p.id, 'person', b.id, ${at}::timestamptz, ${at}::timestamptz from go, b, people p
          on conflict (integration_id, entry_id, kind) where status = 'pending' and kind <> 'event' do nothing
          returning 1
        )
        select exists (select 1 from i) as found, (select enabled from i) as enabled,
          exists (select 1 from running) as running, b.id, b.total, b.created_at,
          0 as delivered, (select count(*) from owed) as pending, 0 as failed
        from (select 1) one left join b on true`,
  );
  if (!row?.found) throw Errors.integrationNotFound();
  if (!row.enabled) throw Errors.integrationDisabled();
  if (row.running || !row.id) throw Errors.backfillRunning();
  return backfillJson(row);
}

/** The connection's latest backfill and how far it got; null when it never had one. */
export async function latestBackfill(db: Db, team: Team, id: string) {
  if (!isUuid(id)) throw Errors.integrationNotFound();
  const row = await queryOne<BackfillRow & { found: boolean }>(
    db,
    sql`with ${team.cte} i as (select i.id from integrations i where i.id = ${id} and ${sqlOfTeam(team, 'i')}),
        b as (select b.* from integration_backfills b join i on b.integration_id = i.id order by b.created_at desc, b.id desc limit 1)
        select exists (select 1 from i) as found, ${sqlProgress('b')}
        from (select 1) one left join b on true`,
  );
  if (!row?.found) throw Errors.integrationNotFound();
  return row.id ? backfillJson(row) : null;
}
