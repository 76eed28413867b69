CREATE TABLE "email_texts" (
	"contest_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "email_texts_contest_id_kind_pk" PRIMARY KEY("contest_id","kind"),
	CONSTRAINT "email_texts_kind_ck" CHECK ("email_texts"."kind" in ('confirmation', 'status-link', 'reward', 'admitted', 'winner'))
);
--> statement-breakpoint
CREATE TABLE "reward_codes" (
	"reward_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"code" text NOT NULL,
	"unlock_id" uuid,
	"given_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reward_codes_reward_id_seq_pk" PRIMARY KEY("reward_id","seq")
);
--> statement-breakpoint
CREATE TABLE "reward_unlocks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"reward_id" uuid NOT NULL,
	"contest_id" uuid NOT NULL,
	"entry_id" uuid,
	"unlocked_at" timestamp with time zone NOT NULL,
	"code_pending" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rewards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"contest_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"referrals_required" integer,
	"points_required" integer,
	"kind" text NOT NULL,
	"code" text,
	"codes_total" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "rewards_kind_ck" CHECK ("rewards"."kind" in ('codes', 'code', 'none')),
	CONSTRAINT "rewards_threshold_ck" CHECK (("rewards"."referrals_required" is null) <> ("rewards"."points_required" is null) and coalesce("rewards"."referrals_required", "rewards"."points_required") >= 1),
	CONSTRAINT "rewards_code_ck" CHECK (("rewards"."kind" = 'code') = ("rewards"."code" is not null)),
	CONSTRAINT "rewards_codes_total_ck" CHECK ("rewards"."codes_total" >= 0 and ("rewards"."kind" = 'codes' or "rewards"."codes_total" = 0))
);
--> statement-breakpoint
ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_kind_ck";--> statement-breakpoint
ALTER TABLE "email_texts" ADD CONSTRAINT "email_texts_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_codes" ADD CONSTRAINT "reward_codes_reward_id_rewards_id_fk" FOREIGN KEY ("reward_id") REFERENCES "public"."rewards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_codes" ADD CONSTRAINT "reward_codes_unlock_id_reward_unlocks_id_fk" FOREIGN KEY ("unlock_id") REFERENCES "public"."reward_unlocks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_unlocks" ADD CONSTRAINT "reward_unlocks_reward_id_rewards_id_fk" FOREIGN KEY ("reward_id") REFERENCES "public"."rewards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_unlocks" ADD CONSTRAINT "reward_unlocks_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_unlocks" ADD CONSTRAINT "reward_unlocks_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rewards" ADD CONSTRAINT "rewards_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reward_codes_reward_code_uq" ON "reward_codes" USING btree ("reward_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "reward_codes_unlock_uq" ON "reward_codes" USING btree ("unlock_id") WHERE "reward_codes"."unlock_id" is not null;--> statement-breakpoint
CREATE INDEX "reward_codes_free_idx" ON "reward_codes" USING btree ("reward_id","seq") WHERE "reward_codes"."given_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "reward_unlocks_reward_entry_uq" ON "reward_unlocks" USING btree ("reward_id","entry_id");--> statement-breakpoint
CREATE INDEX "reward_unlocks_entry_idx" ON "reward_unlocks" USING btree ("entry_id") WHERE "reward_unlocks"."entry_id" is not null;--> statement-breakpoint
CREATE INDEX "reward_unlocks_reward_idx" ON "reward_unlocks" USING btree ("reward_id","unlocked_at","id");--> statement-breakpoint
CREATE INDEX "reward_unlocks_pending_idx" ON "reward_unlocks" USING btree ("reward_id","unlocked_at","id") WHERE "reward_unlocks"."code_pending" and "reward_unlocks"."entry_id" is not null;--> statement-breakpoint
CREATE INDEX "rewards_contest_idx" ON "rewards" USING btree ("contest_id") WHERE "rewards"."deleted_at" is null;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_kind_ck" CHECK ("email_outbox"."kind" in ('confirmation', 'prize', 'status_link', 'winner', 'admitted', 'reward'));