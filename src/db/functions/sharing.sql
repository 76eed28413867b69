-- Share links: their visits and share clicks (link_visits, link_shares), and page views
-- (page_views), appended one row each,
-- and each referrer's visits folded into visit_counts (its total) and visit_hours (per UTC hour)
-- by the every-minute job (src/jobs.ts).
-- Triggers: contests_sharing_delete (AFTER DELETE ON contests) removes a deleted contest's
-- visits and share clicks (the tables have no foreign keys: a key check would lock the
-- referrer's row on every visit).
-- Relied on by: POST /contests/{id}/visits and /me/shares (src/signups/sharing.ts), /me's
-- `visits` and `shares` (sqlVisits, src/sql/sharing.ts), the funnel (src/analytics/series.ts),
-- the every-minute job's fold and retention (src/jobs.ts: ce_fold_visits, ce_prune_visits).

-- ce:function
-- Folds the visits made before `p_now` minus a minute (no visit statement that read its clock
-- before then can still commit) into visit_counts and visit_hours, deletes the visits of codes
-- the contest did not have (entry_id null: written only so that any code costs what a real one
-- does), and moves visit_fold.until there. One fold at a time (the row is locked); answers how
-- many visits it folded.
CREATE OR REPLACE FUNCTION ce_fold_visits(p_now timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
DECLARE
  since timestamptz;
  upto timestamptz := p_now - interval '1 minute';
  folded bigint;
BEGIN
  SELECT f.until INTO since FROM visit_fold f WHERE f.id = 1 FOR UPDATE;
  IF since IS NULL THEN
    INSERT INTO visit_fold (id, until) VALUES (1, '-infinity') ON CONFLICT (id) DO NOTHING;
    SELECT f.until INTO since FROM visit_fold f WHERE f.id = 1 FOR UPDATE;
  END IF;
  IF upto <= since THEN RETURN 0; END IF;
  WITH vh AS (
    SELECT x.entry_id, date_trunc('hour', x.created_at, 'UTC') AS hour, count(*) AS n FROM link_visits x
    WHERE x.created_at >= since AND x.created_at < upto
      AND EXISTS (SELECT 1 FROM entries e WHERE e.id = x.entry_id)
    GROUP BY 1, 2
  ), hours AS (
    INSERT INTO visit_hours AS h (entry_id, hour, n)
    SELECT vh.entry_id, vh.hour, vh.n FROM vh
    ON CONFLICT (entry_id, hour) DO UPDATE SET n = h.n + excluded.n
    RETURNING 1
  ), up AS (
    INSERT INTO visit_counts AS c (entry_id, n)
    SELECT vh.entry_id, sum(vh.n) FROM vh GROUP BY vh.entry_id
    ON CONFLICT (entry_id) DO UPDATE SET n = c.n + excluded.n
    RETURNING 1
  )
  SELECT coalesce(sum(vh.n), 0) INTO folded FROM vh;
  DELETE FROM link_visits x WHERE x.entry_id IS NULL AND x.created_at >= since AND x.created_at < upto;
  UPDATE visit_fold SET until = upto WHERE id = 1;
  RETURN folded;
END $function$;

-- ce:function
-- Deletes visits past their retention (made before `p_before`) that every count has kept: the
-- fold (before visit_fold.until: visit_counts, visit_hours) and their contest's time series
-- (before series_filled.until: series_hours); and the page views past it that the series kept.
-- What stays of them is those hours. At most `p_limit` rows of each a call, oldest first;
-- answers how many it deleted.
CREATE OR REPLACE FUNCTION ce_prune_visits(p_before timestamp with time zone, p_limit integer)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
DECLARE
  upto timestamptz := least(p_before, coalesce((SELECT f.until FROM visit_fold f WHERE f.id = 1), '-infinity'));
  gone bigint;
BEGIN
  WITH old AS (
    SELECT x.id FROM link_visits x
    WHERE x.created_at < upto
      AND EXISTS (SELECT 1 FROM series_filled s WHERE s.owner_id = x.contest_id AND s.until > x.created_at)
    ORDER BY x.created_at
    LIMIT p_limit
  ), del AS (
    DELETE FROM link_visits v USING old WHERE v.id = old.id RETURNING 1
  ), old_views AS (
    SELECT x.id FROM page_views x
    WHERE x.created_at < p_before
      AND EXISTS (SELECT 1 FROM series_filled s WHERE s.owner_id = x.contest_id AND s.until > x.created_at)
    ORDER BY x.created_at
    LIMIT p_limit
  ), del_views AS (
    DELETE FROM page_views v USING old_views WHERE v.id = old_views.id RETURNING 1
  )
  SELECT (SELECT count(*) FROM del) + (SELECT count(*) FROM del_views) INTO gone;
  RETURN gone;
END $function$;

-- ce:function
CREATE OR REPLACE FUNCTION contests_sharing_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM link_visits v USING old_rows o WHERE v.contest_id = o.id;
  DELETE FROM link_shares s USING old_rows o WHERE s.contest_id = o.id;
  DELETE FROM page_views p USING old_rows o WHERE p.contest_id = o.id;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER contests_sharing_delete AFTER DELETE ON contests REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contests_sharing_delete();
