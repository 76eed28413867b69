ALTER TABLE "integration_deliveries" DROP CONSTRAINT "integration_deliveries_kind_ck";--> statement-breakpoint
DROP INDEX "integration_deliveries_pending_uq";--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD COLUMN "event_id" uuid;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "integration_deliveries_event_uq" ON "integration_deliveries" USING btree ("integration_id","event_id","entry_id") WHERE "integration_deliveries"."event_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "integration_deliveries_pending_uq" ON "integration_deliveries" USING btree ("integration_id","entry_id","kind") WHERE "integration_deliveries"."status" = 'pending' and "integration_deliveries"."kind" <> 'event';--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_kind_ck" CHECK ("integration_deliveries"."kind" in ('person', 'erase', 'event'));