-- Personal data: the normalised mailbox of an address, its hash, and the masks a masked public key
-- reads entries through.
-- Triggers: none.
-- Relied on by: entries.email_norm (a generated column: ce_email_norm), the risk windows
-- (risk.sql) and the mailbox cap (src/sql/mailbox.ts), draw snapshots (ce_email_sha256), the
-- masked reads (src/sql/masking.ts: ce_mask_email, ce_mask_name, ce_mask_phone).

-- ce:function
-- SQL functions whose body has a FROM clause cannot be inlined: Postgres then parses and plans
-- the body again in every statement that calls them (a prepared statement does not keep it).
-- ce_email_norm runs in every insert and every update of entries (the generated column
-- email_norm is recomputed on each update), so each entry create, bonus action and purchase
-- paid a parse and a plan for it. The same expressions, written as one, are inlined; the results
-- are identical (test/risk-signals.test.ts compares them on a table of addresses).

-- A mailbox's one form: lower-cased, a `+tag` removed, and a Gmail address's dots removed.
CREATE OR REPLACE FUNCTION ce_email_norm(e text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE
    WHEN e IS NULL OR position('@' IN e) = 0 THEN lower(e)
    WHEN split_part(lower(e), '@', 2) IN ('gmail.com', 'googlemail.com')
      THEN replace(split_part(split_part(lower(e), '@', 1), '+', 1), '.', '') || '@gmail.com'
    ELSE split_part(split_part(lower(e), '@', 1), '+', 1) || '@' || split_part(lower(e), '@', 2)
  END
$function$;

-- ce:function
-- Draw snapshots in blocks, and the email hash kept with the entry (docs/fairness.md).
-- A commit over a million entries spent most of its time hashing a million emails one call at a
-- time and copying the 100 MB CSV around; now the hash is computed when the email is written, and
-- the CSV is stored as the blocks the picks and the CSV pages read.

-- The SHA-256 of an email's UTF-8 bytes, kept with the entry for the draws' snapshots.
CREATE OR REPLACE FUNCTION ce_email_sha256(e text)
 RETURNS bytea
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT sha256(convert_to(e, 'UTF8'))
$function$;

-- ce:function
-- Masking of personal data for public keys created with personalData "masked" (the same rules
-- as src/domain/privacy.ts): a***@example.com, ***1234, "Ann B." (first word, initial of the last)
CREATE OR REPLACE FUNCTION ce_mask_email(e text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN e IS NULL THEN NULL ELSE left(e, 1) || '***@' || split_part(e, '@', 2) END
$function$;

-- ce:function
-- A name as a masked key shows it: the first word and the last word's initial (one word stays).
CREATE OR REPLACE FUNCTION ce_mask_name(n text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN n IS NULL THEN NULL
    WHEN cardinality(regexp_split_to_array(btrim(n), '\s+')) < 2 THEN n
    ELSE (regexp_split_to_array(btrim(n), '\s+'))[1] || ' '
      || left((regexp_split_to_array(btrim(n), '\s+'))[cardinality(regexp_split_to_array(btrim(n), '\s+'))], 1) || '.' END
$function$;

-- ce:function
-- A phone number as a masked key shows it: *** and its last four characters.
CREATE OR REPLACE FUNCTION ce_mask_phone(p text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN p IS NULL THEN NULL ELSE '***' || right(p, 4) END
$function$;
