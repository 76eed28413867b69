-- The one-argument ce_email_html (a filled text made into HTML) is no longer called: the HTML part
-- is made by ce_email_html(tpl, vars) in src/db/functions/email-rendering.sql, where the person's
-- name is never part of a link. From this migration on, the database's functions live in
-- src/db/functions/ (applied after the migrations); migrations change tables.
DROP FUNCTION IF EXISTS ce_email_html(text);
