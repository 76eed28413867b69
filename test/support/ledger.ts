/**
 * The points ledger as the tests read it: an entry's rows, and the entries whose total differs
 * from the sum of their ledger (always none; every test of a feature that moves points asks).
 */
import { sql } from 'drizzle-orm';
import { type Db, iso, num, query } from '../../src/db/client.js';
import { isUuid } from '../../src/lib/crypto.js';
import type { PointsSource } from '../../src/sql/points.js';

export interface LedgerRow {
  id: string;
  delta: number;
  requestedDelta: number;
  source: PointsSource;
  reason: string;
  refId: string | null;
  createdAt: string | null;
}

/** An entry's ledger, oldest first (tests and audits). */
export async function getLedger(db: Db, entryId: string): Promise<LedgerRow[]> {
  if (!isUuid(entryId)) return [];
  const rows = await query<{
    id: string;
    delta: number;
    requested_delta: number;
    source: PointsSource;
    reason: string;
    ref_id: string | null;
    created_at: Date;
  }>(
    db,
    sql`select id, delta, requested_delta, source, reason, ref_id, created_at
        from points_ledger where entry_id = ${entryId} order by created_at, id`,
  );
  return rows.map((r) => ({
    id: r.id,
    delta: num(r.delta),
    requestedDelta: num(r.requested_delta),
    source: r.source,
    reason: r.reason,
    refId: r.ref_id,
    createdAt: iso(r.created_at),
  }));
}

/**
 * Entries of a contest whose total differs from the sum of their ledger (should always be
 * empty; used by tests of every feature that moves points).
 */
export async function ledgerMismatches(
  db: Db,
  contestId: string,
): Promise<{ entryId: string; points: number; ledgerSum: number }[]> {
  const rows = await query<{ id: string; points: number; ledger_sum: string | number }>(
    db,
    sql`select e.id, e.points, coalesce(l.s, 0) as ledger_sum
        from entries e left join (select entry_id, sum(delta) as s from points_ledger group by entry_id) l on l.entry_id = e.id
        where e.contest_id = ${contestId} and e.points <> coalesce(l.s, 0)`,
  );
  return rows.map((r) => ({ entryId: r.id, points: num(r.points), ledgerSum: num(r.ledger_sum) }));
}
