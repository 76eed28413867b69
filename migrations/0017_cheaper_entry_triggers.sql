-- The email counters of risk_windows follow an entry's email. Most updates of entries change its
-- points (a referral credited, a bonus action, a purchase) and never its email, yet the statement
-- trigger ran its insert and its delete for them (0.2 ms of every such write, measured with
-- auto_explain). It now looks first, and writes only when some row's normalised email changed.
CREATE OR REPLACE FUNCTION risk_windows_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE o.email_norm IS DISTINCT FROM n.email_norm) THEN
    RETURN NULL;
  END IF;
  -- an email changed (or was erased): the old normalised email loses one entry, the new one gains one
  INSERT INTO risk_windows AS w (contest_id, kind, key, n)
  SELECT d.contest_id, 'email', d.key, sum(d.n)
  FROM (
    SELECT o.contest_id, o.email_norm AS key, -1 AS n FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.email_norm IS DISTINCT FROM n.email_norm AND o.email_norm IS NOT NULL
    UNION ALL
    SELECT n.contest_id, n.email_norm, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.email_norm IS DISTINCT FROM n.email_norm AND n.email_norm IS NOT NULL
  ) d
  GROUP BY d.contest_id, d.key
  ORDER BY d.contest_id, d.key
  ON CONFLICT (contest_id, kind, key) DO UPDATE SET n = greatest(w.n + excluded.n, 0);
  DELETE FROM risk_windows w
  USING (SELECT DISTINCT o.contest_id, o.email_norm FROM old_rows o JOIN new_rows n ON n.id = o.id
         WHERE o.email_norm IS DISTINCT FROM n.email_norm AND o.email_norm IS NOT NULL) d
  WHERE w.contest_id = d.contest_id AND w.kind = 'email' AND w.key = d.email_norm AND w.n = 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- SQL functions whose body has a FROM clause cannot be inlined: Postgres then parses and plans
-- the body again in every statement that calls them (a prepared statement does not keep it).
-- ce_email_norm runs in every insert and every update of entries (the generated column
-- email_norm is recomputed on each update), so each entry create, bonus action and purchase
-- paid a parse and a plan for it. The same expressions, written as one, are inlined; the results
-- are identical (test/risk-signals.test.ts compares them on a table of addresses).
CREATE OR REPLACE FUNCTION ce_email_norm(e text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN e IS NULL OR position('@' IN e) = 0 THEN lower(e)
    WHEN split_part(lower(e), '@', 2) IN ('gmail.com', 'googlemail.com')
      THEN replace(split_part(split_part(lower(e), '@', 1), '+', 1), '.', '') || '@gmail.com'
    ELSE split_part(split_part(lower(e), '@', 1), '+', 1) || '@' || split_part(lower(e), '@', 2)
  END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION ce_mask_name(n text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n IS NULL THEN NULL
    WHEN cardinality(regexp_split_to_array(btrim(n), '\s+')) < 2 THEN n
    ELSE (regexp_split_to_array(btrim(n), '\s+'))[1] || ' '
      || left((regexp_split_to_array(btrim(n), '\s+'))[cardinality(regexp_split_to_array(btrim(n), '\s+'))], 1) || '.' END
$$;
--> statement-breakpoint
-- The velocity window (subqueries, so never inlined) as PL/pgSQL, whose statement plans are kept
-- for the session: the same result without a parse and a plan on each entry counted.
CREATE OR REPLACE FUNCTION ce_window_push(old timestamptz[], add timestamptz[]) RETURNS timestamptz[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (
    SELECT coalesce(array_agg(t ORDER BY t), '{}')
    FROM (
      SELECT t FROM unnest(old || add) t
      WHERE t > (SELECT max(m) FROM unnest(old || add) m) - interval '1 hour'
      ORDER BY t DESC LIMIT 1001
    ) s
  );
END $$;
