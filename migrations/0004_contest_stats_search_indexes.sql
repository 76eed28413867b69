CREATE TABLE "contest_stats" (
	"contest_id" uuid NOT NULL,
	"slot" integer NOT NULL,
	"entries" bigint DEFAULT 0 NOT NULL,
	"confirmed" bigint DEFAULT 0 NOT NULL,
	"disqualified" bigint DEFAULT 0 NOT NULL,
	"points_total" bigint DEFAULT 0 NOT NULL,
	"bonus_completions" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "contest_stats_contest_id_slot_pk" PRIMARY KEY("contest_id","slot")
);
--> statement-breakpoint
ALTER TABLE "contest_stats" ADD CONSTRAINT "contest_stats_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entries_contest_points_idx" ON "entries" USING btree ("contest_id","points");--> statement-breakpoint
CREATE INDEX "entries_email_trgm_idx" ON "entries" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "entries_name_trgm_idx" ON "entries" USING gin ("name" gin_trgm_ops);