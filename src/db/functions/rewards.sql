-- Rewards: what the reward engine's statements call to tell a person of an unlock.
-- Relied on by: the reward unlock triggers and ce_give_codes (migrations/0027_reward_engine.sql),
-- which call ce_reward_notify for the unlocks they made or the codes they gave.
-- (The rest of the family is still defined in migrations/0027_reward_engine.sql.)

-- ce:function
-- The events (when the team has an endpoint subscribed) and the emails of unlocks: `kind`
-- 'reward.unlocked' (a pool's unlock without a code yet gets its email with the code, later)
-- or 'reward.code_given' (a pending unlock got its code). The HTML part: ce_email_html(tpl, vars),
-- where the person's name is never a link.
CREATE OR REPLACE FUNCTION ce_reward_notify(p_unlocks uuid[], p_at timestamptz, p_type text) RETURNS void LANGUAGE plpgsql AS $$
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
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                  WHERE w.team_id = s.team_id AND w.enabled AND (w.events IS NULL OR p_type = ANY (w.events)))
    RETURNING id, team_id, type
  ), evd AS (
    INSERT INTO event_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
    SELECT ev.id, w.id, p_at, p_at
    FROM ev JOIN webhook_endpoints w ON w.team_id = ev.team_id AND w.enabled AND (w.events IS NULL OR ev.type = ANY (w.events))
    RETURNING 1
  ), m AS (
    SELECT s.*, coalesce(t.subject, d.subject) AS tpl_subject, coalesce(t.text, d.text) AS tpl_text,
      jsonb_build_object('name', coalesce(s.name, 'there'), 'contest', s.title, 'reward', s.reward_name, 'code', coalesce(s.code, '')) AS vars
    FROM s
    LEFT JOIN email_texts t ON t.contest_id = s.contest_id AND t.kind = 'reward'
    CROSS JOIN LATERAL ce_reward_email_default(s.code IS NOT NULL) d
    WHERE s.email IS NOT NULL AND NOT s.code_pending
  )
  INSERT INTO email_outbox (team_id, contest_id, "to", kind, subject, text, html, created_at, next_attempt_at)
  SELECT m.team_id, m.contest_id, m.email, 'reward', ce_email_subject(ce_email_fill(m.tpl_subject, m.vars)),
    ce_email_fill(m.tpl_text, m.vars), ce_email_html(m.tpl_text, m.vars), p_at, p_at
  FROM m;
END $$;
