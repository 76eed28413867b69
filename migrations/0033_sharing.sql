CREATE TABLE "link_shares" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "link_shares_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contest_id" uuid NOT NULL,
	"entry_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_shares_channel_ck" CHECK (channel in ('x', 'facebook', 'linkedin', 'whatsapp', 'telegram', 'reddit', 'email', 'sms', 'copy', 'native'))
);
--> statement-breakpoint
CREATE TABLE "link_visits" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "link_visits_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contest_id" uuid NOT NULL,
	"entry_id" uuid NOT NULL,
	"channel" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_visits_channel_ck" CHECK ("link_visits"."channel" is null or channel in ('x', 'facebook', 'linkedin', 'whatsapp', 'telegram', 'reddit', 'email', 'sms', 'copy', 'native'))
);
--> statement-breakpoint
CREATE TABLE "visit_counts" (
	"entry_id" uuid PRIMARY KEY NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_fold" (
	"id" smallint PRIMARY KEY NOT NULL,
	"until" timestamp with time zone NOT NULL,
	CONSTRAINT "visit_fold_one_ck" CHECK ("visit_fold"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "image_url" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "share_message" text DEFAULT 'Join me: {{link}}' NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "share_channels" text[] DEFAULT '{x,facebook,linkedin,whatsapp,email}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "theme" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "channel" text;--> statement-breakpoint
ALTER TABLE "visit_counts" ADD CONSTRAINT "visit_counts_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_shares_entry_idx" ON "link_shares" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "link_shares_contest_idx" ON "link_shares" USING btree ("contest_id","created_at");--> statement-breakpoint
CREATE INDEX "link_visits_entry_idx" ON "link_visits" USING btree ("entry_id","created_at");--> statement-breakpoint
CREATE INDEX "link_visits_contest_idx" ON "link_visits" USING btree ("contest_id","created_at");--> statement-breakpoint
CREATE INDEX "link_visits_created_brin" ON "link_visits" USING brin ("created_at");--> statement-breakpoint
ALTER TABLE "contests" ADD CONSTRAINT "contests_share_message_ck" CHECK (char_length("contests"."share_message") <= 280);--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_channel_ck" CHECK ("entries"."channel" is null or "entries"."channel" in ('x', 'facebook', 'linkedin', 'whatsapp', 'telegram', 'reddit', 'email', 'sms', 'copy', 'native'));--> statement-breakpoint
INSERT INTO "visit_fold" ("id", "until") VALUES (1, '-infinity');
