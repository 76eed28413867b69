ALTER TABLE "entries" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
CREATE INDEX "entries_contest_referred_idx" ON "entries" USING btree ("contest_id","created_at","referred_by") WHERE "entries"."referred_by" is not null;--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_source_ck" CHECK ("entries"."source" in ('api', 'signup', 'instant_win', 'webhook'));--> statement-breakpoint
-- the series keeps per-hour counts; it now also counts sign-ups by source and referred
-- confirmations (the funnel): contests' kept hours are dropped, the next read counts them again
DELETE FROM "series_hours" WHERE "owner_id" IN (SELECT "id" FROM "contests" WHERE "tool_type" IS DISTINCT FROM 'instant_win');--> statement-breakpoint
DELETE FROM "series_filled" WHERE "owner_id" IN (SELECT "id" FROM "contests" WHERE "tool_type" IS DISTINCT FROM 'instant_win');
