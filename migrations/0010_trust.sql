-- Trust and safety: masked public keys, risk signals on entries, held referral points, the
-- disposable-mail domain table (filled at migrate time from an npm package: src/db/disposable.ts).
--
-- The email normalisation of the email_alias signal: lower-case, +tag removed for every domain,
-- dots removed for gmail.com / googlemail.com (which count as one domain). Immutable: it feeds
-- the generated column entries.email_norm.
CREATE FUNCTION ce_email_norm(e text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN e IS NULL OR position('@' IN e) = 0 THEN lower(e)
    WHEN x.d IN ('gmail.com', 'googlemail.com') THEN replace(x.l, '.', '') || '@gmail.com'
    ELSE x.l || '@' || x.d
  END
  FROM (SELECT split_part(split_part(lower(e), '@', 1), '+', 1) AS l, split_part(lower(e), '@', 2) AS d) x
$$;
--> statement-breakpoint
CREATE TABLE "disposable_domains" (
	"domain" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disposable_domains_source" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"package" text NOT NULL,
	"version" text NOT NULL,
	"domains" integer NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "risk_windows" (
	"contest_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	"times" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL,
	CONSTRAINT "risk_windows_contest_id_kind_key_pk" PRIMARY KEY("contest_id","kind","key"),
	CONSTRAINT "risk_windows_kind_ck" CHECK ("risk_windows"."kind" in ('email', 'ip', 'ref'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "personal_data" text;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "referral_credit_on" text DEFAULT 'create' NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "risk_mode" text DEFAULT 'flag' NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "risk_max_entries_per_ip_per_hour" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "contests" ADD COLUMN "risk_max_referrals_per_hour" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "ip_hash" text;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "user_agent_hash" text;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "email_norm" text GENERATED ALWAYS AS (ce_email_norm(email)) STORED;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "risk_level" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "risk_reasons" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "risk_review" text;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "status" text DEFAULT 'applied' NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "held_for" uuid;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "wait_confirm" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "wait_review" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "risk_windows" ADD CONSTRAINT "risk_windows_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "entries_contest_risk_idx" ON "entries" USING btree ("contest_id","risk_level","created_at","id") WHERE "entries"."risk_level" <> 'none';--> statement-breakpoint
CREATE INDEX "points_ledger_held_idx" ON "points_ledger" USING btree ("held_for") WHERE "points_ledger"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_personal_data_ck" CHECK ("api_keys"."personal_data" is null or ("api_keys"."type" = 'public' and "api_keys"."personal_data" in ('full', 'masked')));--> statement-breakpoint
ALTER TABLE "contests" ADD CONSTRAINT "contests_credit_on_ck" CHECK ("contests"."referral_credit_on" in ('create', 'confirm'));--> statement-breakpoint
ALTER TABLE "contests" ADD CONSTRAINT "contests_risk_ck" CHECK ("contests"."risk_mode" in ('flag', 'hold', 'block') and "contests"."risk_max_entries_per_ip_per_hour" between 1 and 1000 and "contests"."risk_max_referrals_per_hour" between 1 and 1000);--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_risk_ck" CHECK ("entries"."risk_level" in ('none', 'review', 'high') and ("entries"."risk_review" is null or "entries"."risk_review" in ('approved', 'rejected')));--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_status_ck" CHECK ("points_ledger"."status" in ('applied', 'pending', 'released', 'dropped') and ("points_ledger"."status" = 'applied' or "points_ledger"."delta" = 0));
--> statement-breakpoint
-- Masking of personal data for public keys created with personalData "masked" (the same rules
-- as src/domain/privacy.ts): a***@example.com, ***1234, "Ann B." (first word, initial of the last)
CREATE FUNCTION ce_mask_email(e text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN e IS NULL THEN NULL ELSE left(e, 1) || '***@' || split_part(e, '@', 2) END
$$;
--> statement-breakpoint
CREATE FUNCTION ce_mask_phone(p text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p IS NULL THEN NULL ELSE '***' || right(p, 4) END
$$;
--> statement-breakpoint
CREATE FUNCTION ce_mask_name(n text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n IS NULL THEN NULL
    WHEN cardinality(w) < 2 THEN n
    ELSE w[1] || ' ' || left(w[cardinality(w)], 1) || '.' END
  FROM (SELECT regexp_split_to_array(btrim(n), '\s+') AS w) x
$$;
--> statement-breakpoint
-- public keys made before personalData existed keep the behaviour they had
UPDATE api_keys SET personal_data = 'full' WHERE type = 'public' AND personal_data IS NULL;
--> statement-breakpoint
-- ce_auth (migrations/0007_key_auth.sql) now also returns the key's personal_data setting, so
-- that a statement can mask without asking for it separately. Same SQLSTATEs: CEK01, CEK03.
DROP FUNCTION ce_auth(text, text, text);
--> statement-breakpoint
CREATE FUNCTION ce_auth(p_hash text, p_type text, p_access text)
RETURNS TABLE (key_id uuid, team_id uuid, key_type text, personal_data text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  k record;
BEGIN
  SELECT a.id, a.team_id, a.type, a.personal_data INTO k FROM api_keys a WHERE a.key_hash = p_hash AND a.revoked_at IS NULL;
  IF NOT FOUND OR k.type <> p_type THEN
    RAISE EXCEPTION 'invalid api key' USING ERRCODE = 'CEK01';
  END IF;
  IF p_access = 'private' AND k.type <> 'private' THEN
    RAISE EXCEPTION 'private api key required' USING ERRCODE = 'CEK03';
  END IF;
  RETURN QUERY SELECT k.id, k.team_id, k.type, CASE WHEN k.type = 'public' THEN coalesce(k.personal_data, 'full') END;
END
$$;
--> statement-breakpoint
-- Block mode refuses a high-risk entry from inside the create statement: the whole statement
-- (counters included) is rolled back and the API answers 403 Entry refused by risk rules.
CREATE FUNCTION ce_risk_gate(refuse boolean) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF refuse THEN
    RAISE EXCEPTION 'entry refused by risk rules' USING ERRCODE = 'CER01';
  END IF;
  RETURN true;
END
$$;
--> statement-breakpoint
-- A sliding window of creation times: the old ones plus the new, the last hour (measured from
-- the newest) and at most 1001 of them (the largest limit is 1000).
CREATE FUNCTION ce_window_push(old timestamptz[], add timestamptz[]) RETURNS timestamptz[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(t ORDER BY t), '{}')
  FROM (
    SELECT t FROM unnest(old || add) t
    WHERE t > (SELECT max(m) FROM unnest(old || add) m) - interval '1 hour'
    ORDER BY t DESC LIMIT 1001
  ) s
$$;
--> statement-breakpoint
-- risk_windows kept by statement-level triggers on entries, in the same transaction as the change
CREATE FUNCTION risk_windows_entries_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO risk_windows AS w (contest_id, kind, key, n, times)
  SELECT k.contest_id, k.kind, k.key, count(*), CASE WHEN k.kind = 'email' THEN '{}' ELSE array_agg(k.created_at) END
  FROM (
    SELECT contest_id, 'email' AS kind, email_norm AS key, created_at FROM new_rows WHERE email_norm IS NOT NULL
    UNION ALL SELECT contest_id, 'ip', ip_hash, created_at FROM new_rows WHERE ip_hash IS NOT NULL
    UNION ALL SELECT contest_id, 'ref', referred_by::text, created_at FROM new_rows WHERE referred_by IS NOT NULL
  ) k
  GROUP BY k.contest_id, k.kind, k.key
  ORDER BY k.contest_id, k.kind, k.key
  ON CONFLICT (contest_id, kind, key) DO UPDATE SET
    n = w.n + excluded.n,
    times = CASE WHEN w.kind = 'email' THEN w.times ELSE ce_window_push(w.times, excluded.times) END;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION risk_windows_entries_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE risk_windows w SET n = greatest(w.n - d.n, 0)
  FROM (SELECT contest_id, email_norm, count(*) AS n FROM old_rows WHERE email_norm IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2) d
  WHERE w.contest_id = d.contest_id AND w.kind = 'email' AND w.key = d.email_norm;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION risk_windows_entries_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- an email changed: the old normalised email loses one entry, the new one gains one
  INSERT INTO risk_windows AS w (contest_id, kind, key, n)
  SELECT d.contest_id, 'email', d.key, sum(d.n)
  FROM (
    SELECT o.contest_id, o.email_norm AS key, -1 AS n FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.email_norm IS DISTINCT FROM n.email_norm AND o.email_norm IS NOT NULL
    UNION ALL
    SELECT n.contest_id, n.email_norm, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.email_norm IS DISTINCT FROM n.email_norm AND n.email_norm IS NOT NULL
  ) d
  GROUP BY d.contest_id, d.key
  ORDER BY d.contest_id, d.key
  ON CONFLICT (contest_id, kind, key) DO UPDATE SET n = greatest(w.n + excluded.n, 0);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER entries_risk_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION risk_windows_entries_insert();
--> statement-breakpoint
CREATE TRIGGER entries_risk_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION risk_windows_entries_delete();
--> statement-breakpoint
CREATE TRIGGER entries_risk_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION risk_windows_entries_update();
--> statement-breakpoint
-- the entries that exist already
INSERT INTO risk_windows (contest_id, kind, key, n)
SELECT contest_id, 'email', email_norm, count(*) FROM entries WHERE email_norm IS NOT NULL GROUP BY 1, 3
ON CONFLICT DO NOTHING;
