-- Analytics' totalBonusCompletions counts completions that count: verified ones. A completion of
-- a manual action waiting for the team's decision (pending), or refused (rejected), is not one.
-- The counters follow the status as it changes (pending -> verified | rejected, rejected -> pending
-- when the entry completes the action again).
CREATE OR REPLACE FUNCTION contest_stats_bonus_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT n.contest_id, (txid_current() % 16)::int, count(*) FROM new_rows n WHERE n.status = 'verified' GROUP BY n.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contest_stats_bonus_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
  SELECT o.contest_id, (txid_current() % 16)::int, -count(*) FROM old_rows o
  WHERE o.status = 'verified' AND EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY o.contest_id
  ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = s.bonus_completions + excluded.bonus_completions;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION contest_stats_bonus_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE TRIGGER bonus_completions_stats_update AFTER UPDATE ON bonus_completions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION contest_stats_bonus_update();
--> statement-breakpoint
-- the counters of the completions that exist already
UPDATE contest_stats SET bonus_completions = 0 WHERE slot <> 0;
--> statement-breakpoint
INSERT INTO contest_stats AS s (contest_id, slot, bonus_completions)
SELECT c.id, 0, (SELECT count(*) FROM bonus_completions b WHERE b.contest_id = c.id AND b.status = 'verified')
FROM contests c
ON CONFLICT (contest_id, slot) DO UPDATE SET bonus_completions = excluded.bonus_completions;
