-- Email rendering: a team's own email text (email_texts, src/mail/team-texts.ts) filled with its
-- placeholders and made into the HTML part, in the statement that queues the email; what is kept
-- of an email once sent.
-- Triggers: none.
-- Relied on by: the outbox insert (sqlQueueEmail, src/sql/outbox.ts), the email texts' preview
-- (src/email-texts/email-texts.ts), the reward emails (ce_reward_notify, rewards.sql), the
-- outbox's "sent" mark (src/mail/outbox.ts: ce_scrub_credentials).

-- ce:function
-- A team's text with its placeholders filled in one pass: a value that itself looks like a
-- placeholder is left as it is. Placeholders not in `vars` stay as written (the API refuses them).
-- STRICT: no text (the team wrote none) gives null, and the caller falls back to the default.
CREATE OR REPLACE FUNCTION ce_email_fill(tpl text, vars jsonb)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE STRICT
AS $function$
DECLARE
  done text := '';
  rest text := tpl;
  p int;
  q int;
  name text;
BEGIN
  LOOP
    p := strpos(rest, '{{');
    EXIT WHEN p = 0;
    q := strpos(substr(rest, p + 2), '}}');
    EXIT WHEN q = 0;
    name := substr(rest, p + 2, q - 1);
    IF vars ? name THEN
      done := done || substr(rest, 1, p - 1) || coalesce(vars ->> name, '');
      rest := substr(rest, p + q + 3);
    ELSE
      done := done || substr(rest, 1, p + 1);
      rest := substr(rest, p + 2);
    END IF;
  END LOOP;
  RETURN done || rest;
END $function$;

-- ce:function
-- The HTML part of a team's text `tpl` filled with `vars`: everything escaped, line breaks kept.
-- Addresses become links (the team's own, the `link` placeholder, a `{{code}}` inside an address
-- the team wrote), but the person's `name` is text and never part of a link, whatever it holds:
-- a stranger's sign-up cannot put a link of theirs in a mail sent to someone else's address.
-- The text between two `{{name}}` is filled (ce_email_fill), escaped and linked on its own; the
-- name, escaped, joins them.
CREATE OR REPLACE FUNCTION ce_email_html(tpl text, vars jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  SELECT '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">'
    || replace(coalesce(string_agg(
         regexp_replace(ce_escape_html(coalesce(ce_email_fill(x.part, vars - 'name'), '')),
           '(https?://[^[:space:]<>]+)', '<a href="\1">\1</a>', 'g'),
         ce_escape_html(CASE WHEN vars ? 'name' THEN coalesce(vars ->> 'name', '') ELSE '{{name}}' END)
         ORDER BY x.i), ''), E'\n', '<br>')
    || '</body></html>'
  FROM unnest(string_to_array(tpl, '{{name}}')) WITH ORDINALITY AS x(part, i)
$function$;

-- ce:function
-- The subject: one line (each run of control characters, C0, DEL and C1, becomes one space, so no
-- header can be injected), trimmed of spaces, at most 200 characters. The one SQL spelling, which
-- every statement's subject calls (sqlEmailSubject, src/sql/confirmation.ts); the twin of
-- emailSubject in src/mail/templates.ts (src/mail/subject.test.ts). The classes are spelled out:
-- [[:cntrl:]] follows the database's locale (C.UTF-8 counts U+0085, C does not).
CREATE OR REPLACE FUNCTION ce_email_subject(s text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT left(btrim(regexp_replace(s, '[\u0001-\u001f\u007f-\u009f]+', ' ', 'g'), ' '), 200)
$function$;

-- ce:function
-- HTML's five special characters escaped: the one SQL spelling, which every statement's sqlEscapeHtml
-- calls (src/sql/confirmation.ts); the twin of escapeHtml in src/lib/html.ts (src/lib/html.test.ts).
CREATE OR REPLACE FUNCTION ce_escape_html(t text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT replace(replace(replace(replace(replace(t, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')
$function$;

-- ce:function
-- A sent email's stored copy without the credentials its links carried: entry tokens (`et_` and
-- 40 letters and digits) and confirmation codes (`/api/confirm/` and 32) become `…`. Relied on by
-- the outbox's "sent" mark (src/mail/outbox.ts).
CREATE OR REPLACE FUNCTION ce_scrub_credentials(t text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT regexp_replace(regexp_replace(t, 'et_[A-Za-z0-9]{40}', 'et_…', 'g'), '/api/confirm/[A-Za-z0-9]{32}', '/api/confirm/…', 'g')
$function$;


-- ce:function
-- An email as the outbox stores it: when the contest has a text of its own for the kind
-- (`p_team_kind`, email_texts.kind), that text filled with `p_vars` replaces the default
-- subject, text and HTML. The one rule of every queued email: the statements' outbox insert
-- (sqlQueueEmail, src/sql/outbox.ts) and the reward emails (ce_reward_notify) both call it.
CREATE OR REPLACE FUNCTION ce_email_compose(p_contest uuid, p_team_kind text, p_subject text, p_text text, p_html text, p_vars jsonb, OUT subject text, OUT text text, OUT html text)
 RETURNS record
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(ce_email_subject(ce_email_fill(t.subject, p_vars)), p_subject),
    coalesce(ce_email_fill(t.text, p_vars), p_text),
    CASE WHEN t.text IS NULL THEN p_html ELSE ce_email_html(t.text, p_vars) END
  FROM (SELECT 1) one LEFT JOIN email_texts t ON t.contest_id = p_contest AND t.kind = p_team_kind
$function$;
