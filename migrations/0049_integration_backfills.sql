CREATE TABLE "integration_backfills" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"integration_id" uuid NOT NULL,
	"total" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD COLUMN "backfill_id" uuid;--> statement-breakpoint
ALTER TABLE "integration_backfills" ADD CONSTRAINT "integration_backfills_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "integration_backfills_integration_idx" ON "integration_backfills" USING btree ("integration_id","created_at");--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_backfill_id_integration_backfills_id_fk" FOREIGN KEY ("backfill_id") REFERENCES "public"."integration_backfills"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "integration_deliveries_backfill_idx" ON "integration_deliveries" USING btree ("backfill_id","status") WHERE "integration_deliveries"."backfill_id" is not null;