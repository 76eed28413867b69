ALTER TABLE "instant_win_tiers" ADD COLUMN "handed_out" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "iw_plays_game_status_idx" ON "instant_win_plays" USING btree ("game_id","status","created_at");--> statement-breakpoint
ALTER TABLE "instant_win_tiers" ADD CONSTRAINT "iw_tiers_handed_out_ck" CHECK ("instant_win_tiers"."handed_out" >= 0);