CREATE TABLE "series_filled" (
	"owner_id" uuid PRIMARY KEY NOT NULL,
	"until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "series_hours" (
	"owner_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "series_hours_owner_id_hour_metric_pk" PRIMARY KEY("owner_id","hour","metric")
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "series_filled" ADD CONSTRAINT "series_filled_owner_id_contests_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "series_hours" ADD CONSTRAINT "series_hours_owner_id_contests_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bonus_completions_contest_time_idx" ON "bonus_completions" USING btree ("contest_id","completed_at");--> statement-breakpoint
CREATE INDEX "bonus_completions_pending_idx" ON "bonus_completions" USING btree ("contest_id","completed_at") WHERE "bonus_completions"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "entries_contest_confirmed_idx" ON "entries" USING btree ("contest_id","confirmed_at") WHERE "entries"."confirmed_at" is not null;