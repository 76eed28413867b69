CREATE TABLE "position_deltas" (
	"contest_id" uuid NOT NULL,
	"points" integer NOT NULL,
	"hour" bigint NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "position_hours" (
	"contest_id" uuid NOT NULL,
	"points" integer NOT NULL,
	"hour" bigint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "position_hours_contest_id_points_hour_pk" PRIMARY KEY("contest_id","points","hour")
);
--> statement-breakpoint
CREATE TABLE "position_points" (
	"contest_id" uuid NOT NULL,
	"points" integer NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "position_points_contest_id_points_pk" PRIMARY KEY("contest_id","points")
);
--> statement-breakpoint
ALTER TABLE "position_deltas" ADD CONSTRAINT "position_deltas_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "position_hours" ADD CONSTRAINT "position_hours_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "position_points" ADD CONSTRAINT "position_points_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "position_deltas_idx" ON "position_deltas" USING btree ("contest_id","points","hour");--> statement-breakpoint
CREATE INDEX "entries_position_idx" ON "entries" USING btree ("contest_id","points","created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified" and "entries"."erased_at" is null;--> statement-breakpoint
-- Exact positions (src/sql/positions.ts). An entry counts when its email is confirmed, it is not
-- disqualified and not erased. The statement-level triggers below append one delta row per
-- (contest, points, hour of joining) a statement changed: insert-only, so no write ever waits on
-- another for a counter and no two can deadlock on one. The every-minute job folds the deltas
-- into position_points and position_hours (ce_fold_positions, one job at a time).
CREATE FUNCTION ce_hour(t timestamptz) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor(extract(epoch FROM t) / 3600)::bigint
$$;
--> statement-breakpoint
CREATE FUNCTION position_entries_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT contest_id, points, ce_hour(created_at), count(*) FROM new_rows
  WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION position_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- most updates change nothing a position depends on (a name, a risk review...): look first
  IF NOT EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL)
            IS DISTINCT FROM (n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL)
       OR ((n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL)
           AND (o.points, o.created_at, o.contest_id) IS DISTINCT FROM (n.points, n.created_at, n.contest_id))
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT d.contest_id, d.points, d.hour, sum(d.n) FROM (
    SELECT o.contest_id, o.points, ce_hour(o.created_at) AS hour, -1 AS n
    FROM old_rows o WHERE o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL
    UNION ALL
    SELECT n.contest_id, n.points, ce_hour(n.created_at), 1
    FROM new_rows n WHERE n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL
  ) d
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION position_entries_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- rows deleted by the cascade of a contest's deletion have no contest to count for
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT o.contest_id, o.points, ce_hour(o.created_at), -count(*) FROM old_rows o
  WHERE o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL
    AND EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER entries_position_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION position_entries_insert();
--> statement-breakpoint
CREATE TRIGGER entries_position_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION position_entries_update();
--> statement-breakpoint
CREATE TRIGGER entries_position_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION position_entries_delete();
--> statement-breakpoint
-- Folds the deltas into the totals: one fold at a time (a transaction-scoped advisory lock; a
-- second caller returns at once). Deltas appended meanwhile are not seen and stay for the next.
-- Answers how many delta rows it folded.
CREATE FUNCTION ce_fold_positions() RETURNS bigint LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE INDEX position_points_zero_idx ON position_points (contest_id) WHERE n = 0;
--> statement-breakpoint
CREATE INDEX position_hours_zero_idx ON position_hours (contest_id) WHERE n = 0;
--> statement-breakpoint
-- the entries that count already
INSERT INTO position_points (contest_id, points, n)
SELECT contest_id, points, count(*) FROM entries
WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO position_hours (contest_id, points, hour, n)
SELECT contest_id, points, ce_hour(created_at), count(*) FROM entries
WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL GROUP BY 1, 2, 3;
