-- Exact per-contest totals (contest_stats), kept by statement-level triggers with transition
-- tables: one upsert per contest per statement, in the same transaction as the change. A
-- transaction always writes the same slot (txid % 16), so concurrent writers of one contest
-- spread over 16 rows and no transaction holds two slots of one contest (no lock-order deadlock).
CREATE FUNCTION contest_stats_entries_insert() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE FUNCTION contest_stats_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE FUNCTION contest_stats_entries_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE FUNCTION contest_stats_bonus_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT n.contest_id, (txid_current() % 16)::int, count(*) FROM new_rows n GROUP BY n.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION contest_stats_bonus_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT o.contest_id, (txid_current() % 16)::int, -count(*) FROM old_rows o
  WHERE EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY o.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER entries_stats_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_entries_insert();
--> statement-breakpoint
CREATE TRIGGER entries_stats_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_entries_update();
--> statement-breakpoint
CREATE TRIGGER entries_stats_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_entries_delete();
--> statement-breakpoint
CREATE TRIGGER bonus_completions_stats_insert AFTER INSERT ON bonus_completions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_bonus_insert();
--> statement-breakpoint
CREATE TRIGGER bonus_completions_stats_delete AFTER DELETE ON bonus_completions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_bonus_delete();
--> statement-breakpoint
-- totals of the rows that exist already
INSERT INTO contest_stats (contest_id, slot, entries, confirmed, disqualified, points_total, bonus_completions)
SELECT c.id, 0,
  (SELECT count(*) FROM entries e WHERE e.contest_id = c.id),
  (SELECT count(*) FROM entries e WHERE e.contest_id = c.id AND e.email_confirmed),
  (SELECT count(*) FROM entries e WHERE e.contest_id = c.id AND e.disqualified),
  (SELECT coalesce(sum(points), 0) FROM entries e WHERE e.contest_id = c.id),
  (SELECT count(*) FROM bonus_completions b WHERE b.contest_id = c.id)
FROM contests c
ON CONFLICT (contest_id, slot) DO NOTHING;
