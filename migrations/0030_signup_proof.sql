CREATE TABLE "mailbox_windows" (
	"contest_id" uuid NOT NULL,
	"mailbox" text NOT NULL,
	"times" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL,
	CONSTRAINT "mailbox_windows_contest_id_mailbox_pk" PRIMARY KEY("contest_id","mailbox")
);
--> statement-breakpoint
ALTER TABLE "entry_tokens" ADD COLUMN "kind" text DEFAULT 'email' NOT NULL;--> statement-breakpoint
ALTER TABLE "mailbox_windows" ADD CONSTRAINT "mailbox_windows_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entry_tokens" ADD CONSTRAINT "entry_tokens_kind_ck" CHECK ("entry_tokens"."kind" in ('answer', 'email'));--> statement-breakpoint
-- the tokens handed out in sign-ups' answers (written with the entry, at its creation instant)
-- end when the email is confirmed, as new ones do
UPDATE "entry_tokens" t SET "kind" = 'answer' FROM "entries" e
WHERE e."id" = t."entry_id" AND e."source" = 'signup' AND t."created_at" = e."created_at" AND NOT e."email_confirmed";
