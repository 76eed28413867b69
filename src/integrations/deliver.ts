/**
 * Delivery of what the connections owe their providers (integration_deliveries), run by the
 * every-minute job on both runtimes: never on a request's path.
 *
 * - Claiming is one statement (`FOR UPDATE SKIP LOCKED` and a lease with a random token):
 *   concurrent deliverers never take the same row while its lease runs, and only the lease holder
 *   records the outcome. The person is read as they are at that moment (one statement for the
 *   batch), so every change folded into the pending row is sent, the last values winning.
 * - A 2xx is delivered; `429` waits for the provider's Retry-After; `5xx`, a timeout or no answer
 *   is tried again after the events' back-off (30 s, 5 min, 30 min, … with up to 20% jitter), at
 *   most MAX_ATTEMPTS times; any other `4xx` is failed with the provider's own words.
 * - A connection whose credentials no key of the deployment opens fails its rows with that
 *   sentence (saving them again is the fix).
 * - An erasure (`erase`) deletes the person at the provider with the address its row kept, then
 *   forgets the address once delivered (a failed one keeps it for its retry).
 * - An event (`event`) goes after the person's own delivery of the same run
 *   (src/integrations/tool-events.ts).
 * - A run claims at most 1,000 people and 50 other rows. A connection's people go in one bulk
 *   send when it has several (src/integrations/people.ts: a backfill, or a busy minute), else
 *   one by one; a connection that answered 429, 5xx or nothing in this run is asked nothing more
 *   until its wait is over (its other rows wait as long, their attempts not counted). With at
 *   most ~60 calls per connection a run, sequential, each provider's published limits (Klaviyo's
 *   bulk import 10/s and 150/min, HubSpot's 100 requests per 10 s for private apps, Mailchimp's
 *   10 connections at once) are never reached by one deployment's runner.
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, num, query } from '../db/client.js';
import type { Deps } from '../deps.js';
import { Errors } from '../errors.js';
import { MAX_ATTEMPTS, retryDelayMs } from '../events/deliver.js';
import type { Provider } from '../lib/integrations.js';
import { sqlLandingUrl } from '../sql/contests.js';
import { sqlPosition } from '../sql/positions.js';
import { credentialBox } from './integrations.js';
import { erasePerson, type Person, syncPeople, syncPerson } from './people.js';
import { type Credentials, providerContext, type SyncOutcome, type Target } from './providers.js';
import { sendEvent, type ToolEventType } from './tool-events.js';

/** How long a claimed row stays reserved for its deliverer (longer than a batch's calls take). */
const LEASE_MS = 5 * 60_000;
const KIND_ORDER = { person: 0, event: 1, erase: 2 } as const;
/** A run's claim: people (sent in bulk, a few calls for many) and the rest (a call or two each). */
const PEOPLE_BATCH = 1000;
const BATCH = 50;

interface Claimed {
  id: string;
  integration_id: string;
  kind: 'person' | 'erase' | 'event';
  entry_id: string;
  /** an `event` delivery's event */
  event_id: string | null;
  event_type: ToolEventType | null;
  event_data: Record<string, unknown> | null;
  event_at: Date | string | null;
  /** an erasure's address */
  erase_email: string | null;
  attempts: number;
  provider: Provider;
  credentials: string;
  target: Target;
  email: string | null;
  name: string | null;
  consented: boolean;
  custom_field_data: Record<string, unknown> | null;
  contest: string;
  page_link: string | null;
  referral_code: string;
  position: number | string | null;
  points: number;
  confirmed_referrals: number | string;
}

export interface IntegrationRun {
  delivered: number;
  retrying: number;
  failed: number;
}

const sealedElsewhere = (): SyncOutcome => ({
  result: 'failed',
  status: 0,
  message: Errors.integrationSealedElsewhere().message,
});

/** A claimed person's row as the tools receive them. */
function personOf(r: Claimed, publicUrl: string): Person {
  const page = r.page_link ?? publicUrl;
  return {
    email: r.email!,
    name: r.name,
    consented: r.consented,
    customFields: r.custom_field_data,
    contest: r.contest,
    referralLink: referralLink(page, r.referral_code),
    referralCode: r.referral_code,
    pageLink: page,
    position: r.position === null ? null : num(r.position),
    points: r.points,
    confirmedReferrals: num(r.confirmed_referrals),
  };
}

/** The page a person's referral link is made of: the contest's page with `?ref=`. */
function referralLink(page: string, code: string): string {
  const u = new URL(page);
  u.searchParams.set('ref', code);
  return u.href;
}

export async function deliverIntegrations(db: Db, deps: Deps, now: Date): Promise<IntegrationRun> {
  const out: IntegrationRun = { delivered: 0, retrying: 0, failed: 0 };
  if (!deps.config.integrations?.key) return out;
  const box = await credentialBox(deps.config);
  const ctx = providerContext(deps);
  const lease = crypto.randomUUID();
  const at = now.toISOString();
  const rows = await query<Claimed>(
    db,
    sql`with claimed as (
          update integration_deliveries d set locked_until = ${at}::timestamptz + ${`${LEASE_MS} milliseconds`}::interval,
            lease_token = ${lease}::uuid, attempts = d.attempts + 1
          where d.id in (
            select x.id from integration_deliveries x
            where x.status = 'pending' and x.next_attempt_at <= ${at}::timestamptz and x.kind = 'person'
              and (x.locked_until is null or x.locked_until <= ${at}::timestamptz)
            order by x.next_attempt_at limit ${PEOPLE_BATCH} for update skip locked)
          or d.id in (
            select x.id from integration_deliveries x
            where x.status = 'pending' and x.next_attempt_at <= ${at}::timestamptz and x.kind <> 'person'
              and (x.locked_until is null or x.locked_until <= ${at}::timestamptz)
            order by x.next_attempt_at limit ${BATCH} for update skip locked)
          returning d.id, d.integration_id, d.entry_id, d.attempts, d.kind, d.email, d.event_id
        )
        select cl.id, cl.integration_id, cl.kind, cl.entry_id, cl.email as erase_email, cl.attempts, i.provider, i.credentials, i.target,
          cl.event_id, ev.type as event_type, ev.data as event_data, ev.created_at as event_at,
          e.email, e.name, (e.consented_at is not null and c.consent_text is not null) as consented,
          e.custom_field_data, c.title as contest, ${sqlLandingUrl('c', deps.config.publicUrl)} as page_link,
          e.referral_code, ${sqlPosition('e')} as position, e.points,
          (select count(*) from entries f where f.referred_by = e.id
             and ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review)) as confirmed_referrals
        from claimed cl
        join integrations i on i.id = cl.integration_id
        join entries e on e.id = cl.entry_id
        join contests c on c.id = e.contest_id
        left join events ev on ev.id = cl.event_id`,
  );
  if (rows.length === 0) return out;
  // a person before their events (Mailchimp needs the member first), then erasures
  rows.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  const results: {
    id: string;
    attempts?: number;
    status: string;
    next: string | null;
    code: number | null;
    error: string | null;
  }[] = [];
  const record = (r: Claimed, outcome: SyncOutcome, counted = true) => {
    if (outcome.result === 'delivered') {
      out.delivered++;
      results.push({ id: r.id, status: 'delivered', next: null, code: outcome.status || null, error: null });
    } else if (outcome.result === 'retry' && (outcome.retryAfterMs !== undefined || r.attempts < MAX_ATTEMPTS)) {
      out.retrying++;
      const wait = outcome.retryAfterMs ?? retryDelayMs(r.attempts);
      results.push({
        id: r.id,
        // a row not attempted (its connection was asked to wait) keeps its attempts
        ...(counted ? {} : { attempts: r.attempts - 1 }),
        status: 'pending',
        next: new Date(now.getTime() + wait).toISOString(),
        code: outcome.status,
        error: outcome.message,
      });
    } else {
      out.failed++;
      results.push({ id: r.id, status: 'failed', next: null, code: outcome.status || null, error: outcome.message });
    }
  };
  const opened = new Map<string, Credentials | null>();
  const credentialsOf = async (r: Claimed) => {
    if (!opened.has(r.integration_id)) {
      const plain = await box.open(r.credentials);
      opened.set(r.integration_id, plain === null ? null : (JSON.parse(plain) as Credentials));
    }
    return opened.get(r.integration_id)!;
  };
  // a connection that answered 429, 5xx or nothing is asked nothing more in this run
  const paused = new Map<string, SyncOutcome & { result: 'retry' }>();
  const settle = (group: Claimed[], outcome: SyncOutcome) => {
    for (const r of group) record(r, outcome);
    if (outcome.result === 'retry') paused.set(group[0]!.integration_id, outcome);
  };

  // the people first, each connection's in one bulk send when it has several
  const people = new Map<string, Claimed[]>();
  for (const r of rows)
    if (r.kind === 'person') people.set(r.integration_id, [...(people.get(r.integration_id) ?? []), r]);
  for (const group of people.values()) {
    const first = group[0]!;
    const creds = await credentialsOf(first);
    if (creds === null) {
      for (const r of group) record(r, sealedElsewhere());
      continue;
    }
    const gone = group.filter((r) => !r.email); // erased since: nothing to send
    for (const r of gone) record(r, { result: 'delivered', status: 0 });
    const live = group.filter((r) => r.email);
    if (live.length === 0) continue;
    const list = live.map((r) => personOf(r, deps.config.publicUrl));
    settle(
      live,
      list.length === 1
        ? await syncPerson(ctx, first.provider, creds, first.target, list[0]!)
        : await syncPeople(ctx, first.provider, creds, first.target, list),
    );
  }
  // then events and erasures, one by one
  for (const r of rows) {
    if (r.kind === 'person') continue;
    const wait = paused.get(r.integration_id);
    if (wait) {
      record(r, wait, false);
      continue;
    }
    const creds = await credentialsOf(r);
    let outcome: SyncOutcome;
    if (creds === null) outcome = sealedElsewhere();
    else if (r.kind === 'erase')
      outcome = r.erase_email
        ? await erasePerson(ctx, r.provider, creds, r.target, r.erase_email)
        : { result: 'delivered', status: 0 };
    else if (!r.email || !r.event_type)
      outcome = { result: 'delivered', status: 0 }; // erased since, or the event is gone: nothing to send
    else
      outcome = await sendEvent(ctx, r.provider, creds, r.target, {
        id: r.event_id!,
        entryId: r.entry_id,
        type: r.event_type,
        data: r.event_data ?? {},
        at: iso(r.event_at)!,
        email: r.email,
        contest: r.contest,
      });
    settle([r], outcome);
  }
  // the outcomes, recorded by the lease holder only
  await query(
    db,
    sql`update integration_deliveries d set status = x.status, locked_until = null, lease_token = null,
          attempts = coalesce(x.attempts, d.attempts),
          next_attempt_at = coalesce(x.next::timestamptz, d.next_attempt_at), last_status = x.code::int,
          last_error = x.error, delivered_at = case when x.status = 'delivered' then ${at}::timestamptz end,
          -- an erasure's address is kept until the provider deleted the person
          email = case when x.status <> 'delivered' then d.email end
        from jsonb_to_recordset(${JSON.stringify(results)}::jsonb)
          as x(id uuid, attempts int, status text, next text, code int, error text)
        where d.id = x.id and d.lease_token = ${lease}::uuid`,
  );
  return out;
}
