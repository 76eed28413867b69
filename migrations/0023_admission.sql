CREATE TABLE "admissions" (
	"contest_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"entry_ids" uuid[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "admissions_contest_id_idempotency_key_pk" PRIMARY KEY("contest_id","idempotency_key")
);
--> statement-breakpoint
ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_kind_ck";--> statement-breakpoint
DROP INDEX "entries_position_idx";--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "admissions" ADD CONSTRAINT "admissions_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entries_position_idx" ON "entries" USING btree ("contest_id","points","created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified" and "entries"."erased_at" is null and "entries"."admitted_at" is null;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_kind_ck" CHECK ("email_outbox"."kind" in ('confirmation', 'prize', 'status_link', 'winner', 'admitted'));--> statement-breakpoint
-- An admitted entry (a waitlist let it in) leaves the positions of those still waiting: it no
-- longer counts. The position triggers of 0021 learn the new condition, and the totals are rebuilt.
CREATE OR REPLACE FUNCTION position_entries_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL AND admitted_at IS NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT contest_id, points, ce_hour(created_at), count(*) FROM new_rows
  WHERE email_confirmed AND NOT disqualified AND erased_at IS NULL AND admitted_at IS NULL
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION position_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL AND o.admitted_at IS NULL)
            IS DISTINCT FROM (n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL AND n.admitted_at IS NULL)
       OR ((n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL AND n.admitted_at IS NULL)
           AND (o.points, o.created_at, o.contest_id) IS DISTINCT FROM (n.points, n.created_at, n.contest_id))
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT d.contest_id, d.points, d.hour, sum(d.n) FROM (
    SELECT o.contest_id, o.points, ce_hour(o.created_at) AS hour, -1 AS n
    FROM old_rows o WHERE o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL AND o.admitted_at IS NULL
    UNION ALL
    SELECT n.contest_id, n.points, ce_hour(n.created_at), 1
    FROM new_rows n WHERE n.email_confirmed AND NOT n.disqualified AND n.erased_at IS NULL AND n.admitted_at IS NULL
  ) d
  GROUP BY 1, 2, 3
  HAVING sum(d.n) <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION position_entries_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO position_deltas (contest_id, points, hour, n)
  SELECT o.contest_id, o.points, ce_hour(o.created_at), -count(*) FROM old_rows o
  WHERE o.email_confirmed AND NOT o.disqualified AND o.erased_at IS NULL AND o.admitted_at IS NULL
    AND EXISTS (SELECT 1 FROM contests c WHERE c.id = o.contest_id)
  GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- no entry is admitted yet: the totals stand as they are (the new column is null everywhere)
SELECT 1;
