CREATE TABLE "referral_counts" (
	"contest_id" uuid NOT NULL,
	"referrer_id" uuid NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "referral_counts_contest_id_referrer_id_pk" PRIMARY KEY("contest_id","referrer_id")
);
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "referral_counts" ADD CONSTRAINT "referral_counts_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "referral_counts_top_idx" ON "referral_counts" USING btree ("contest_id","n" DESC NULLS LAST,"referrer_id");--> statement-breakpoint
CREATE INDEX "entries_contest_referred_idx" ON "entries" USING btree ("contest_id","created_at","referred_by") WHERE "entries"."referred_by" is not null;--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_source_ck" CHECK ("entries"."source" in ('api', 'signup', 'instant_win', 'webhook'));--> statement-breakpoint
-- the series keeps per-hour counts; it now also counts sign-ups by source and referred
-- confirmations (the funnel): contests' kept hours are dropped, the next read counts them again
DELETE FROM "series_hours" WHERE "owner_id" IN (SELECT "id" FROM "contests" WHERE "tool_type" IS DISTINCT FROM 'instant_win');--> statement-breakpoint
DELETE FROM "series_filled" WHERE "owner_id" IN (SELECT "id" FROM "contests" WHERE "tool_type" IS DISTINCT FROM 'instant_win');
--> statement-breakpoint
-- no just-in-time compilation of plans in this database: our statements are short, and a plan
-- whose estimated cost passes jit_above_cost (the funnel's, at a million entries) spent 1.1 s
-- compiling to run in 40 ms. A role without the right to change its database keeps the server's
-- setting (a notice says so); sessions opened from now on take it.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'jit stays as the server sets it: %', SQLERRM;
END
$$;
