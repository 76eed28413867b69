-- A waitlist's leaderboard is its queue: entries let in (admitted_at) leave it, as they leave the
-- positions. The leaderboard's two indexes leave them out too, so that reading the top never walks
-- past everyone already let in.
DROP INDEX "entries_leaderboard_points_idx";--> statement-breakpoint
DROP INDEX "entries_leaderboard_commission_idx";--> statement-breakpoint
CREATE INDEX "entries_leaderboard_points_idx" ON "entries" USING btree ("contest_id","points" DESC NULLS LAST,"created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified" and "entries"."admitted_at" is null;--> statement-breakpoint
CREATE INDEX "entries_leaderboard_commission_idx" ON "entries" USING btree ("contest_id","commission" DESC NULLS LAST,"created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified" and "entries"."admitted_at" is null;