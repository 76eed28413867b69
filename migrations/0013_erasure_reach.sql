CREATE INDEX "events_data_idx" ON "events" USING gin ("data" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "webhook_receipts_entry_idx" ON "webhook_receipts" USING btree ("contest_id",("response" -> 'data' ->> 'entryId')) WHERE ("webhook_receipts"."response" -> 'data' ->> 'email') is not null;--> statement-breakpoint
-- An email's alias counter (risk_windows, kind 'email', keyed by the normalised address) goes when
-- no entry of the contest has that address any more (the entry was erased, deleted, or changed
-- its email): erasure must not leave the address behind in a counter. (Two statements: a row
-- updated by a CTE cannot be deleted by the same statement.)
CREATE OR REPLACE FUNCTION risk_windows_entries_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE risk_windows w SET n = greatest(w.n - d.n, 0)
  FROM (SELECT contest_id, email_norm, count(*) AS n FROM old_rows WHERE email_norm IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2) d
  WHERE w.contest_id = d.contest_id AND w.kind = 'email' AND w.key = d.email_norm;
  DELETE FROM risk_windows w
  USING (SELECT DISTINCT contest_id, email_norm FROM old_rows WHERE email_norm IS NOT NULL) d
  WHERE w.contest_id = d.contest_id AND w.kind = 'email' AND w.key = d.email_norm AND w.n = 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION risk_windows_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
-- the counters of addresses no entry has any more (erased before this migration)
DELETE FROM risk_windows WHERE kind = 'email' AND n <= 0;
