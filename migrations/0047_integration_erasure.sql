ALTER TABLE "integration_deliveries" DROP CONSTRAINT "integration_deliveries_kind_ck";--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_kind_ck" CHECK ("integration_deliveries"."kind" in ('person', 'erase'));