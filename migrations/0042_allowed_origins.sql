ALTER TABLE "contests" ADD COLUMN "allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "return_url" text;