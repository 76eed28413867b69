ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_kind_ck";--> statement-breakpoint
ALTER TABLE "draw_results" ADD COLUMN "notified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "draws" ADD COLUMN "notify_winners" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_kind_ck" CHECK ("email_outbox"."kind" in ('confirmation', 'prize', 'status_link', 'winner'));