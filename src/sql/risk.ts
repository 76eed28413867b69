/**
 * Risk signals on entries (referral fraud): the optional `ipAddress` / `userAgent` of a create,
 * their salted hashes, the SQL that computes the signals inside the create statement, the
 * release of held referral points (confirmation, review), and the review itself.
 *
 * Reason codes, computed once, at creation:
 *   disposable_email   the email's domain is in disposable_domains (src/db/disposable.ts)
 *   email_alias        another entry of the contest has the same normalised email (ce_email_norm)
 *   self_referral      the referrer has the same normalised email or the same IP hash
 *   ip_velocity        the (N+1)-th or later entry from the IP hash in the contest within the hour
 *   referral_velocity  the referrer's (M+1)-th or later referral within the hour
 * Level: high (self_referral, email_alias or disposable_email), else review (a velocity signal),
 * else none. Counting is race-free: the create statement locks the risk_windows rows it reads
 * (insert ... on conflict do update), which triggers on entries keep, so concurrent creates
 * sharing an IP, a normalised email or a referrer take turns and each sees the ones before.
 */
import { type SQL, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { hmacSha256, toHex } from '../lib/crypto.js';
import { hashIp } from '../lib/ip-hash.js';
import { RISK_WINDOW_MS } from '../lib/risk-limits.js';
import { sqlAdvocatePoints } from './points.js';

export const USER_AGENT_MAX = 512;

export const RISK_REASONS = [
  'disposable_email',
  'email_alias',
  'self_referral',
  'ip_velocity',
  'referral_velocity',
] as const;

export type RiskReason = (typeof RISK_REASONS)[number];

export type RiskLevel = 'none' | 'review' | 'high';

/** Body fields of entry create (API and signup webhook): the participant's address and browser as the team's server saw them. */
/** An IP address (v4 or v6), as the risk rules take it */
export const ipAddressSchema = v.pipe(v.string('Invalid ipAddress'), v.trim(), v.ip('Invalid ipAddress'));

export const riskInputEntries = {
  ipAddress: v.optional(v.nullable(ipAddressSchema)),
  userAgent: v.optional(
    v.nullable(
      v.pipe(
        v.string('Invalid userAgent'),
        v.maxLength(USER_AGENT_MAX, `userAgent must be at most ${USER_AGENT_MAX} characters`),
      ),
    ),
  ),
};

export const riskInputSchema = v.object(riskInputEntries);

/** The same keyed hash as instant-win plays (so a claim's entry and an API entry compare). */
export const hashEntryIp = (salt: string, ip: string) => hashIp(salt, ip);

export const hashUserAgent = async (salt: string, ua: string) => toHex(await hmacSha256(salt, `ua:${ua}`));

/** SQLSTATE raised by ce_risk_gate() when block mode refuses an entry */
export const RISK_REFUSED_SQLSTATE = 'CER01';

/** RFC 2606 example domains never count as disposable (they are not loaded either). */
export const sqlNotExampleDomain = (domain: SQL) =>
  sql`(${domain} !~ '(^|\\.)example\\.(com|org|net)$' and ${domain} !~ '\\.(test|example|invalid|localhost)$')`;

// ---------------------------------------------------------------- signals, inside entry create

/**
 * CTEs of the entry-create statement (each followed by a comma). It reads three CTEs the caller
 * has written before it and names in `reads`: the contest (with its risk settings and `is_open`),
 * the entry with that email if any, and the referrer (locked; `id`, `email_norm`, `ip_hash`).
 * It writes:
 *   rw    locks and reads this entry's risk_windows rows (normalised email, IP hash, referrer) in
 *         a fixed order; a row made here is counted by the entries trigger when the entry is
 *         inserted, and a refused entry rolls it back with everything else
 *   risk  the reason codes, the level, and whether referral points are deferred
 * Nothing here runs for an entry that already exists.
 */
export function sqlRiskCtes(
  reads: { contest: 'c'; existing: 'existing'; referrer: 'ref' },
  p: {
    email: string | null;
    ipHash: string | null;
    now: string;
    /** a sign-up without the private key: referral points wait for the confirmation, whatever referral.creditOn says */
    creditOnConfirm?: boolean;
  },
): SQL {
  const onConfirm = sql`(referral_credit_on = 'confirm' or ${p.creditOnConfirm ?? false}::boolean)`;
  // the velocity window's start, one hour (RISK_WINDOW_MS) before the statement's clock
  const hourAgo = new Date(Date.parse(p.now) - RISK_WINDOW_MS).toISOString();
  const c = sql.raw(reads.contest);
  const existing = sql.raw(reads.existing);
  const ref = sql.raw(reads.referrer);
  return sql`rw as (
      insert into risk_windows as w (contest_id, kind, key)
      select ${c}.id, k.kind, k.key from ${c}, (values
        (1, 'email', ce_email_norm(${p.email}::text)),
        (2, 'ip', ${p.ipHash}::text),
        (3, 'ref', (select id::text from ${ref}))
      ) k(ord, kind, key)
      where ${c}.is_open and not exists (select 1 from ${existing}) and k.key is not null
      order by k.ord
      on conflict (contest_id, kind, key) do update set n = w.n
      returning w.kind, w.n, (select count(*) from unnest(w.times) t where t > ${hourAgo}::timestamptz) as recent
    ), sig as (
      select
        (${p.email}::text is not null
          and exists (select 1 from disposable_domains d where d.domain = split_part(${p.email}::text, '@', 2))
          and ${sqlNotExampleDomain(sql`split_part(${p.email}::text, '@', 2)`)}) as disposable_email,
        coalesce((select n from rw where kind = 'email'), 0) > 0 as email_alias,
        coalesce((select true from ${ref} where (${ref}.email_norm is not null and ${ref}.email_norm = ce_email_norm(${p.email}::text))
          or (${ref}.ip_hash is not null and ${ref}.ip_hash = ${p.ipHash}::text)), false) as self_referral,
        coalesce((select recent from rw where kind = 'ip'), 0) >= ${c}.risk_max_entries_per_ip_per_hour as ip_velocity,
        coalesce((select recent from rw where kind = 'ref'), 0) >= ${c}.risk_max_referrals_per_hour as referral_velocity,
        ${c}.referral_credit_on, ${c}.require_email_confirmation, ${c}.risk_mode
      from ${c}
    ), risk as (
      select array_remove(array[
          case when disposable_email then 'disposable_email' end,
          case when email_alias then 'email_alias' end,
          case when self_referral then 'self_referral' end,
          case when ip_velocity then 'ip_velocity' end,
          case when referral_velocity then 'referral_velocity' end]::text[], null) as reasons,
        l.level,
        (${onConfirm} and require_email_confirmation and ${p.email}::text is not null) as wait_confirm,
        (risk_mode = 'hold' and l.level <> 'none') as wait_review,
        ((${onConfirm} and require_email_confirmation and ${p.email}::text is not null)
          or (risk_mode = 'hold' and l.level <> 'none')) as deferred
      from sig, lateral (select case when self_referral or email_alias or disposable_email then 'high'
                                     when ip_velocity or referral_velocity then 'review' else 'none' end as level) l
    ),`;
}

// ---------------------------------------------------------------- releasing held points

/**
 * CTEs (each followed by a comma) of a statement that has just confirmed the email of the entry
 * in the CTE named by `reads.confirmed` (columns id, points, email_confirmed: the row locked, as
 * it was before). It writes `rel`, `adv_lock`, `adv_upd` and `adv_ledger`: the entry's
 * referral points held for the confirmation are released. `rel` turns the pending rows released
 * (or leaves them pending when they also wait for a review); the referrer gets its points
 * (clamped) with an applied ledger row here; the caller's own update of the entry adds
 * `(select coalesce(sum(requested_delta), 0) from rel where entry_id = t.id and status = 'released')`
 * (a statement updates a row once) and writes its ledger row with `sqlReleaseOwnLedger`.
 */
export function sqlReleaseOnConfirm(reads: { confirmed: 't' }, now: string): SQL {
  const t = sql.raw(reads.confirmed);
  return sql`rel as (
      update points_ledger l set wait_confirm = false, status = case when l.wait_review then 'pending' else 'released' end
      from ${t} where l.held_for = ${t}.id and not ${t}.email_confirmed and l.status = 'pending' and l.wait_confirm
      returning l.entry_id, l.contest_id, l.requested_delta, l.reason, l.ref_id, l.status
    ), ${sqlAdvocatePoints({
      where: sql`e.id in (select entry_id from rel where status = 'released') and e.id <> (select id from ${t})`,
      delta: sql`(select sum(requested_delta) from rel r where r.entry_id = a.id and r.status = 'released')`,
      now,
    })}, adv_ledger as (
      insert into points_ledger (entry_id, contest_id, delta, requested_delta, source, reason, ref_id, created_at)
      select u.id, r.contest_id, u.delta, r.requested_delta, 'referral', r.reason, r.ref_id, ${now}::timestamptz
      from adv_upd u join rel r on r.entry_id = u.id and r.status = 'released'
      returning 1
    ),`;
}

/** Released points of the entry itself, as its own update adds them. */
export const sqlOwnReleased = (entryId: SQL) =>
  sql`coalesce((select sum(requested_delta) from rel where entry_id = ${entryId} and status = 'released'), 0)`;

// ---------------------------------------------------------------- review
