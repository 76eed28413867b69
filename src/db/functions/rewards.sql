-- Rewards at milestones (docs/rewards.md): unlocks, codes given once, their events and emails.
-- Triggers: entries_rewards_insert and entries_rewards_update (AFTER INSERT/UPDATE ON entries)
-- check the entries that count now, or gained points, and the advocates of referred entries that
-- count now, against their contest's rewards (ce_unlock_rewards); the update trigger also unlinks
-- an erased person's unlocks. rewards_written_insert/update (ON rewards) unlock what a new or
-- lowered threshold reaches; reward_codes_added (ON reward_codes) gives new codes to waiting unlocks.
-- "Who counts" for a reward is ce_reward_counts.
-- Relied on by: every write that moves points or makes an entry count (their statements answer
-- ce_rewards_may, src/sql/outbox.ts, so that the emails these triggers queue leave at once),
-- GET /entries/{id}/rewards, /me's rewards (src/rewards/rewards.ts), erasure (src/entries/data-out.ts).

-- ce:function
-- Who counts for a reward (and for a friend's count): confirmed, not disqualified, not erased,
-- not waiting for review; never null.
CREATE OR REPLACE FUNCTION ce_reward_counts(confirmed boolean, disqualified boolean, erased_at timestamp with time zone, risk_level text, risk_review text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  -- never null: a flagged entry not yet reviewed (risk_review null) does not count, and the
  -- triggers' "did it begin to count" (NOT of the old row's answer) must be true for it, not null
  SELECT coalesce(confirmed AND NOT disqualified AND erased_at IS NULL
    AND (risk_level = 'none' OR risk_review IS NOT DISTINCT FROM 'approved'), false)
$function$;

-- ce:function
-- Unlocks, for the entries `p_ids` (only the reward `p_reward` when given), every live reward of
-- their contest whose threshold they have reached and that they have not unlocked yet; a pool's
-- unlock takes a free code at once or waits for one. Answers how many it unlocked.
CREATE OR REPLACE FUNCTION ce_unlock_rewards(p_ids uuid[], p_at timestamp with time zone, p_reward uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  fresh uuid[];
  pools uuid[];
BEGIN
  -- the rows whose referrals are counted below are locked first: a confirmation running at the
  -- same time waits here, and the count (a statement of its own, a fresh snapshot) sees it
  -- (a reward just created checks a whole contest at once: no lock, a later change re-checks)
  IF p_reward IS NULL THEN
    PERFORM 1 FROM entries e WHERE e.id = ANY (p_ids) ORDER BY e.id FOR UPDATE;
  END IF;
  WITH ins AS (
    INSERT INTO reward_unlocks (reward_id, contest_id, entry_id, unlocked_at, code_pending)
    SELECT r.id, e.contest_id, e.id, p_at, r.kind = 'codes'
    FROM entries e JOIN rewards r ON r.contest_id = e.contest_id AND r.deleted_at IS NULL
    WHERE e.id = ANY (p_ids) AND (p_reward IS NULL OR r.id = p_reward)
      AND ce_reward_counts(e.email_confirmed, e.disqualified, e.erased_at, e.risk_level, e.risk_review)
      AND (e.points >= r.points_required
           OR r.referrals_required <= (SELECT count(*) FROM entries f WHERE f.referred_by = e.id
                 AND ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review)))
      AND NOT EXISTS (SELECT 1 FROM reward_unlocks u WHERE u.reward_id = r.id AND u.entry_id = e.id)
    ORDER BY e.id, r.id
    ON CONFLICT (reward_id, entry_id) DO NOTHING
    RETURNING id, reward_id, code_pending
  )
  SELECT array_agg(id), array_agg(DISTINCT reward_id) FILTER (WHERE code_pending) INTO fresh, pools FROM ins;
  IF fresh IS NULL THEN RETURN 0; END IF;
  IF pools IS NOT NULL THEN PERFORM ce_give_codes(pools, p_at, fresh); END IF;
  PERFORM ce_reward_notify(fresh, p_at, 'reward.unlocked');
  RETURN array_length(fresh, 1);
END $function$;

-- ce:function
-- Gives free codes of the pools `p_rewards` to their pending unlocks, oldest unlock first, each
-- code once (both sides taken under FOR UPDATE SKIP LOCKED, re-checked on their newest
-- versions). Unlocks not in `p_quiet` are told (reward.code_given and the email); the caller
-- tells those in it. Answers how many codes it gave.
CREATE OR REPLACE FUNCTION ce_give_codes(p_rewards uuid[], p_at timestamp with time zone, p_quiet uuid[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  given uuid[];
  told uuid[];
BEGIN
  WITH w AS (
    SELECT x.id, x.reward_id, row_number() OVER (PARTITION BY x.reward_id ORDER BY x.unlocked_at, x.id) AS rn
    FROM (SELECT u.id, u.reward_id, u.unlocked_at FROM reward_unlocks u
          WHERE u.reward_id = ANY (p_rewards) AND u.code_pending AND u.entry_id IS NOT NULL
          ORDER BY u.reward_id, u.unlocked_at, u.id
          FOR UPDATE SKIP LOCKED) x
  ), need AS (
    SELECT reward_id, count(*) AS n FROM w GROUP BY reward_id
  ), f AS (
    SELECT y.reward_id, y.seq, row_number() OVER (PARTITION BY y.reward_id ORDER BY y.seq) AS rn
    FROM need CROSS JOIN LATERAL (
      SELECT c.reward_id, c.seq FROM reward_codes c
      WHERE c.reward_id = need.reward_id AND c.given_at IS NULL
      ORDER BY c.seq LIMIT need.n
      FOR UPDATE SKIP LOCKED) y
  ), g AS (
    UPDATE reward_codes c SET unlock_id = w.id, given_at = p_at
    FROM f JOIN w ON w.reward_id = f.reward_id AND w.rn = f.rn
    WHERE c.reward_id = f.reward_id AND c.seq = f.seq
    RETURNING c.unlock_id
  )
  SELECT array_agg(unlock_id) INTO given FROM g;
  IF given IS NULL THEN RETURN 0; END IF;
  UPDATE reward_unlocks SET code_pending = false WHERE id = ANY (given);
  SELECT array_agg(x) INTO told FROM unnest(given) x WHERE NOT (x = ANY (coalesce(p_quiet, '{}')));
  IF told IS NOT NULL THEN PERFORM ce_reward_notify(told, p_at, 'reward.code_given'); END IF;
  RETURN array_length(given, 1);
END $function$;

-- ce:function
-- The events (when the team has an endpoint subscribed, or a connection to a tool) and the
-- emails of unlocks: `kind` 'reward.unlocked' (a pool's unlock without a code yet gets its email
-- with the code, later) or 'reward.code_given' (a pending unlock got its code). Who wants an
-- event: ce_event_wanted (integrations.sql); its deliveries go to ce_subscribers (events.sql).
-- The email's text: ce_email_compose (email-rendering.sql), as for every queued email, where the
-- person's name is never a link.
CREATE OR REPLACE FUNCTION ce_reward_notify(p_unlocks uuid[], p_at timestamp with time zone, p_type text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH s AS (
    SELECT u.id, u.entry_id, u.contest_id, u.unlocked_at, u.code_pending, r.id AS reward_id, r.name AS reward_name, r.kind,
      coalesce(rc.code, r.code) AS code, c.team_id, c.title, e.email, e.name
    FROM reward_unlocks u
    JOIN rewards r ON r.id = u.reward_id
    JOIN contests c ON c.id = u.contest_id
    JOIN entries e ON e.id = u.entry_id
    LEFT JOIN reward_codes rc ON rc.unlock_id = u.id
    WHERE u.id = ANY (p_unlocks) AND e.erased_at IS NULL
  ), ev AS (
    INSERT INTO events (team_id, contest_id, type, data, created_at)
    SELECT s.team_id, s.contest_id, p_type,
      jsonb_build_object('unlockId', s.id, 'rewardId', s.reward_id, 'rewardName', s.reward_name, 'entryId', s.entry_id,
        'contestId', s.contest_id, 'code', s.code, 'codePending', s.code_pending,
        'unlockedAt', to_char(s.unlocked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
      p_at
    FROM s
    WHERE ce_event_wanted(s.team_id, p_type)
    RETURNING id, team_id, type
  ), evd AS (
    INSERT INTO event_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
    SELECT ev.id, w.id, p_at, p_at
    FROM ev CROSS JOIN LATERAL ce_subscribers(ev.team_id, ev.type) w(id)
    RETURNING 1
  ), m AS (
    SELECT s.*, d.subject AS tpl_subject, d.text AS tpl_text,
      jsonb_build_object('name', coalesce(s.name, 'there'), 'contest', s.title, 'reward', s.reward_name, 'code', coalesce(s.code, '')) AS vars
    FROM s
    CROSS JOIN LATERAL ce_reward_email_default(s.code IS NOT NULL) d
    WHERE s.email IS NOT NULL AND NOT s.code_pending
  )
  -- the default is a text with placeholders too; the team's own (kind 'reward') replaces it
  INSERT INTO email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
  SELECT m.team_id, m.contest_id, m.email, 'reward', x.subject, x.text, x.html, p_at, p_at
  FROM m CROSS JOIN LATERAL ce_email_compose(m.contest_id, 'reward', ce_email_subject(ce_email_fill(m.tpl_subject, m.vars)),
    ce_email_fill(m.tpl_text, m.vars), ce_email_html(m.tpl_text, m.vars), m.vars) x;
END $function$;

-- ce:function
-- The reward email when the team wrote none (the same text GET /contests/{id}/emails/reward shows;
-- src/rewards/emails.test.ts holds the two equal). A reward without a code is told without the code line.
CREATE OR REPLACE FUNCTION ce_reward_email_default(has_code boolean, OUT subject text, OUT text text)
 RETURNS record
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT 'You unlocked {{reward}}: {{contest}}',
    CASE WHEN has_code
      THEN E'Hi {{name}},\n\nYou reached a milestone in "{{contest}}" and unlocked {{reward}}.\n\nYour code: {{code}}\n\nThank you for taking part.\n'
      ELSE E'Hi {{name}},\n\nYou reached a milestone in "{{contest}}" and unlocked {{reward}}.\n\nThank you for taking part.\n'
    END
$function$;

-- ce:function
-- Entries written: the ones that count now and did not before, or gained points, are checked
-- against their contest's rewards; so are the advocates of referred entries that count now.
CREATE OR REPLACE FUNCTION entries_rewards_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  ids uuid[];
  at timestamptz;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM rewards r WHERE r.deleted_at IS NULL AND r.contest_id IN (SELECT contest_id FROM new_rows)) THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT x.id), max(x.at) INTO ids, at FROM (
    SELECT n.id, n.created_at AS at FROM new_rows n
    WHERE ce_reward_counts(n.email_confirmed, n.disqualified, n.erased_at, n.risk_level, n.risk_review)
    UNION ALL
    SELECT n.referred_by, n.created_at FROM new_rows n
    WHERE n.referred_by IS NOT NULL AND ce_reward_counts(n.email_confirmed, n.disqualified, n.erased_at, n.risk_level, n.risk_review)
  ) x;
  IF ids IS NOT NULL THEN PERFORM ce_unlock_rewards(ids, at); END IF;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_rewards_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_rewards_insert();

-- ce:function
CREATE OR REPLACE FUNCTION entries_rewards_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  ids uuid[];
  at timestamptz;
BEGIN
  -- erasure: the person's unlocks lose their link to the entry; codes given stay given
  UPDATE reward_unlocks u SET entry_id = NULL
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE u.entry_id = n.id AND n.erased_at IS NOT NULL AND o.erased_at IS NULL;
  IF NOT EXISTS (SELECT 1 FROM rewards r WHERE r.deleted_at IS NULL AND r.contest_id IN (SELECT contest_id FROM new_rows)) THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT x.id), max(x.at) INTO ids, at FROM (
    SELECT n.id, n.updated_at AS at, n.referred_by,
      NOT ce_reward_counts(o.email_confirmed, o.disqualified, o.erased_at, o.risk_level, o.risk_review) AS began
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE ce_reward_counts(n.email_confirmed, n.disqualified, n.erased_at, n.risk_level, n.risk_review)
      AND (n.points > o.points
           OR NOT ce_reward_counts(o.email_confirmed, o.disqualified, o.erased_at, o.risk_level, o.risk_review))
  ) c CROSS JOIN LATERAL (VALUES (c.id, c.at), (CASE WHEN c.began THEN c.referred_by END, c.at)) x(id, at)
  WHERE x.id IS NOT NULL;
  IF ids IS NOT NULL THEN PERFORM ce_unlock_rewards(ids, at); END IF;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER entries_rewards_update AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_rewards_update();

-- ce:function
-- A reward created, or its threshold lowered: the entries already past it unlock it now.
CREATE OR REPLACE FUNCTION rewards_written()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  r record;
  ids uuid[];
BEGIN
  FOR r IN SELECT n.* FROM new_rows n WHERE n.deleted_at IS NULL LOOP
    -- an update that left the threshold as it was (a new name, a new code) unlocks nothing new
    IF TG_OP = 'UPDATE' THEN
      CONTINUE WHEN EXISTS (SELECT 1 FROM old_rows o WHERE o.id = r.id AND o.deleted_at IS NULL
        AND o.points_required IS NOT DISTINCT FROM r.points_required
        AND o.referrals_required IS NOT DISTINCT FROM r.referrals_required);
    END IF;
    IF r.points_required IS NOT NULL THEN
      SELECT array_agg(e.id) INTO ids FROM entries e
      WHERE e.contest_id = r.contest_id AND e.points >= r.points_required
        AND ce_reward_counts(e.email_confirmed, e.disqualified, e.erased_at, e.risk_level, e.risk_review);
    ELSE
      SELECT array_agg(f.referred_by) INTO ids FROM (
        SELECT f.referred_by FROM entries f
        WHERE f.contest_id = r.contest_id AND f.referred_by IS NOT NULL
          AND ce_reward_counts(f.email_confirmed, f.disqualified, f.erased_at, f.risk_level, f.risk_review)
        GROUP BY f.referred_by HAVING count(*) >= r.referrals_required) f;
    END IF;
    IF ids IS NOT NULL THEN PERFORM ce_unlock_rewards(ids, r.updated_at, r.id); END IF;
  END LOOP;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER rewards_written_insert AFTER INSERT ON rewards REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rewards_written();

-- ce:function
CREATE OR REPLACE TRIGGER rewards_written_update AFTER UPDATE ON rewards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rewards_written();

-- ce:function
-- Codes added to a pool: its pending unlocks get them first, oldest first.
CREATE OR REPLACE FUNCTION reward_codes_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  pools uuid[];
  at timestamptz;
BEGIN
  SELECT array_agg(DISTINCT reward_id), max(created_at) INTO pools, at FROM new_rows;
  IF pools IS NOT NULL THEN PERFORM ce_give_codes(pools, at, '{}'); END IF;
  RETURN NULL;
END $function$;

-- ce:function
CREATE OR REPLACE TRIGGER reward_codes_added AFTER INSERT ON reward_codes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reward_codes_added();
