CREATE TABLE "draw_blocks" (
	"draw_id" uuid NOT NULL,
	"cum_end" bigint NOT NULL,
	"cum_start" bigint NOT NULL,
	"char_start" bigint NOT NULL,
	"char_len" integer NOT NULL,
	CONSTRAINT "draw_blocks_draw_id_cum_end_pk" PRIMARY KEY("draw_id","cum_end")
);
--> statement-breakpoint
CREATE TABLE "draw_results" (
	"draw_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"entry_id" uuid NOT NULL,
	"cum" bigint NOT NULL,
	"weight" bigint NOT NULL,
	"stream_index" integer NOT NULL,
	"replaced" boolean DEFAULT false NOT NULL,
	"replaced_reason" text,
	"replaced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "draw_results_draw_id_position_pk" PRIMARY KEY("draw_id","position")
);
--> statement-breakpoint
CREATE TABLE "draw_snapshots" (
	"draw_id" uuid PRIMARY KEY NOT NULL,
	"csv" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "draws" (
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" uuid NOT NULL,
	"contest_id" uuid NOT NULL,
	"label" text,
	"status" text DEFAULT 'committed' NOT NULL,
	"winners" integer NOT NULL,
	"weighting" text NOT NULL,
	"confirmed_only" boolean NOT NULL,
	"min_points" integer NOT NULL,
	"exclude_previous_winners" boolean NOT NULL,
	"eligible_count" integer NOT NULL,
	"total_weight" bigint NOT NULL,
	"snapshot_hash" text NOT NULL,
	"seed" "bytea" NOT NULL,
	"seed_hash" text NOT NULL,
	"hmac_ipad" "bytea" NOT NULL,
	"hmac_opad" "bytea" NOT NULL,
	"public_randomness" text,
	"stream_next" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revealed_at" timestamp with time zone,
	CONSTRAINT "draws_status_ck" CHECK ("draws"."status" in ('committed', 'revealed')),
	CONSTRAINT "draws_weighting_ck" CHECK ("draws"."weighting" in ('equal', 'points')),
	CONSTRAINT "draws_winners_ck" CHECK ("draws"."winners" between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "instant_win_nonces" (
	"seed_id" uuid NOT NULL,
	"cookie_hash" text NOT NULL,
	"last_nonce" integer NOT NULL,
	CONSTRAINT "instant_win_nonces_seed_id_cookie_hash_pk" PRIMARY KEY("seed_id","cookie_hash")
);
--> statement-breakpoint
CREATE TABLE "instant_win_seeds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"game_id" uuid NOT NULL,
	"seed" "bytea" NOT NULL,
	"seed_hash" text NOT NULL,
	"hmac_ipad" "bytea" NOT NULL,
	"hmac_opad" "bytea" NOT NULL,
	"tiers" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revealed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD COLUMN "seed_id" uuid;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD COLUMN "client_seed" text;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD COLUMN "nonce" integer;--> statement-breakpoint
ALTER TABLE "instant_win_plays" ADD COLUMN "drawn_tier_id" uuid;--> statement-breakpoint
ALTER TABLE "draw_results" ADD CONSTRAINT "draw_results_draw_id_draws_id_fk" FOREIGN KEY ("draw_id") REFERENCES "public"."draws"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draws" ADD CONSTRAINT "draws_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draws" ADD CONSTRAINT "draws_contest_id_contests_id_fk" FOREIGN KEY ("contest_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_nonces" ADD CONSTRAINT "instant_win_nonces_seed_id_instant_win_seeds_id_fk" FOREIGN KEY ("seed_id") REFERENCES "public"."instant_win_seeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instant_win_seeds" ADD CONSTRAINT "instant_win_seeds_game_id_contests_id_fk" FOREIGN KEY ("game_id") REFERENCES "public"."contests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "draw_results_entry_uq" ON "draw_results" USING btree ("draw_id","entry_id");--> statement-breakpoint
CREATE INDEX "draws_contest_created_idx" ON "draws" USING btree ("contest_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "iw_seeds_current_uq" ON "instant_win_seeds" USING btree ("game_id") WHERE "instant_win_seeds"."revealed_at" is null;--> statement-breakpoint
CREATE INDEX "iw_seeds_game_idx" ON "instant_win_seeds" USING btree ("game_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "iw_plays_seed_nonce_uq" ON "instant_win_plays" USING btree ("seed_id","cookie_hash","nonce") WHERE "instant_win_plays"."seed_id" is not null;--> statement-breakpoint
ALTER TABLE draw_snapshots ALTER COLUMN csv SET STORAGE EXTERNAL;
--> statement-breakpoint
-- ---------------------------------------------------------------------------------------------
-- Provable fairness (docs/fairness.md). HMAC-SHA256 in SQL without pgcrypto: for a 32-byte key
-- K, HMAC(K, m) = sha256((K0 xor opad) || sha256((K0 xor ipad) || m)), K0 = K padded with zeros
-- to 64 bytes. The server stores the two padded keys beside every seed.
CREATE FUNCTION ce_hmac_pad(p_key bytea, p_pad int) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  k bytea := p_key || decode(repeat('00', 64 - length(p_key)), 'hex');
BEGIN
  FOR i IN 0..63 LOOP
    k := set_byte(k, i, get_byte(k, i) # p_pad);
  END LOOP;
  RETURN k;
END
$$;
--> statement-breakpoint
-- HMAC-SHA256 over the UTF-8 bytes of p_msg, from the key's pads (ipad = K0 xor 0x36.., opad = K0 xor 0x5c..)
CREATE FUNCTION ce_hmac(p_ipad bytea, p_opad bytea, p_msg text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT sha256(p_opad || sha256(p_ipad || convert_to(p_msg, 'UTF8')))
$$;
--> statement-breakpoint
-- The first 8 bytes of p as an unsigned big-endian 64-bit integer
CREATE FUNCTION ce_u64(p bytea) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (('x' || encode(substring(p from 1 for 8), 'hex'))::bit(64)::bigint)::numeric
         + CASE WHEN get_byte(p, 0) >= 128 THEN 18446744073709551616 ELSE 0 END
$$;
--> statement-breakpoint
-- Games that existed before fairness get their first committed seed (random bytes from two
-- gen_random_uuid() calls hashed; the server makes later seeds with crypto.getRandomValues).
INSERT INTO instant_win_seeds (id, game_id, seed, seed_hash, hmac_ipad, hmac_opad, tiers, created_at)
SELECT gen_random_uuid(), g.contest_id, s.seed, encode(sha256(s.seed), 'hex'), ce_hmac_pad(s.seed, 54), ce_hmac_pad(s.seed, 92),
       coalesce((SELECT jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'oddsPercent', t.odds_percent) ORDER BY t.position, t.id)
                 FROM instant_win_tiers t WHERE t.game_id = g.contest_id AND t.archived_at IS NULL), '[]'::jsonb),
       now()
FROM instant_win_games g
CROSS JOIN LATERAL (SELECT sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || g.contest_id::text, 'UTF8')) AS seed) s;
--> statement-breakpoint
-- A draw's snapshot goes with the draw (draw_snapshots and draw_blocks have no foreign key).
CREATE FUNCTION ce_draws_cleanup() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM draw_snapshots WHERE draw_id IN (SELECT id FROM ce_old_draws);
  DELETE FROM draw_blocks WHERE draw_id IN (SELECT id FROM ce_old_draws);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER draws_cleanup AFTER DELETE ON draws REFERENCING OLD TABLE AS ce_old_draws
FOR EACH STATEMENT EXECUTE FUNCTION ce_draws_cleanup();
--> statement-breakpoint
-- Commit: freezes the eligible set of a contest as its published CSV (draw_snapshots) with an
-- index of 1,000-line blocks and their running sums of weights (draw_blocks), hashes exactly the
-- stored bytes, and stores the draw. Returns 'contest_not_found' | 'no_eligible' | 'ok' with the
-- counts and the hash. Speed at a million entries: ONE sort of the eligible rows by id (in
-- memory: work_mem; index scans off, or the planner walks the entries primary key in id order
-- with one random heap read per row) computing running weights and running text offsets in the
-- same pass; the lines are aggregated in that order straight from the sorted rows (a
-- materialized CTE returns its rows in the order they were produced); one CSV row and a
-- thousand block rows written.
CREATE FUNCTION ce_draw_commit(
  p_id uuid, p_team uuid, p_contest uuid, p_label text, p_winners int, p_weighting text, p_confirmed_only boolean,
  p_min_points int, p_exclude boolean, p_seed bytea, p_seed_hash text, p_ipad bytea, p_opad bytea, p_at timestamptz)
RETURNS TABLE (outcome text, eligible_count int, total_weight bigint, snapshot_hash text)
LANGUAGE plpgsql SET work_mem = '512MB' SET enable_indexscan = off SET jit = off AS $$
DECLARE
  header constant text := 'entry_id,weight,email_sha256' || chr(10);
  n int;
  w bigint;
  body text;
  last_cum bigint;
  last_chars bigint;
  bytes bytea;
BEGIN
  PERFORM 1 FROM contests c WHERE c.id = p_contest AND c.team_id = p_team;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'contest_not_found'::text, 0, 0::bigint, NULL::text;
    RETURN;
  END IF;
  WITH el AS (
    SELECT e.id, CASE WHEN p_weighting = 'points' THEN e.points::bigint ELSE 1::bigint END AS weight,
           e.id::text || ',' || (CASE WHEN p_weighting = 'points' THEN e.points ELSE 1 END)::text || ','
             || coalesce(encode(sha256(convert_to(e.email, 'UTF8')), 'hex'), '') || chr(10) AS line,
           e.email IS NOT NULL AS has_email
    FROM entries e
    WHERE e.contest_id = p_contest
      AND NOT e.disqualified
      AND (NOT p_confirmed_only OR e.email_confirmed)
      AND e.points >= p_min_points
      AND (p_weighting <> 'points' OR e.points > 0)
      AND (NOT p_exclude OR NOT EXISTS (
        SELECT 1 FROM draw_results r JOIN draws d ON d.id = r.draw_id
        WHERE d.contest_id = p_contest AND d.status = 'revealed' AND NOT r.replaced AND r.entry_id = e.id))
  ), ordered AS MATERIALIZED (
    SELECT line,
           sum(weight) OVER w AS cum,
           -- the line's length without building it twice: uuid, comma, weight, comma, 64 hex or none, newline
           sum(39 + length(weight::text) + CASE WHEN has_email THEN 64 ELSE 0 END) OVER w AS chars,
           row_number() OVER w AS rn
    FROM el WINDOW w AS (ORDER BY id ROWS UNBOUNDED PRECEDING)
  ), ends AS (
    SELECT cum, chars, rn FROM ordered WHERE rn % 1000 = 0
  ), blocks AS (
    INSERT INTO draw_blocks (draw_id, cum_end, cum_start, char_start, char_len)
    SELECT p_id, cum, coalesce(lag(cum) OVER (ORDER BY rn), 0), length(header) + coalesce(lag(chars) OVER (ORDER BY rn), 0),
           chars - coalesce(lag(chars) OVER (ORDER BY rn), 0)
    FROM ends
  )
  SELECT count(*), coalesce(max(o.cum), 0), string_agg(o.line, '') INTO n, w, body FROM ordered o;
  IF n = 0 THEN
    RETURN QUERY SELECT 'no_eligible'::text, 0, 0::bigint, NULL::text;
    RETURN;
  END IF;
  IF n % 1000 <> 0 THEN
    -- the last, shorter block
    SELECT coalesce(max(bl.cum_end), 0), length(header) + coalesce(sum(bl.char_len), 0) INTO last_cum, last_chars
    FROM draw_blocks bl WHERE bl.draw_id = p_id;
    INSERT INTO draw_blocks (draw_id, cum_end, cum_start, char_start, char_len)
    VALUES (p_id, w, last_cum, last_chars, length(header) + length(body) - last_chars);
  END IF;
  bytes := convert_to(header || body, 'UTF8');
  INSERT INTO draw_snapshots (draw_id, csv) VALUES (p_id, bytes);
  INSERT INTO draws (id, team_id, contest_id, label, status, winners, weighting, confirmed_only, min_points,
                     exclude_previous_winners, eligible_count, total_weight, snapshot_hash, seed, seed_hash,
                     hmac_ipad, hmac_opad, created_at)
  VALUES (p_id, p_team, p_contest, p_label, 'committed', p_winners, p_weighting, p_confirmed_only, p_min_points,
          p_exclude, n, w, encode(sha256(bytes), 'hex'), p_seed, p_seed_hash, p_ipad, p_opad, p_at)
  RETURNING draws.snapshot_hash INTO body;
  RETURN QUERY SELECT 'ok'::text, n, w, body;
END
$$;
--> statement-breakpoint
-- One pick of the published walk: W = weight not yet picked; the next u of the stream,
-- rejecting u >= 2^64 - (2^64 mod W); x = u mod W; the winner is the first remaining entry (in
-- snapshot order) at which the running sum of remaining weights exceeds x. Done without walking
-- the snapshot: x is mapped to the full snapshot's coordinates by stepping over the spans of the
-- entries already picked (in snapshot order); the primary key (draw_id, cum_end) finds the block
-- and a walk of its (at most 1,000) CSV lines the entry. The caller holds the draw's row lock.
-- Returns false when no weight is left.
CREATE FUNCTION ce_draw_next_pick(p_draw uuid, p_at timestamptz) RETURNS boolean
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
  SELECT bl.cum_start, bl.char_start, bl.char_len INTO b
  FROM draw_blocks bl WHERE bl.draw_id = p_draw AND bl.cum_end > x ORDER BY bl.cum_end LIMIT 1;
  s := b.cum_start;
  FOREACH ln IN ARRAY (SELECT string_to_array(rtrim(convert_from(substring(sn.csv from (b.char_start + 1)::int for b.char_len), 'UTF8'), chr(10)), chr(10))
                       FROM draw_snapshots sn WHERE sn.draw_id = p_draw) LOOP
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
-- and then answer already_revealed.
CREATE FUNCTION ce_draw_reveal(p_draw uuid, p_team uuid, p_public text, p_at timestamptz) RETURNS text
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
  -- draw.revealed: the outbound event for this reveal is to be queued here, in this transaction
  RETURN 'ok';
END
$$;
--> statement-breakpoint
-- Replace: 'not_found' | 'not_revealed' | 'winner_not_found' | 'no_eligible' | 'ok'. Marks the
-- current winner replaced and appends the next pick of the same stream; refusals change nothing.
CREATE FUNCTION ce_draw_replace(p_draw uuid, p_team uuid, p_entry uuid, p_reason text, p_at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
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
$$;
