-- Draws: the commit, reveal and replacement of a draw's winners, walked in SQL over the entries'
-- weights with an HMAC-SHA256 stream (docs/fairness.md), and the blocks of a committed snapshot.
-- Triggers: draws_cleanup (AFTER DELETE ON draws) deletes the deleted draws' draw_blocks.
-- Relied on by: src/draws/draws.ts (ce_draw_commit, ce_draw_reveal, ce_draw_replace), the
-- verification of a draw (ce_hmac, ce_u64 are its arithmetic; scripts/verify-draw.ts does the same).

-- ce:function
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
CREATE OR REPLACE FUNCTION ce_draw_commit(p_id uuid, p_team uuid, p_contest uuid, p_label text, p_winners integer, p_weighting text, p_confirmed_only boolean, p_min_points integer, p_exclude boolean, p_seed bytea, p_seed_hash text, p_ipad bytea, p_opad bytea, p_at timestamp with time zone)
 RETURNS TABLE(outcome text, eligible_count integer, total_weight bigint, snapshot_hash text)
 LANGUAGE plpgsql
 SET work_mem TO '512MB'
 SET enable_indexscan TO 'off'
 SET enable_hashagg TO 'off'
 SET jit TO 'off'
AS $function$
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
$function$;

-- ce:function
-- One pick of the published walk (unchanged but for where the lines are): W = weight not yet
-- picked; the next u of the stream, rejecting u >= 2^64 - (2^64 mod W); x = u mod W; the winner is
-- the first remaining entry (in snapshot order) at which the running sum of remaining weights
-- exceeds x. x is mapped to the full snapshot's coordinates by stepping over the spans of the
-- entries already picked (in snapshot order); the primary key (draw_id, cum_end) finds the block
-- and a walk of its lines the entry. The caller holds the draw's row lock. Returns false when no
-- weight is left.
CREATE OR REPLACE FUNCTION ce_draw_next_pick(p_draw uuid, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
$function$;

-- ce:function
-- Replace: 'not_found' | 'not_revealed' | 'winner_not_found' | 'no_eligible' | 'ok'. Marks the
-- current winner replaced and appends the next pick of the same stream; refusals change nothing.
CREATE OR REPLACE FUNCTION ce_draw_replace(p_draw uuid, p_team uuid, p_entry uuid, p_reason text, p_at timestamp with time zone)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
DECLARE
  d record;
  left_weight numeric;
BEGIN
  SELECT dr.status, dr.total_weight INTO d FROM draws dr WHERE dr.id = p_draw AND dr.team_id = p_team FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 'not_found';
  END IF;
  IF d.status <> 'revealed' THEN
    RETURN 'not_revealed';
  END IF;
  PERFORM 1 FROM draw_results r WHERE r.draw_id = p_draw AND r.entry_id = p_entry AND NOT r.replaced;
  IF NOT FOUND THEN
    RETURN 'winner_not_found';
  END IF;
  SELECT d.total_weight - coalesce(sum(r.weight), 0) INTO left_weight FROM draw_results r WHERE r.draw_id = p_draw;
  IF left_weight <= 0 THEN
    RETURN 'no_eligible';
  END IF;
  UPDATE draw_results SET replaced = true, replaced_reason = p_reason, replaced_at = p_at
  WHERE draw_id = p_draw AND entry_id = p_entry;
  PERFORM ce_draw_next_pick(p_draw, p_at);
  RETURN 'ok';
END
$function$;

-- ce:function
-- Reveal: 'not_found' | 'already_revealed' | 'ok'. The draw's row lock makes a second reveal wait
-- and then answer already_revealed. A reveal names its draw in the transaction-local setting
-- ce.draw_revealed: the next statement of the same transaction records the draw.revealed event.
CREATE OR REPLACE FUNCTION ce_draw_reveal(p_draw uuid, p_team uuid, p_public text, p_at timestamp with time zone)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
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
$function$;

-- ce:function
-- A block of a draw's snapshot is stored as it goes by, and comes back as the bytes it adds to
-- the published CSV (so the commit's one pass both stores the blocks and hashes them).
CREATE OR REPLACE FUNCTION ce_draw_store_block(p_draw uuid, p_cum_end bigint, p_cum_start bigint, p_lines text)
 RETURNS bytea
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO draw_blocks (draw_id, cum_end, cum_start, lines) VALUES (p_draw, p_cum_end, p_cum_start, p_lines);
  RETURN convert_to(p_lines, 'UTF8');
END
$function$;

-- ce:function
-- A draw's snapshot goes with the draw (draw_snapshots and draw_blocks have no foreign key).
CREATE OR REPLACE FUNCTION draws_cleanup()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM draw_blocks WHERE draw_id IN (SELECT id FROM ce_old_draws);
  RETURN NULL;
END
$function$;

-- ce:function
CREATE OR REPLACE TRIGGER draws_cleanup AFTER DELETE ON draws REFERENCING OLD TABLE AS ce_old_draws FOR EACH STATEMENT EXECUTE FUNCTION draws_cleanup();

-- ce:function
-- HMAC-SHA256 over the UTF-8 bytes of p_msg, from the key's pads (ipad = K0 xor 0x36.., opad = K0 xor 0x5c..)
CREATE OR REPLACE FUNCTION ce_hmac(p_ipad bytea, p_opad bytea, p_msg text)
 RETURNS bytea
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT sha256(p_opad || sha256(p_ipad || convert_to(p_msg, 'UTF8')))
$function$;

-- ce:function
-- ---------------------------------------------------------------------------------------------
-- Provable fairness (docs/fairness.md). HMAC-SHA256 in SQL without pgcrypto: for a 32-byte key
-- K, HMAC(K, m) = sha256((K0 xor opad) || sha256((K0 xor ipad) || m)), K0 = K padded with zeros
-- to 64 bytes. The server stores the two padded keys beside every seed.

-- The key padded with zeros to 64 bytes, each byte XORed with the pad (0x36: ipad, 0x5c: opad).
CREATE OR REPLACE FUNCTION ce_hmac_pad(p_key bytea, p_pad integer)
 RETURNS bytea
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  k bytea := p_key || decode(repeat('00', 64 - length(p_key)), 'hex');
BEGIN
  FOR i IN 0..63 LOOP
    k := set_byte(k, i, get_byte(k, i) # p_pad);
  END LOOP;
  RETURN k;
END
$function$;

-- ce:function
-- The first 8 bytes of p as an unsigned big-endian 64-bit integer
CREATE OR REPLACE FUNCTION ce_u64(p bytea)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT (('x' || encode(substring(p from 1 for 8), 'hex'))::bit(64)::bigint)::numeric
         + CASE WHEN get_byte(p, 0) >= 128 THEN 18446744073709551616 ELSE 0 END
$function$;
