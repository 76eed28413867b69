-- The other tools a team connects (docs/integrations.md): what each connection owes its provider.
-- Triggers: entries_integrations_insert (AFTER INSERT ON entries) and entries_integrations_update
-- (AFTER UPDATE ON entries) write a pending `person` delivery for every enabled connection of the
-- entry's team that takes its contest, when an entry is confirmed (made confirmed, or its email
-- confirmed), and when a confirmed entry's points change; a pending one already there takes it
-- (on conflict do nothing: the deliverer reads the person as they are when it sends). An erasure
-- of a confirmed entry writes an `erase` delivery with the address it had (the entry no longer
-- has it; the deliverer forgets it once the provider deleted the person).
-- Relied on by: the every-minute job's delivery (src/integrations/deliver.ts).

-- ce:function
-- The pending `person` deliveries of the entries `p_ids` to their teams' connections, at `p_at`.
CREATE OR REPLACE FUNCTION ce_integrations_owe(p_ids uuid[], p_at timestamp with time zone)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO integration_deliveries (integration_id, entry_id, kind, next_attempt_at, created_at)
  SELECT i.id, e.id, 'person', p_at, p_at
  FROM entries e
  JOIN contests c ON c.id = e.contest_id
  JOIN integrations i ON i.team_id = c.team_id AND i.enabled AND (i.contests IS NULL OR e.contest_id = ANY (i.contests))
  WHERE e.id = ANY (p_ids) AND e.email IS NOT NULL AND e.erased_at IS NULL
  ON CONFLICT (integration_id, entry_id, kind) WHERE status = 'pending' DO NOTHING
$function$;

-- ce:function
-- Whether a team of the contests `p_contests` has an enabled connection: a team without one pays
-- this one probe of the integrations index per write of entries.
CREATE OR REPLACE FUNCTION ce_integrations_wanted(p_contests uuid[])
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  SELECT EXISTS (SELECT 1 FROM integrations i JOIN contests c ON c.team_id = i.team_id
                 WHERE c.id = ANY (p_contests) AND i.enabled)
$function$;

-- ce:function
CREATE OR REPLACE FUNCTION entries_integrations_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  ids uuid[];
  at timestamptz;
BEGIN
  IF NOT ce_integrations_wanted(ARRAY(SELECT DISTINCT contest_id FROM new_rows)) THEN RETURN NULL; END IF;
  SELECT array_agg(n.id), max(n.created_at) INTO ids, at FROM new_rows n WHERE n.email_confirmed;
  IF ids IS NOT NULL THEN PERFORM ce_integrations_owe(ids, at); END IF;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_integrations_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_integrations_insert();

-- ce:function
CREATE OR REPLACE FUNCTION entries_integrations_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  ids uuid[];
  at timestamptz;
BEGIN
  IF NOT ce_integrations_wanted(ARRAY(SELECT DISTINCT contest_id FROM new_rows)) THEN RETURN NULL; END IF;
  SELECT array_agg(n.id), max(n.updated_at) INTO ids, at
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE n.email_confirmed AND (NOT o.email_confirmed OR n.points <> o.points);
  IF ids IS NOT NULL THEN PERFORM ce_integrations_owe(ids, at); END IF;
  -- erased: each connection that took the person deletes them at the provider
  INSERT INTO integration_deliveries (integration_id, entry_id, kind, email, next_attempt_at, created_at)
  SELECT i.id, n.id, 'erase', o.email, n.updated_at, n.updated_at
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  JOIN contests c ON c.id = n.contest_id
  JOIN integrations i ON i.team_id = c.team_id AND i.enabled AND (i.contests IS NULL OR n.contest_id = ANY (i.contests))
  WHERE n.erased_at IS NOT NULL AND o.erased_at IS NULL AND o.email_confirmed AND o.email IS NOT NULL
  ON CONFLICT (integration_id, entry_id, kind) WHERE status = 'pending' DO NOTHING;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_integrations_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_integrations_update();
