-- Exact positions at any size (docs/design-decisions.md, "Exact positions").
-- Triggers on entries (AFTER INSERT, UPDATE, DELETE, per statement): entries_position_insert,
-- entries_position_update, entries_position_delete append to position_deltas how many counting
-- entries (confirmed, not disqualified, not erased, not admitted) each (points, hour) gained or
-- lost; ce_fold_positions (the every-minute job, src/jobs.ts) folds them into position_points and
-- position_hours.
-- Relied on by: sqlPosition and sqlCountingTotal (src/sql/positions.ts): /me, the sign-up's
-- answer, the entry's detail, the "your link" email.

-- ce:function
-- Folds the deltas into the totals: one fold at a time (a transaction-scoped advisory lock; a
-- second caller returns at once). Deltas appended meanwhile are not seen and stay for the next.
-- Answers how many delta rows it folded.
CREATE OR REPLACE FUNCTION ce_fold_positions()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
DECLARE folded bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(7340021) THEN
    RETURN 0;
  END IF;
  WITH gone AS (DELETE FROM position_deltas RETURNING contest_id, points, hour, n),
  f AS (SELECT contest_id, points, hour, sum(n) AS n FROM gone GROUP BY 1, 2, 3),
  p AS (
    INSERT INTO position_points AS p (contest_id, points, n)
    SELECT contest_id, points, sum(n) FROM f GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (contest_id, points) DO UPDATE SET n = p.n + excluded.n
    RETURNING 1
  ), h AS (
    INSERT INTO position_hours AS h (contest_id, points, hour, n)
    SELECT contest_id, points, hour, n FROM f ORDER BY 1, 2, 3
    ON CONFLICT (contest_id, points, hour) DO UPDATE SET n = h.n + excluded.n
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM f) + 0 * (SELECT count(*) FROM p) + 0 * (SELECT count(*) FROM h) INTO folded;
  -- totals that came back to zero (a partial index finds them)
  DELETE FROM position_points WHERE n = 0;
  DELETE FROM position_hours WHERE n = 0;
  RETURN folded;
END $function$;

-- ce:function
-- "Who counts" for positions and the leaderboard: the email confirmed, not disqualified, not
-- erased, not admitted (a waitlist's admitted entries leave the queue). sqlCounts
-- (src/sql/positions.ts) writes it into the statements, as these triggers do; one SELECT, inlined
-- by the planner, so the partial index entries_position_idx still answers.
CREATE OR REPLACE FUNCTION ce_counts(email_confirmed boolean, disqualified boolean, erased_at timestamp with time zone, admitted_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT email_confirmed AND NOT disqualified AND erased_at IS NULL AND admitted_at IS NULL
$function$;

-- ce:function
-- Exact positions (src/sql/positions.ts). An entry counts when its email is confirmed, it is not
-- disqualified and not erased. The statement-level triggers below append one delta row per
-- (contest, points, hour of joining) a statement changed: insert-only, so no write ever waits on
-- another for a counter and no two can deadlock on one. The every-minute job folds the deltas
-- into position_points and position_hours (ce_fold_positions, one job at a time).

-- A time's hour as whole hours since 1970: the key of position_hours and position_deltas.
CREATE OR REPLACE FUNCTION ce_hour(t timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT floor(extract(epoch FROM t) / 3600)::bigint
$function$;

-- ce:function
CREATE OR REPLACE FUNCTION entries_position_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT o.contest_id, o.points, ce_hour(o.created_at), -count(*) FROM old_rows o
  WHERE ce_counts(o.email_confirmed, o.disqualified, o.erased_at, o.admitted_at)
    AND EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_position_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_position_delete();

-- ce:function
-- An admitted entry (a waitlist let it in) leaves the positions of those still waiting: it no
-- longer counts. The position triggers of 0021 learn the new condition, and the totals are rebuilt.
CREATE OR REPLACE FUNCTION entries_position_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE ce_counts(email_confirmed, disqualified, erased_at, admitted_at)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT contest_id, points, ce_hour(created_at), count(*) FROM new_rows
  WHERE ce_counts(email_confirmed, disqualified, erased_at, admitted_at)
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_position_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_position_insert();

-- ce:function
CREATE OR REPLACE FUNCTION entries_position_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE ce_counts(o.email_confirmed, o.disqualified, o.erased_at, o.admitted_at)
            IS DISTINCT FROM ce_counts(n.email_confirmed, n.disqualified, n.erased_at, n.admitted_at)
       OR (ce_counts(n.email_confirmed, n.disqualified, n.erased_at, n.admitted_at)
           AND (o.points, o.created_at, o.contest_id) IS DISTINCT FROM (n.points, n.created_at, n.contest_id))
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT d.contest_id, d.points, d.hour, sum(d.n) FROM (
    SELECT o.contest_id, o.points, ce_hour(o.created_at) AS hour, -1 AS n
    FROM old_rows o WHERE ce_counts(o.email_confirmed, o.disqualified, o.erased_at, o.admitted_at)
    UNION ALL
    SELECT n.contest_id, n.points, ce_hour(n.created_at), 1
    FROM new_rows n WHERE ce_counts(n.email_confirmed, n.disqualified, n.erased_at, n.admitted_at)
  ) d
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_position_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_position_update();
