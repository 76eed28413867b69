-- A contest's own sign-up fields (contests.signup_fields): a sign-up's answers checked against
-- them, in the sign-up's own statement.
-- Triggers: none.
-- Relied on by: the sign-up (src/signups/signup.ts: a sign-up whose answers it refuses writes
-- nothing and answers 400 with its message). The bounds come from src/lib/signup-fields.ts and
-- src/lib/email.ts as arguments.

-- ce:function
-- What is wrong with a sign-up's answers `p_values` (its customFields: an object, or null) for
-- the fields `p_defs` (the contest's signupFields), as the 400's message naming the field, or
-- null when nothing is. A contest without fields takes any object (kept as given, as the API's
-- customFieldData); with fields, an answer is one of its fields' (checked in their order: a
-- required one given and not blank, a checkbox true; a text at most p_text_max characters, an
-- email of the form a@b.c at most p_email_max, a select one of its options, a checkbox true or
-- false, a date YYYY-MM-DD that exists), and no other key.
CREATE OR REPLACE FUNCTION ce_signup_fields_error(p_defs jsonb, p_values jsonb, p_text_max integer, p_email_max integer)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
AS $function$
DECLARE
  vals jsonb := coalesce(p_values, '{}'::jsonb);
  d jsonb;
  k text;
  v jsonb;
  s text;
  name text;
BEGIN
  IF p_defs IS NULL OR jsonb_array_length(p_defs) = 0 THEN RETURN NULL; END IF;
  FOR d IN SELECT x FROM jsonb_array_elements(p_defs) x LOOP
    k := d->>'key';
    name := 'customFields.' || k;
    v := vals->k;
    IF v IS NULL OR jsonb_typeof(v) = 'null'
       OR (jsonb_typeof(v) = 'string' AND btrim(v #>> '{}') = '')
       OR (d->>'type' = 'checkbox' AND v = 'false'::jsonb) THEN
      IF (d->>'required')::boolean THEN RETURN name || ' is required'; END IF;
      CONTINUE;
    END IF;
    CASE d->>'type'
      WHEN 'checkbox' THEN
        IF jsonb_typeof(v) <> 'boolean' THEN RETURN name || ' must be true or false'; END IF;
      WHEN 'select' THEN
        IF jsonb_typeof(v) <> 'string' OR NOT (d->'options' ? (v #>> '{}')) THEN
          RETURN name || ' must be one of ' || (SELECT string_agg(o, ', ') FROM jsonb_array_elements_text(d->'options') o);
        END IF;
      WHEN 'email' THEN
        s := v #>> '{}';
        IF jsonb_typeof(v) <> 'string' OR length(s) > p_email_max OR s !~ '^[^\s@]+@[^\s@]+\.[^\s@]+$' THEN
          RETURN name || ' must be an email address';
        END IF;
      WHEN 'date' THEN
        s := v #>> '{}';
        IF jsonb_typeof(v) <> 'string' OR s !~ '^\d{4}-\d{2}-\d{2}$' THEN
          RETURN name || ' must be a date YYYY-MM-DD';
        END IF;
        BEGIN
          IF to_char(to_date(s, 'YYYY-MM-DD'), 'YYYY-MM-DD') <> s THEN RETURN name || ' must be a date YYYY-MM-DD'; END IF;
        EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
          RETURN name || ' must be a date YYYY-MM-DD';
        END;
      ELSE
        IF jsonb_typeof(v) <> 'string' OR length(v #>> '{}') > p_text_max THEN
          RETURN name || ' must be text of at most ' || p_text_max || ' characters';
        END IF;
    END CASE;
  END LOOP;
  FOR k IN SELECT jsonb_object_keys(vals) LOOP
    IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p_defs) x WHERE x->>'key' = k) THEN
      RETURN 'customFields.' || k || ' is not a field of this contest';
    END IF;
  END LOOP;
  RETURN NULL;
END
$function$;
