CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_keys_type_ck" CHECK ("api_keys"."type" in ('public', 'private'))
);
--> statement-breakpoint
CREATE TABLE "bonus_actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"contest_id" uuid NOT NULL,
	"action" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"icon_color" text DEFAULT '' NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"confirmation_type" text DEFAULT 'auto' NOT NULL,
	"destination_url" text,
	"order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bonus_actions_points_ck" CHECK ("bonus_actions"."points" >= 0),
	CONSTRAINT "bonus_actions_confirmation_ck" CHECK ("bonus_actions"."confirmation_type" in ('auto', 'manual', 'click'))
);
--> statement-breakpoint
CREATE TABLE "bonus_completions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entry_id" uuid NOT NULL,
	"bonus_action_id" uuid NOT NULL,
	"contest_id" uuid NOT NULL,
	"status" text DEFAULT 'verified' NOT NULL,
	"proof" text,
	"answer" text,
	"points_awarded" integer DEFAULT 0 NOT NULL,
	"completed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"tool_type" text,
	"title" text NOT NULL,
	"description" text,
	"mode" text DEFAULT 'giveaway' NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"slug" text NOT NULL,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"is_evergreen" boolean DEFAULT false NOT NULL,
	"campaign_type" text DEFAULT 'viral' NOT NULL,
	"require_email_confirmation" boolean DEFAULT true NOT NULL,
	"referral_advocate_points" integer DEFAULT 0 NOT NULL,
	"referral_friend_points" integer DEFAULT 0 NOT NULL,
	"purchase_tracking_enabled" boolean DEFAULT false NOT NULL,
	"points_per_purchase" integer DEFAULT 0 NOT NULL,
	"points_per_currency_unit" numeric(14, 4) DEFAULT '0' NOT NULL,
	"external_tracking_enabled" boolean DEFAULT false NOT NULL,
	"affiliate_commission_percent" numeric(7, 4) DEFAULT '0' NOT NULL,
	"shopify_secret" text,
	"stripe_secret" text,
	"webhook_secret" text,
	"views_count" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contests_tool_type_ck" CHECK ("contests"."tool_type" is null or "contests"."tool_type" in ('content_gate', 'instant_win')),
	CONSTRAINT "contests_mode_ck" CHECK ("contests"."mode" in ('giveaway', 'leaderboard', 'waitlist')),
	CONSTRAINT "contests_status_ck" CHECK ("contests"."status" in ('draft', 'active', 'ended', 'paused')),
	CONSTRAINT "contests_campaign_type_ck" CHECK ("contests"."campaign_type" in ('viral', 'referral', 'affiliate')),
	CONSTRAINT "contests_points_ck" CHECK ("contests"."referral_advocate_points" >= 0 and "contests"."referral_friend_points" >= 0 and "contests"."points_per_purchase" >= 0 and "contests"."points_per_currency_unit" >= 0),
	CONSTRAINT "contests_commission_ck" CHECK ("contests"."affiliate_commission_percent" >= 0 and "contests"."affiliate_commission_percent" <= 100),
	CONSTRAINT "contests_views_ck" CHECK ("contests"."views_count" >= 0),
	CONSTRAINT "contests_dates_ck" CHECK ("contests"."end_date" is null or "contests"."start_date" is null or "contests"."end_date" > "contests"."start_date")
);
--> statement-breakpoint
CREATE TABLE "email_outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"contest_id" uuid,
	"to" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"idempotency_key" text DEFAULT gen_random_uuid()::text NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_outbox_kind_ck" CHECK ("email_outbox"."kind" in ('confirmation', 'prize')),
	CONSTRAINT "email_outbox_status_ck" CHECK ("email_outbox"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"contest_id" uuid NOT NULL,
	"email" text,
	"phone" text,
	"name" text,
	"referral_code" text NOT NULL,
	"referred_by" uuid,
	"points" integer DEFAULT 0 NOT NULL,
	"points_used" integer DEFAULT 0 NOT NULL,
	"commission" numeric(14, 2) DEFAULT '0' NOT NULL,
	"email_confirmed" boolean DEFAULT false NOT NULL,
	"confirmed_at" timestamp with time zone,
	"confirmation_token_hash" text,
	"disqualified" boolean DEFAULT false NOT NULL,
	"custom_field_data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entries_points_ck" CHECK ("entries"."points" >= 0 and "entries"."points_used" >= 0),
	CONSTRAINT "entries_commission_ck" CHECK ("entries"."commission" >= 0),
	CONSTRAINT "entries_contact_ck" CHECK ("entries"."email" is not null or "entries"."phone" is not null)
);
--> statement-breakpoint
CREATE TABLE "instant_win_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tier_id" uuid NOT NULL,
	"game_id" uuid NOT NULL,
	"code" text NOT NULL,
	"play_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instant_win_games" (
	"contest_id" uuid PRIMARY KEY NOT NULL,
	"mechanic" text NOT NULL,
	"layout" text NOT NULL,
	"entry_limit" text NOT NULL,
	"publish_as" text NOT NULL,
	"embed_url" text,
	CONSTRAINT "iw_games_mechanic_ck" CHECK ("instant_win_games"."mechanic" in ('wheel', 'scratch', 'box', 'advent', 'plinko', 'slots', 'egg', 'claw')),
	CONSTRAINT "iw_games_layout_ck" CHECK ("instant_win_games"."layout" in ('default', 'fullscreen')),
	CONSTRAINT "iw_games_entry_limit_ck" CHECK ("instant_win_games"."entry_limit" in ('none', 'daily', 'device')),
	CONSTRAINT "iw_games_publish_as_ck" CHECK ("instant_win_games"."publish_as" in ('landing', 'embed'))
);
--> statement-breakpoint
CREATE TABLE "instant_win_plays" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"game_id" uuid NOT NULL,
	"tier_id" uuid,
	"status" text NOT NULL,
	"random_value" double precision NOT NULL,
	"cookie_hash" text NOT NULL,
	"ip_hash" text,
	"limit_cookie_key" text,
	"limit_ip_key" text,
	"play_day" date NOT NULL,
	"code_id" uuid,
	"email" text,
	"entry_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	CONSTRAINT "iw_plays_status_ck" CHECK ("instant_win_plays"."status" in ('pending', 'claimed', 'miss', 'expired')),
	CONSTRAINT "iw_plays_random_ck" CHECK ("instant_win_plays"."random_value" >= 0 and "instant_win_plays"."random_value" < 100)
);
--> statement-breakpoint
CREATE TABLE "instant_win_tiers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"game_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"odds_percent" double precision NOT NULL,
	"is_miss" boolean DEFAULT false NOT NULL,
	"color" text,
	"delivery_type" text,
	"redeem_code" text,
	"redeem_url" text,
	"quantity" integer,
	"remaining" integer,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "iw_tiers_odds_ck" CHECK ("instant_win_tiers"."odds_percent" >= 0 and "instant_win_tiers"."odds_percent" <= 100),
	CONSTRAINT "iw_tiers_quantity_ck" CHECK ("instant_win_tiers"."quantity" is null or "instant_win_tiers"."quantity" >= 0),
	CONSTRAINT "iw_tiers_remaining_ck" CHECK ("instant_win_tiers"."remaining" is null or "instant_win_tiers"."remaining" >= 0),
	CONSTRAINT "iw_tiers_delivery_ck" CHECK ("instant_win_tiers"."delivery_type" is null or "instant_win_tiers"."delivery_type" in ('code', 'url', 'unique_code'))
);
--> statement-breakpoint
CREATE TABLE "points_ledger" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"entry_id" uuid NOT NULL,
	"contest_id" uuid NOT NULL,
	"delta" integer NOT NULL,
	"requested_delta" integer NOT NULL,
	"source" text NOT NULL,
	"reason" text NOT NULL,
	"ref_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "points_ledger_source_ck" CHECK ("points_ledger"."source" in ('referral', 'bonus_action', 'purchase', 'manual', 'instant_win'))
);
--> statement-breakpoint
CREATE TABLE "purchases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"contest_id" uuid NOT NULL,
	"entry_id" uuid,
	"referrer_entry_id" uuid,
	"order_id" text NOT NULL,
	"amount" numeric(18, 4) NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"points_awarded" integer DEFAULT 0 NOT NULL,
	"commission_awarded" numeric(14, 2) DEFAULT '0' NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "purchases_amount_ck" CHECK ("purchases"."amount" > 0),
	CONSTRAINT "purchases_currency_ck" CHECK ("purchases"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "purchases_source_ck" CHECK ("purchases"."source" in ('api', 'webhook', 'shopify', 'stripe'))
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_receipts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"contest_id" uuid,
	"source" text NOT NULL,
	"external_id" text,
	"dedupe_key" text,
	"outcome" text NOT NULL,
	"status_code" integer NOT NULL,
	"response" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_receipts_source_ck" CHECK ("webhook_receipts"."source" in ('purchase', 'signup', 'shopify', 'stripe')),
	CONSTRAINT "webhook_receipts_outcome_ck" CHECK ("webhook_receipts"."outcome" in ('processed', 'rejected', 'ignored', 'duplicate'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_actions" ADD CONSTRAINT "bonus_actions_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_completions" ADD CONSTRAINT "bonus_completions_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_completions" ADD CONSTRAINT "bonus_completions_bonus_action_id_bonus_actions_id_fk" FOREIGN KEY ("bonus_action_id") REFERENCES "public"."bonus_actions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_completions" ADD CONSTRAINT "bonus_completions_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contests" ADD CONSTRAINT "contests_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_referred_by_entries_id_fk" FOREIGN KEY ("referred_by") REFERENCES "public"."entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_codes" ADD CONSTRAINT "instant_win_codes_tier_id_instant_win_tiers_id_fk" FOREIGN KEY ("tier_id") REFERENCES "public"."instant_win_tiers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_codes" ADD CONSTRAINT "instant_win_codes_game_id_contests_id_fk" FOREIGN KEY ("game_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_games" ADD CONSTRAINT "instant_win_games_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD CONSTRAINT "instant_win_plays_game_id_contests_id_fk" FOREIGN KEY ("game_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD CONSTRAINT "instant_win_plays_tier_id_instant_win_tiers_id_fk" FOREIGN KEY ("tier_id") REFERENCES "public"."instant_win_tiers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD CONSTRAINT "instant_win_plays_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_tiers" ADD CONSTRAINT "instant_win_tiers_game_id_contests_id_fk" FOREIGN KEY ("game_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_referrer_entry_id_entries_id_fk" FOREIGN KEY ("referrer_entry_id") REFERENCES "public"."entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_receipts" ADD CONSTRAINT "webhook_receipts_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_team_idx" ON "api_keys" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "bonus_actions_contest_idx" ON "bonus_actions" USING btree ("contest_id","order");--> statement-breakpoint
CREATE UNIQUE INDEX "bonus_completions_entry_action_uq" ON "bonus_completions" USING btree ("entry_id","bonus_action_id");--> statement-breakpoint
CREATE INDEX "bonus_completions_contest_idx" ON "bonus_completions" USING btree ("contest_id");--> statement-breakpoint
CREATE INDEX "bonus_completions_action_idx" ON "bonus_completions" USING btree ("bonus_action_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contests_slug_uq" ON "contests" USING btree ("slug") WHERE "contests"."tool_type" is distinct from 'instant_win';--> statement-breakpoint
CREATE INDEX "contests_team_tool_idx" ON "contests" USING btree ("team_id","tool_type","created_at");--> statement-breakpoint
CREATE INDEX "email_outbox_team_idx" ON "email_outbox" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "email_outbox_due_idx" ON "email_outbox" USING btree ("next_attempt_at") WHERE "email_outbox"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "entries_contest_email_uq" ON "entries" USING btree ("contest_id","email") WHERE "entries"."email" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "entries_contest_phone_uq" ON "entries" USING btree ("contest_id","phone") WHERE "entries"."email" is null and "entries"."phone" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "entries_referral_code_uq" ON "entries" USING btree ("referral_code");--> statement-breakpoint
CREATE UNIQUE INDEX "entries_confirmation_token_uq" ON "entries" USING btree ("confirmation_token_hash") WHERE "entries"."confirmation_token_hash" is not null;--> statement-breakpoint
CREATE INDEX "entries_contest_created_idx" ON "entries" USING btree ("contest_id","created_at","id");--> statement-breakpoint
CREATE INDEX "entries_referred_by_idx" ON "entries" USING btree ("referred_by") WHERE "entries"."referred_by" is not null;--> statement-breakpoint
CREATE INDEX "entries_leaderboard_points_idx" ON "entries" USING btree ("contest_id","points" DESC NULLS LAST,"created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified";--> statement-breakpoint
CREATE INDEX "entries_leaderboard_commission_idx" ON "entries" USING btree ("contest_id","commission" DESC NULLS LAST,"created_at","id") WHERE "entries"."email_confirmed" and not "entries"."disqualified";--> statement-breakpoint
CREATE UNIQUE INDEX "iw_codes_tier_code_uq" ON "instant_win_codes" USING btree ("tier_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "iw_codes_play_uq" ON "instant_win_codes" USING btree ("play_id") WHERE "instant_win_codes"."play_id" is not null;--> statement-breakpoint
CREATE INDEX "iw_codes_available_idx" ON "instant_win_codes" USING btree ("tier_id","id") WHERE "instant_win_codes"."play_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "iw_plays_limit_cookie_uq" ON "instant_win_plays" USING btree ("game_id","limit_cookie_key") WHERE "instant_win_plays"."limit_cookie_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "iw_plays_limit_ip_uq" ON "instant_win_plays" USING btree ("game_id","limit_ip_key") WHERE "instant_win_plays"."limit_ip_key" is not null;--> statement-breakpoint
CREATE INDEX "iw_plays_game_created_idx" ON "instant_win_plays" USING btree ("game_id","created_at");--> statement-breakpoint
CREATE INDEX "iw_plays_pending_expiry_idx" ON "instant_win_plays" USING btree ("expires_at") WHERE "instant_win_plays"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "iw_tiers_game_idx" ON "instant_win_tiers" USING btree ("game_id","position") WHERE "instant_win_tiers"."archived_at" is null;--> statement-breakpoint
CREATE INDEX "points_ledger_entry_idx" ON "points_ledger" USING btree ("entry_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_contest_order_uq" ON "purchases" USING btree ("contest_id","order_id");--> statement-breakpoint
CREATE INDEX "purchases_entry_idx" ON "purchases" USING btree ("entry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_receipts_external_uq" ON "webhook_receipts" USING btree ("contest_id","source","external_id") WHERE "webhook_receipts"."external_id" is not null and "webhook_receipts"."outcome" = 'processed';--> statement-breakpoint
CREATE INDEX "webhook_receipts_contest_idx" ON "webhook_receipts" USING btree ("contest_id","created_at");