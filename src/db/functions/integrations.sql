-- The other tools a team connects (docs/integrations.md): what each connection owes its provider.
-- Triggers: entries_integrations_insert (AFTER INSERT ON entries) and entries_integrations_update
-- (AFTER UPDATE ON entries) write a pending `person` delivery for every enabled connection of the
-- entry's team that takes its contest, when an entry is confirmed (made confirmed, or its email
-- confirmed), and when a confirmed entry's points change; a pending one already there takes it
-- (on conflict do nothing: the deliverer reads the person as they are when it sends). An erasure
-- of a confirmed entry writes an `erase` delivery with the address it had (the entry no longer
-- has it; the deliverer keeps it until the provider deleted the person). events_integrations
-- (AFTER INSERT ON events) writes an `event` delivery per connection and confirmed person an
-- event names, for the types the tools take (ce_integrations_take).
-- Relied on by: the every-minute job's delivery (src/integrations/deliver.ts); ce_event_wanted by
-- every statement that emits an event (sqlEmitEvent, src/sql/events.ts) and ce_reward_notify.

-- ce:function
-- The enabled connections that take the people of the contest `p_contest` (a connection without
-- a list of contests takes every contest of its team). One SELECT: inlined where it is called.
CREATE OR REPLACE FUNCTION ce_integrations_of(p_contest uuid)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE
AS $function$
  SELECT i.id FROM integrations i JOIN contests c ON c.team_id = i.team_id
  WHERE c.id = p_contest AND i.enabled AND (i.contests IS NULL OR p_contest = ANY (i.contests))
$function$;

-- ce:function
-- The event types the tools take (each one's name for it: src/integrations/tool-events.ts,
-- TOOL_EVENTS, held to this list by a test): joined (made confirmed, or confirmed later: the
-- trigger sends only confirmed people), a friend referred, a reward unlocked and its code given,
-- a draw won, an instant-win prize claimed.
CREATE OR REPLACE FUNCTION ce_integrations_take(p_type text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT p_type IN ('entry.created', 'entry.confirmed', 'referral.credited', 'reward.unlocked', 'reward.code_given', 'draw.revealed',
                    'instant_win.claimed')
$function$;

-- ce:function
-- The people (entry ids) an event of the tools' types (ce_integrations_take) is about: the
-- advocate of a referral; each winner of a draw that was not replaced; else the entry it names.
CREATE OR REPLACE FUNCTION ce_event_people(p_type text, p_data jsonb)
 RETURNS SETOF uuid
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT (p_data ->> 'advocateEntryId')::uuid WHERE p_type = 'referral.credited' AND p_data ? 'advocateEntryId'
  UNION ALL
  SELECT (r ->> 'entryId')::uuid FROM jsonb_array_elements(CASE WHEN p_type = 'draw.revealed' THEN p_data -> 'results' END) r
  WHERE r ->> 'entryId' IS NOT NULL AND NOT coalesce((r ->> 'replaced')::boolean, false)
  UNION ALL
  SELECT (p_data ->> 'entryId')::uuid
  WHERE p_type NOT IN ('referral.credited', 'draw.revealed') AND p_data ->> 'entryId' IS NOT NULL
$function$;

-- ce:function
-- Whether an event of type `p_type` of the team `p_team` is recorded: an enabled endpoint is
-- subscribed to it (ce_subscribers), or the tools take it and the team has an enabled connection.
CREATE OR REPLACE FUNCTION ce_event_wanted(p_team uuid, p_type text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  SELECT EXISTS (SELECT 1 FROM ce_subscribers(p_team, p_type))
      OR (ce_integrations_take(p_type) AND EXISTS (SELECT 1 FROM integrations i WHERE i.team_id = p_team AND i.enabled))
$function$;

-- ce:function
-- The pending `person` deliveries of the entries `p_ids` to their teams' connections, at `p_at`.
CREATE OR REPLACE FUNCTION ce_integrations_owe(p_ids uuid[], p_at timestamp with time zone)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO integration_deliveries (integration_id, entry_id, kind, next_attempt_at, created_at)
  SELECT i.id, e.id, 'person', p_at, p_at
  FROM entries e
  CROSS JOIN LATERAL ce_integrations_of(e.contest_id) i(id)
  WHERE e.id = ANY (p_ids) AND e.email IS NOT NULL AND e.erased_at IS NULL
  ON CONFLICT (integration_id, entry_id, kind) WHERE status = 'pending' AND kind <> 'event' DO NOTHING
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
  CROSS JOIN LATERAL ce_integrations_of(n.contest_id) i(id)
  WHERE n.erased_at IS NOT NULL AND o.erased_at IS NULL AND o.email_confirmed AND o.email IS NOT NULL
  ON CONFLICT (integration_id, entry_id, kind) WHERE status = 'pending' AND kind <> 'event' DO NOTHING;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_integrations_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_integrations_update();


-- ce:function
-- Events recorded: for those the tools take, an `event` delivery per connection and confirmed
-- person an event names (once: on conflict do nothing), and the person owed too (Mailchimp needs
-- the member before their event).
CREATE OR REPLACE FUNCTION events_integrations()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  ids uuid[];
  at timestamptz;
BEGIN
  WITH d AS (
    INSERT INTO integration_deliveries (integration_id, entry_id, kind, event_id, next_attempt_at, created_at)
    SELECT i.id, e.id, 'event', n.id, n.created_at, n.created_at
    FROM new_rows n
    CROSS JOIN LATERAL ce_event_people(n.type, n.data) p(entry_id)
    JOIN entries e ON e.id = p.entry_id
    CROSS JOIN LATERAL ce_integrations_of(e.contest_id) i(id)
    WHERE ce_integrations_take(n.type) AND e.email_confirmed AND e.email IS NOT NULL AND e.erased_at IS NULL
    ON CONFLICT (integration_id, event_id, entry_id) WHERE event_id IS NOT NULL DO NOTHING
    RETURNING entry_id, created_at
  )
  SELECT array_agg(DISTINCT d.entry_id), max(d.created_at) INTO ids, at FROM d;
  -- the person too, as they are now (a tool that needs them first, Mailchimp, has them)
  IF ids IS NOT NULL THEN PERFORM ce_integrations_owe(ids, at); END IF;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER events_integrations AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_integrations();
