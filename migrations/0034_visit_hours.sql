CREATE TABLE "visit_hours" (
	"entry_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "visit_hours_entry_id_hour_pk" PRIMARY KEY("entry_id","hour")
);
--> statement-breakpoint
ALTER TABLE "visit_hours" ADD CONSTRAINT "visit_hours_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- the visits folded so far, per referrer and UTC hour (what ce_fold_visits keeps from now on)
INSERT INTO "visit_hours" ("entry_id", "hour", "n")
SELECT v."entry_id", date_trunc('hour', v."created_at", 'UTC'), count(*)
FROM "link_visits" v
WHERE v."created_at" < (SELECT f."until" FROM "visit_fold" f WHERE f."id" = 1)
  AND EXISTS (SELECT 1 FROM "entries" e WHERE e."id" = v."entry_id")
GROUP BY 1, 2;
