/**
 * Expiry of unclaimed wins. A pending win past expires_at is already refused at claim time and
 * shown as `expired` in the plays log (both compare with the clock); the sweep makes it stored
 * `expired` and gives its unit or code back to the pool, in ONE statement per batch:
 *
 * - the plays are taken with FOR UPDATE SKIP LOCKED and only while still `pending`, so two
 *   sweeps running at once take disjoint plays and a play's stock comes back exactly once;
 * - its code is freed (only if it still points at that play), its tier's handed_out goes down
 *   by the number of expired wins and remaining becomes max(0, quantity - handed_out);
 * - tier rows are locked in id order, as everything that locks several tiers does, so
 *   concurrent sweeps do not deadlock (should one still happen, the batch is run again).
 *
 * Called from the Node runner's timer and the Worker's cron.
 */
import { sql } from 'drizzle-orm';
import { type Db, num, pgError, queryOne } from '../db/client.js';

export interface SweepOptions {
  /** plays per statement (default 1000); the sweep repeats until a batch comes back short */
  batchSize?: number;
}

/** Expires every pending win past its expires_at; returns how many plays expired. */
export async function sweepExpiredPlays(db: Db, now: Date, opts: SweepOptions = {}): Promise<number> {
  const batch = Math.max(1, Math.min(opts.batchSize ?? 1000, 10_000));
  let total = 0;
  for (;;) {
    const n = await sweepBatch(db, now, batch);
    total += n;
    if (n < batch) return total;
  }
}

async function sweepBatch(db: Db, now: Date, batch: number): Promise<number> {
  const at = now.toISOString();
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await queryOne<{ expired: string | number }>(
        db,
        sql`with due as (
              select id, tier_id, code_id from instant_win_plays
              where status = 'pending' and expires_at <= ${at}::timestamptz
              order by expires_at, id
              limit ${batch}
              for update skip locked
            ), exp as (
              update instant_win_plays p set status = 'expired', code_id = null
              from due where p.id = due.id and p.status = 'pending'
              returning p.id, due.tier_id, due.code_id
            ), freed as (
              update instant_win_codes ic set play_id = null
              from exp where ic.id = exp.code_id and ic.play_id = exp.id
              returning ic.id
            ), per_tier as (
              select tier_id, count(*)::int as n from exp where tier_id is not null group by tier_id
            ), locked as (
              -- tiers are locked in id order (like a game update does): sweeps never deadlock on them
              select t.id from instant_win_tiers t where t.id in (select tier_id from per_tier) order by t.id for update
            ), back as (
              update instant_win_tiers t set
                handed_out = t.handed_out - x.n,
                remaining = case when t.quantity is null then null else greatest(0, t.quantity - (t.handed_out - x.n)) end
              from per_tier x
              where t.id = x.tier_id and t.id in (select id from locked)
              returning t.id
            )
            select (select count(*) from exp) as expired, (select count(*) from freed) as freed, (select count(*) from back) as tiers`,
      );
      return num(row?.expired);
    } catch (e) {
      // two sweeps giving stock back to the same tiers in a different order: Postgres aborts one
      // of them (nothing of it happened); run it again
      if (pgError(e)?.code === '40P01' && attempt < 5) continue;
      throw e;
    }
  }
}
