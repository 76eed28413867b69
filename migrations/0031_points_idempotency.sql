CREATE TABLE "points_adjustments" (
	"entry_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"previous_total" integer NOT NULL,
	"new_total" integer NOT NULL,
	"requested" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "points_adjustments_entry_id_idempotency_key_pk" PRIMARY KEY("entry_id","idempotency_key")
);
--> statement-breakpoint
ALTER TABLE "points_adjustments" ADD CONSTRAINT "points_adjustments_entry_id_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."entries"("id") ON DELETE cascade ON UPDATE no action;