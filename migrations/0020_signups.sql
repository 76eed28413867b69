CREATE TABLE "entry_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"entry_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_kind_ck";--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "public_signup" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "consent_text" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "landing_url" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "bot_check" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "bonus_actions_need_entry_token" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "consented_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "consent_text_sha256" text;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "status_link_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "entry_tokens" ADD CONSTRAINT "entry_tokens_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entry_tokens_entry_idx" ON "entry_tokens" USING btree ("entry_id");--> statement-breakpoint
ALTER TABLE "contests" ADD CONSTRAINT "contests_bot_check_ck" CHECK ("contests"."bot_check" in ('off', 'turnstile'));--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_kind_ck" CHECK ("email_outbox"."kind" in ('confirmation', 'prize', 'status_link'));