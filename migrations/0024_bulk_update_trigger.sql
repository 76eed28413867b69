-- The entries update trigger of the risk windows looked first whether any row's normalised email
-- changed, with NOT EXISTS over a join of the two transition tables. For EXISTS the planner picks
-- the plan with the cheapest first row, a nested loop: an update of N rows compared N x N pairs.
-- Measured with auto_explain when a waitlist let 10,000 entries in at once: 100,000,000 pairs,
-- 9.7 s of the 10.7 s. The same question as a set difference is answered with one hash or sort
-- (old (id, email_norm) pairs that the new rows do not have; EXCEPT treats two nulls as equal,
-- as IS DISTINCT FROM does). The rest of the function is unchanged.
CREATE OR REPLACE FUNCTION risk_windows_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT o.id, o.email_norm FROM old_rows o EXCEPT SELECT n.id, n.email_norm FROM new_rows n) THEN
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
