-- the last hour's sends of each mailbox, counted per contest until now: one count per team from now on
INSERT INTO "mailbox_sends" ("team_id", "mailbox", "times")
SELECT c."team_id", w."mailbox", array_agg(t ORDER BY t)
FROM "mailbox_windows" w JOIN "contests" c ON c."id" = w."contest_id" CROSS JOIN LATERAL unnest(w."times") t
GROUP BY 1, 2;--> statement-breakpoint
DROP TABLE "mailbox_windows" CASCADE;--> statement-breakpoint
-- a visit of a code the contest does not have is written too (entry_id null), then deleted by the fold
ALTER TABLE "link_visits" ALTER COLUMN "entry_id" DROP NOT NULL;
