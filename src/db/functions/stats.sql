-- Contest statistics: contest_stats, counters per contest and slot (entries, confirmed,
-- disqualified, points, referred, bonus completions), kept by statement-level triggers so that
-- the analytics and the console never count rows.
-- Triggers: entries_stats_insert/update/delete (ON entries), bonus_completions_stats_insert/
-- update/delete (ON bonus_completions).
-- Relied on by: GET /contests/{id}/analytics (src/analytics/analytics.ts), the contest view's and
-- the console's counts (src/console/stats.ts).

-- ce:function
-- Exact per-contest totals (contest_stats), kept by statement-level triggers with transition
-- tables: one upsert per contest per statement, in the same transaction as the change. A
-- transaction always writes the same slot (txid % 16), so concurrent writers of one contest
-- spread over 16 rows and no transaction holds two slots of one contest (no lock-order deadlock).
CREATE OR REPLACE FUNCTION entries_stats_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, entries, confirmed, disqualified, points_total)
  SELECT n.contest_id, (txid_current() % 16)::int, count(*),
         count(*) FILTER (WHERE n.email_confirmed), count(*) FILTER (WHERE n.disqualified), coalesce(sum(n.points), 0)
  FROM new_rows n GROUP BY n.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET
    entries = s.entries + excluded.entries,
    confirmed = s.confirmed + excluded.confirmed,
    disqualified = s.disqualified + excluded.disqualified,
    points_total = s.points_total + excluded.points_total;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_stats_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_stats_insert();

-- ce:function
CREATE OR REPLACE FUNCTION entries_stats_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, entries, confirmed, disqualified, points_total)
  SELECT d.contest_id, (txid_current() % 16)::int, 0, sum(d.dc), sum(d.dd), sum(d.dp)
  FROM (
    SELECT n.contest_id,
           n.email_confirmed::int - o.email_confirmed::int AS dc,
           n.disqualified::int - o.disqualified::int AS dd,
           n.points::bigint - o.points AS dp
    FROM new_rows n JOIN old_rows o ON o.id = n.id
  ) d
  GROUP BY d.contest_id
  HAVING sum(d.dc) <> 0 OR sum(d.dd) <> 0 OR sum(d.dp) <> 0
  ON CONFLICT (contest_id, slot) DO UPDATE SET
    confirmed = s.confirmed + excluded.confirmed,
    disqualified = s.disqualified + excluded.disqualified,
    points_total = s.points_total + excluded.points_total;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_stats_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_stats_update();

-- ce:function
CREATE OR REPLACE FUNCTION entries_stats_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  -- rows deleted by the cascade of a contest's deletion have no contest to count for
  INSERT INTO contest_stats AS s (contest_id, slot, entries, confirmed, disqualified, points_total)
  SELECT o.contest_id, (txid_current() % 16)::int, -count(*),
         -count(*) FILTER (WHERE o.email_confirmed), -count(*) FILTER (WHERE o.disqualified), -coalesce(sum(o.points), 0)
  FROM old_rows o
  WHERE EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY o.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET
    entries = s.entries + excluded.entries,
    confirmed = s.confirmed + excluded.confirmed,
    disqualified = s.disqualified + excluded.disqualified,
    points_total = s.points_total + excluded.points_total;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_stats_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_stats_delete();

-- ce:function
-- Analytics' totalBonusCompletions counts completions that count: verified ones. A completion of
-- a manual action waiting for the team's decision (pending), or refused (rejected), is not one.
-- The counters follow the status as it changes (pending -> verified | rejected, rejected -> pending
-- when the entry completes the action again).
CREATE OR REPLACE FUNCTION bonus_completions_stats_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT n.contest_id, (txid_current() % 16)::int, count(*) FROM new_rows n WHERE n.status = 'verified' GROUP BY n.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER bonus_completions_stats_insert AFTER INSERT ON bonus_completions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bonus_completions_stats_insert();

-- ce:function
CREATE OR REPLACE FUNCTION bonus_completions_stats_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT d.contest_id, (txid_current() % 16)::int, sum(d.delta)
  FROM (
    SELECT n.contest_id, 1 AS delta FROM new_rows n WHERE n.status = 'verified'
    UNION ALL
    SELECT o.contest_id, -1 FROM old_rows o WHERE o.status = 'verified'
  ) d
  GROUP BY d.contest_id
  HAVING sum(d.delta) <> 0
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER bonus_completions_stats_update AFTER UPDATE ON bonus_completions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bonus_completions_stats_update();

-- ce:function
CREATE OR REPLACE FUNCTION bonus_completions_stats_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT o.contest_id, (txid_current() % 16)::int, -count(*) FROM old_rows o
  WHERE o.status = 'verified' AND EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY o.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER bonus_completions_stats_delete AFTER DELETE ON bonus_completions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bonus_completions_stats_delete();
