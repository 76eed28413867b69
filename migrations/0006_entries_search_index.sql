DROP INDEX "entries_email_trgm_idx";--> statement-breakpoint
DROP INDEX "entries_name_trgm_idx";--> statement-breakpoint
CREATE INDEX "entries_search_trgm_idx" ON "entries" USING gin ((coalesce("email", '') || ' ' || coalesce("name", '')) gin_trgm_ops);