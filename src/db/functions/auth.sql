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

-- ce:function
-- What a caller without a key is, once its team is known (ce_public_contest, ce_entry_token_team):
-- the team as ce_auth answers a public key, with no key id and personal data masked (keyless
-- calls never see personal data); no team raises CEK01, answered 401 as a missing key is.
CREATE OR REPLACE FUNCTION ce_keyless(p_team uuid)
 RETURNS TABLE(key_id uuid, team_id uuid, key_type text, personal_data text)
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  IF p_team IS NULL THEN
    RAISE EXCEPTION 'no key, and no contest or entry token that stands for one' USING ERRCODE = 'CEK01';
  END IF;
  RETURN QUERY SELECT NULL::uuid, p_team, 'public'::text, 'masked'::text;
END
$function$;

-- ce:function
-- The contest of a hosted page and of a keyless visitor: the one `p_contest` names, when it takes
-- sign-ups from a page (public_signup on; never a game) and is no longer a draft (a draft is the
-- team's own until it goes live). No row for anything else, an id that is not a uuid included. The one statement of the rule: the hosted page reads its contest from it
-- (signups/page.ts), ce_public_contest its team.
CREATE OR REPLACE FUNCTION ce_page_contest(p_contest text)
 RETURNS SETOF contests
 LANGUAGE sql
 STABLE
AS $function$
  SELECT c.* FROM contests c
  WHERE c.id = CASE WHEN p_contest ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                    THEN p_contest::uuid END
    AND c.public_signup AND c.status <> 'draft' AND c.tool_type IS DISTINCT FROM 'instant_win'
$function$;

-- ce:function
-- A contest's visitor without a key (docs/signups.md, "No key in a page"): the contest must take
-- public sign-ups (ce_page_contest; ce_keyless: CEK01 for an unknown contest or one without them).
-- Statements use it as
--   ce_key as materialized (select * from ce_public_contest(contest id))
CREATE OR REPLACE FUNCTION ce_public_contest(p_contest text)
 RETURNS TABLE(key_id uuid, team_id uuid, key_type text, personal_data text)
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  t uuid;
BEGIN
  SELECT c.team_id INTO t FROM ce_page_contest(p_contest) c;
  RETURN QUERY SELECT * FROM ce_keyless(t);
END
$function$;

-- ce:function
-- A visitor's entry token without a key (the sign-up widget on a keyless page): the team of the
-- token's entry (ce_keyless: CEK01, answered 401 Missing or invalid entry token, for an unknown
-- token or an erased entry). The route still checks that the token is the entry's own.
CREATE OR REPLACE FUNCTION ce_entry_token_team(p_hash text)
 RETURNS TABLE(key_id uuid, team_id uuid, key_type text, personal_data text)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT * FROM ce_keyless((SELECT c.team_id FROM entry_tokens k
    JOIN entries e ON e.id = k.entry_id
    JOIN contests c ON c.id = e.contest_id
    WHERE k.token_hash = p_hash AND e.erased_at IS NULL))
$function$;
