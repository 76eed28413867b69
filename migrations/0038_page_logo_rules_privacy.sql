ALTER TABLE "contests" ADD COLUMN "logo_url" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "rules_url" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "privacy_url" text;