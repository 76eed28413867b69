-- API keys: the key check that every statement made with an API key carries.
-- Triggers: none.
-- Relied on by: teamOfKey (src/db/team.ts), whose CTE `ce_key` calls ce_auth in the request's own
-- statement (one round trip): an unknown or revoked key raises CEK01, a public key on a private
-- route CEK03, answered by src/http/auth.ts.

-- ce:function
-- The API-key check, callable inside the request's own statement (one round trip per request).
-- Raises SQLSTATE CEK01 for a key that is unknown, revoked or not of the type its prefix claims,
-- and CEK03 for a valid public key on a private route; the whole statement then changes nothing.
-- Statements use it as the CTE pair
--   ce_key as materialized (select * from ce_auth(hash, type, access)),
--   ce_touch as (update api_keys set last_used_at = now ... where id = (select key_id from ce_key) ...)
-- ce_touch is a data-modifying CTE, which Postgres always runs to completion: the key is checked
-- even when the rest of the statement never reads ce_key.
CREATE OR REPLACE FUNCTION ce_auth(p_hash text, p_type text, p_access text)
 RETURNS TABLE(key_id uuid, team_id uuid, key_type text, personal_data text)
 LANGUAGE plpgsql
 STABLE
AS $function$
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
$function$;
