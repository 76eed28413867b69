/**
 * Outbound events, written by the SAME statement as the change that caused them.
 *
 * A write statement adds two CTEs with sqlEmitEvent(): one inserts the event (only when at least
 * one enabled endpoint of the team is subscribed to its type, or the team's connected tools take
 * it: ce_event_wanted, so teams without either pay nothing but index probes), the other fans it
 * out to one delivery per such endpoint (the tools' deliveries: the events' trigger,
 * src/db/functions/integrations.sql). A change
 * that rolls back therefore sends nothing, and a committed one is never lost: the delivery rows
 * are committed with it and a deliverer (right after the response, or the every-minute cron)
 * sends them.
 *
 * Who is subscribed is the database function ce_subscribers (src/db/functions/events.sql),
 * which the reward triggers' events use too; who wants the event at all, ce_event_wanted.
 *
 * How to emit from a statement (any other helper's statement too):
 *
 *   sql`with ${team.cte} d as (
 *         update draws ... returning id, contest_id, ...
 *       ), ${sqlEmitEvent('ev_draw', 'draw.revealed',
 *             sql`select ${team.id} as team_id, d.contest_id, json_build_object('drawId', d.id, ...) as data from d`,
 *             now)}
 *       select ..., ${sqlEventDeliveries('ev_draw')} from d`
 *
 * The source is a SELECT giving one row per event with the columns `team_id` (uuid),
 * `contest_id` (uuid or null) and `data` (json/jsonb: the object as the API shows it, with its
 * ids). Data-modifying CTEs always run; the final SELECT names them only through
 * sqlEventDeliveries(), which tells the app whether a delivery pass is needed. The names
 * (`ev_draw` and `ev_draw_d`) must be unique within the statement.
 */
import { type SQL, sql } from 'drizzle-orm';
import { EVENT_DELIVERIES_COLUMN } from '../db/client.js';

export const EVENT_TYPES = [
  'entry.created',
  'entry.confirmed',
  'entry.disqualified',
  'entry.requalified',
  'entry.erased',
  'entry.admitted',
  'reward.unlocked',
  'reward.code_given',
  'referral.credited',
  'points.adjusted',
  'bonus_action.completed',
  'purchase.recorded',
  'instant_win.won',
  'instant_win.claimed',
  'draw.revealed',
  'draw.winner_notified',
  'entry.flagged',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const EVENT_NAME_RE = /^[a-z][a-z0-9_]{0,40}$/;

/**
 * The column that tells the app how many deliveries the statement's emit CTEs wrote: put
 * `${sqlEventDeliveries('ev_entry', 'ev_ref')}` in the statement's final SELECT (a row that is
 * always answered when a change was made). The query layer reads it (db/client.ts
 * deliveryScope) and a delivery pass starts after the answer only when it is above 0.
 */
export function sqlEventDeliveries(...names: string[]): SQL {
  if (!names.length || names.some((n) => !EVENT_NAME_RE.test(n))) throw new Error('sqlEventDeliveries: bad CTE names');
  const sum = names.map((n) => `(select count(*) from ${n}_d)`).join(' + ');
  return sql.raw(`(${sum}) as ${EVENT_DELIVERIES_COLUMN}`);
}

/** ISO 8601 in UTC with milliseconds (what JavaScript's toISOString() gives), from a timestamptz. */
export const sqlIso = (expr: SQL) => sql`to_char((${expr}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * An entry as events show it, from a row alias that has the entries columns (an UPDATE's or
 * INSERT's RETURNING: `returning ..., ${sqlEntryEventData('e')} as ev_data`).
 */
export function sqlEntryEventData(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`json_build_object('entryId', ${a}.id, 'contestId', ${a}.contest_id, 'email', ${a}.email, 'name', ${a}.name,
    'phone', ${a}.phone, 'points', ${a}.points, 'emailConfirmed', ${a}.email_confirmed, 'disqualified', ${a}.disqualified,
    'referralCode', ${a}.referral_code, 'referredBy', ${a}.referred_by, 'createdAt', ${sqlIso(sql`${a}.created_at`)})`;
}

/**
 * Two CTEs (`<name> as (...), <name>_d as (...)`, no trailing comma) recording one event per row
 * of `source` and its deliveries to every enabled endpoint of the row's team subscribed to `type`.
 */
export function sqlEmitEvent(name: string, type: EventType, source: SQL, now: Date | string): SQL {
  if (!EVENT_NAME_RE.test(name)) throw new Error(`sqlEmitEvent: bad CTE name ${name}`);
  const at = typeof now === 'string' ? now : now.toISOString();
  const ev = sql.raw(name);
  const deliveries = sql.raw(`${name}_d`);
  return sql`${ev} as (
      insert into events (team_id, contest_id, type, data, created_at)
      select s.team_id, s.contest_id, ${type}::text, s.data::jsonb, ${at}::timestamptz
      from (${source}) s
      where ce_event_wanted(s.team_id, ${type}::text)
      returning id, team_id, type
    ), ${deliveries} as (
      insert into event_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select ev.id, w.id, ${at}::timestamptz, ${at}::timestamptz
      from ${ev} ev cross join lateral ce_subscribers(ev.team_id, ev.type) w(id)
      returning 1
    )`;
}
