-- Trigger functions take their trigger's name (src/db/functions/*.sql create them again, with
-- their triggers, right after the migrations): the old names go, and their triggers with them.
DROP FUNCTION IF EXISTS ce_draws_cleanup() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS rewards_entries_insert() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS rewards_entries_update() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS rewards_reward_written() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS rewards_codes_added() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_entries_insert() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_entries_update() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_entries_delete() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_bonus_insert() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_bonus_update() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS contest_stats_bonus_delete() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS risk_windows_entries_insert() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS risk_windows_entries_update() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS risk_windows_entries_delete() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS sharing_contests_delete() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS position_entries_delete() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS position_entries_insert() CASCADE;--> statement-breakpoint
DROP FUNCTION IF EXISTS position_entries_update() CASCADE;
