ALTER TABLE "contests" ALTER COLUMN "share_channels" SET DEFAULT '{x,facebook,linkedin,whatsapp,email,copy,native}'::text[];--> statement-breakpoint
-- Copy and the device's share sheet become channels like the others (a list without them shows
-- neither); until now every contest showed both whatever its list said: each list gains the ones
-- it lacks, at its end, where they were shown, so no contest's buttons change today
UPDATE "contests" SET "share_channels" = "share_channels"
  || CASE WHEN 'copy' = ANY ("share_channels") THEN '{}'::text[] ELSE '{copy}'::text[] END
  || CASE WHEN 'native' = ANY ("share_channels") THEN '{}'::text[] ELSE '{native}'::text[] END
WHERE NOT ('copy' = ANY ("share_channels") AND 'native' = ANY ("share_channels"));
