-- Outbound events (docs/events.md): who is subscribed to an event. No trigger.
-- Relied on by: every statement that emits an event (sqlEmitEvent, src/sql/events.ts) and the
-- reward triggers (ce_reward_notify, rewards.sql): an event is recorded only when an enabled
-- endpoint of its team is subscribed to its type, and it gets one delivery per such endpoint.

-- ce:function
-- The enabled endpoints of the team `p_team` subscribed to events of type `p_type` (an endpoint
-- without a list takes every type). One SELECT: the planner inlines it into the statement.
CREATE OR REPLACE FUNCTION ce_subscribers(p_team uuid, p_type text)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE
AS $function$
  SELECT w.id FROM webhook_endpoints w
  WHERE w.team_id = p_team AND w.enabled AND (w.events IS NULL OR p_type = ANY (w.events))
$function$;
