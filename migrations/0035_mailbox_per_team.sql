CREATE TABLE "mailbox_sends" (
	"team_id" uuid NOT NULL,
	"mailbox" text NOT NULL,
	"times" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL,
	CONSTRAINT "mailbox_sends_team_id_mailbox_pk" PRIMARY KEY("team_id","mailbox")
);
--> statement-breakpoint
ALTER TABLE "mailbox_sends" ADD CONSTRAINT "mailbox_sends_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;