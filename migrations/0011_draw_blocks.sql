-- Draw snapshots in blocks, and the email hash kept with the entry (docs/fairness.md).
-- A commit over a million entries spent most of its time hashing a million emails one call at a
-- time and copying the 100 MB CSV around; now the hash is computed when the email is written, and
-- the CSV is stored as the blocks the picks and the CSV pages read.
CREATE FUNCTION ce_email_sha256(e text) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT sha256(convert_to(e, 'UTF8'))
$$;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "email_sha256" "bytea" GENERATED ALWAYS AS (ce_email_sha256(email)) STORED;--> statement-breakpoint
-- existing snapshots move into their blocks (same bytes: the CSV is ASCII, characters are bytes)
ALTER TABLE "draw_blocks" ADD COLUMN "lines" text;--> statement-breakpoint
UPDATE draw_blocks b SET lines = convert_from(substring(s.csv from (b.char_start + 1)::int for b.char_len), 'UTF8')
FROM draw_snapshots s WHERE s.draw_id = b.draw_id;--> statement-breakpoint
DELETE FROM draw_blocks WHERE lines IS NULL;--> statement-breakpoint
ALTER TABLE "draw_blocks" ALTER COLUMN "lines" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "draw_blocks" ALTER COLUMN "lines" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "draw_blocks" DROP COLUMN "char_start";--> statement-breakpoint
ALTER TABLE "draw_blocks" DROP COLUMN "char_len";--> statement-breakpoint
DROP TABLE "draw_snapshots" CASCADE;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ce_draws_cleanup() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM draw_blocks WHERE draw_id IN (SELECT id FROM ce_old_draws);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A block of a draw's snapshot is stored as it goes by, and comes back as the bytes it adds to
-- the published CSV (so the commit's one pass both stores the blocks and hashes them).
CREATE FUNCTION ce_draw_store_block(p_draw uuid, p_cum_end bigint, p_cum_start bigint, p_lines text) RETURNS bytea
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO draw_blocks (draw_id, cum_end, cum_start, lines) VALUES (p_draw, p_cum_end, p_cum_start, p_lines);
  RETURN convert_to(p_lines, 'UTF8');
END
$$;
--> statement-breakpoint
-- Commit: freezes the eligible set of a contest as blocks of CSV lines (draw_blocks: the entries
-- whose ids start with the same three hex digits, in id order, with the running sums of weights),
-- hashes exactly the published bytes (the header line, then the blocks in order) and stores the
-- draw. Returns 'contest_not_found' | 'no_eligible' | 'ok' with the counts and the hash.
-- Where the time goes at a million entries is memory: every extra copy of the 100 MB CSV costs
-- about as much as the sort. So: one sort of the eligible rows by (id prefix, id), which is id
-- order; one pass of sorted grouping (hash grouping is off) builds each block from its rows in the
-- order the sort gave them; the running sums need no second sort (groups come out in prefix
-- order); each block is stored as it passes (ce_draw_store_block) and its bytes are appended,
-- after the header, to the one buffer that is hashed: no CTE holds a second copy, and no ORDER BY
-- in an aggregate copies the rows again. The email hashes were computed when the emails were
-- written (entries.email_sha256). Tests check the published lines are in strictly ascending id
-- order and hash to snapshotHash.
CREATE OR REPLACE FUNCTION ce_draw_commit(
  p_id uuid, p_team uuid, p_contest uuid, p_label text, p_winners int, p_weighting text, p_confirmed_only boolean,
  p_min_points int, p_exclude boolean, p_seed bytea, p_seed_hash text, p_ipad bytea, p_opad bytea, p_at timestamptz)
RETURNS TABLE (outcome text, eligible_count int, total_weight bigint, snapshot_hash text)
LANGUAGE plpgsql SET work_mem = '512MB' SET enable_indexscan = off SET enable_hashagg = off SET jit = off AS $$
DECLARE
  header constant text := 'entry_id,weight,email_sha256' || chr(10);
  v_n bigint;
  v_w bigint;
  v_h text;
BEGIN
  PERFORM 1 FROM contests c WHERE c.id = p_contest AND c.team_id = p_team;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'contest_not_found'::text, 0, 0::bigint, NULL::text;
    RETURN;
  END IF;
  SELECT coalesce(sum(b.n), 0), coalesce(max(b.cum_end), 0), encode(sha256(string_agg(b.lines, ''::bytea)), 'hex')
  INTO v_n, v_w, v_h
  FROM (
    SELECT 0::bigint AS n, NULL::bigint AS cum_end, convert_to(header, 'UTF8') AS lines
    UNION ALL
    SELECT c.n, c.cum_end, ce_draw_store_block(p_id, c.cum_end, c.cum_end - c.w, c.lines)
    FROM (
    SELECT g.n, g.w, (sum(g.w) OVER (ORDER BY g.k))::bigint AS cum_end, g.lines
    FROM (
      SELECT s.k, count(*) AS n, sum(s.weight)::bigint AS w,
             string_agg(concat(s.id, ',', s.weight, ',', encode(s.email_sha256, 'hex'), chr(10)), '') AS lines
      FROM (
        SELECT left(e.id::text, 3) COLLATE "C" AS k, e.id,
               CASE WHEN p_weighting = 'points' THEN e.points::bigint ELSE 1::bigint END AS weight, e.email_sha256
        FROM entries e
        WHERE e.contest_id = p_contest
          AND NOT e.disqualified
          AND e.erased_at IS NULL
          AND (NOT p_confirmed_only OR e.email_confirmed)
          AND e.points >= p_min_points
          AND (p_weighting <> 'points' OR e.points > 0)
          AND (NOT p_exclude OR NOT EXISTS (
            SELECT 1 FROM draw_results r JOIN draws d ON d.id = r.draw_id
            WHERE d.contest_id = p_contest AND d.status = 'revealed' AND NOT r.replaced AND r.entry_id = e.id))
        ORDER BY 1, 2
      ) s
      GROUP BY s.k
    ) g
    ) c
  ) b;
  IF v_n = 0 THEN
    RETURN QUERY SELECT 'no_eligible'::text, 0, 0::bigint, NULL::text;
    RETURN;
  END IF;
  INSERT INTO draws (id, team_id, contest_id, label, status, winners, weighting, confirmed_only, min_points,
                     exclude_previous_winners, eligible_count, total_weight, snapshot_hash, seed, seed_hash,
                     hmac_ipad, hmac_opad, created_at)
  VALUES (p_id, p_team, p_contest, p_label, 'committed', p_winners, p_weighting, p_confirmed_only, p_min_points,
          p_exclude, v_n, v_w, v_h, p_seed, p_seed_hash, p_ipad, p_opad, p_at);
  RETURN QUERY SELECT 'ok'::text, v_n::int, v_w, v_h;
END
$$;
--> statement-breakpoint
-- One pick of the published walk (unchanged but for where the lines are): W = weight not yet
-- picked; the next u of the stream, rejecting u >= 2^64 - (2^64 mod W); x = u mod W; the winner is
-- the first remaining entry (in snapshot order) at which the running sum of remaining weights
-- exceeds x. x is mapped to the full snapshot's coordinates by stepping over the spans of the
-- entries already picked (in snapshot order); the primary key (draw_id, cum_end) finds the block
-- and a walk of its lines the entry. The caller holds the draw's row lock. Returns false when no
-- weight is left.
CREATE OR REPLACE FUNCTION ce_draw_next_pick(p_draw uuid, p_at timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  two64 constant numeric := 18446744073709551616;
  d record;
  p record;
  b record;
  s bigint;
  ln text;
  win_id uuid;
  win_w bigint;
  win_cum bigint;
  remaining numeric;
  lim numeric;
  u numeric;
  x bigint;
  i int;
  pos int;
BEGIN
  SELECT dr.total_weight, dr.snapshot_hash, dr.public_randomness, dr.hmac_ipad, dr.hmac_opad, dr.stream_next
  INTO d FROM draws dr WHERE dr.id = p_draw;
  SELECT d.total_weight - coalesce(sum(r.weight), 0), coalesce(max(r.position), 0)
  INTO remaining, pos FROM draw_results r WHERE r.draw_id = p_draw;
  IF remaining <= 0 THEN
    RETURN false;
  END IF;
  lim := two64 - mod(two64, remaining);
  i := d.stream_next;
  LOOP
    u := ce_u64(ce_hmac(d.hmac_ipad, d.hmac_opad, d.snapshot_hash || ':' || coalesce(d.public_randomness, '') || ':' || i::text));
    i := i + 1;
    EXIT WHEN u < lim;
  END LOOP;
  x := mod(u, remaining)::bigint;
  FOR p IN SELECT r.cum - r.weight AS start, r.weight FROM draw_results r WHERE r.draw_id = p_draw ORDER BY r.cum LOOP
    EXIT WHEN p.start > x;
    x := x + p.weight;
  END LOOP;
  SELECT bl.cum_start, bl.lines INTO b
  FROM draw_blocks bl WHERE bl.draw_id = p_draw AND bl.cum_end > x ORDER BY bl.cum_end LIMIT 1;
  s := b.cum_start;
  FOREACH ln IN ARRAY string_to_array(rtrim(b.lines, chr(10)), chr(10)) LOOP
    s := s + split_part(ln, ',', 2)::bigint;
    IF s > x THEN
      win_id := split_part(ln, ',', 1)::uuid;
      win_w := split_part(ln, ',', 2)::bigint;
      win_cum := s;
      EXIT;
    END IF;
  END LOOP;
  INSERT INTO draw_results (draw_id, position, entry_id, cum, weight, stream_index, created_at)
  VALUES (p_draw, pos + 1, win_id, win_cum, win_w, i - 1, p_at);
  UPDATE draws SET stream_next = i WHERE id = p_draw;
  RETURN true;
END
$$;
--> statement-breakpoint
-- Reveal: 'not_found' | 'already_revealed' | 'ok'. The draw's row lock makes a second reveal wait
-- and then answer already_revealed. A reveal names its draw in the transaction-local setting
-- ce.draw_revealed: the next statement of the same transaction records the draw.revealed event.
CREATE OR REPLACE FUNCTION ce_draw_reveal(p_draw uuid, p_team uuid, p_public text, p_at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  SELECT dr.status, dr.winners, dr.eligible_count INTO d FROM draws dr WHERE dr.id = p_draw AND dr.team_id = p_team FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 'not_found';
  END IF;
  IF d.status = 'revealed' THEN
    RETURN 'already_revealed';
  END IF;
  UPDATE draws SET status = 'revealed', public_randomness = p_public, revealed_at = p_at WHERE id = p_draw;
  FOR k IN 1..least(d.winners, d.eligible_count) LOOP
    PERFORM ce_draw_next_pick(p_draw, p_at);
  END LOOP;
  PERFORM set_config('ce.draw_revealed', p_draw::text, true);
  RETURN 'ok';
END
$$;
