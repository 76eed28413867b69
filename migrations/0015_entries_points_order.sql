DROP INDEX "entries_contest_points_idx";--> statement-breakpoint
CREATE INDEX "entries_contest_points_idx" ON "entries" USING btree ("contest_id","points" DESC NULLS LAST,"created_at","id");