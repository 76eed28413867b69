/**
 * Whose data a statement may touch: the team, as SQL that goes INTO the request's statement.
 *
 * One round trip per request: the API-key check is not a query of its own but two CTEs at the
 * head of the request's statement (see src/db/functions/auth.sql):
 *
 *   with ce_key as materialized (select * from ce_auth(<hash>, <type>, <access>)),
 *        ce_touch as (update api_keys set last_used_at = ... where id = (select key_id from ce_key) ...),
 *        <the statement's own CTEs>
 *
 * `ce_auth` raises SQLSTATE CEK01 (bad key) or CEK03 (public key on a private route), which
 * aborts the whole statement: nothing changes. `ce_touch` is a data-modifying CTE, which
 * Postgres always runs to completion, so the key is checked even when the statement finds
 * nothing else to do. The team id is `(select team_id from ce_key)`.
 *
 * Domain functions write `with ${team.cte} c as (...) ... where c.team_id = ${team.id}`; for
 * callers that already know the team (admin, signed webhooks, tests) `teamById()` gives an empty
 * `cte` and the id as a parameter.
 */
import { type SQL, sql } from 'drizzle-orm';
import { badStringReason } from '../lib/validation.js';

export interface Team {
  /** CTEs to write right after `with` (each followed by a comma), or nothing */
  readonly cte: SQL;
  /** the team id, as an SQL expression of type uuid */
  readonly id: SQL;
  /**
   * true (an SQL boolean) when the caller is a public key with personalData "masked": the
   * statement must mask entries' personal data (src/entries/data-out.ts). Omitted: false.
   */
  readonly masked?: SQL;
}

/** A known team: no key check in the statement. */
export function teamById(teamId: string): Team {
  return { cte: sql``, id: sql`${teamId}::uuid`, masked: sql`false` };
}

/** The team that owns a contest, for code that names the contest alone (the admin API, the seed). */
export function teamOfContest(contestId: string): Team {
  return { cte: sql``, id: sql`(select team_id from contests where id = ${contestId}::uuid)`, masked: sql`false` };
}

/** SQLSTATEs raised by ce_auth() */
export const KEY_INVALID_SQLSTATE = 'CEK01';
export const KEY_FORBIDDEN_SQLSTATE = 'CEK03';

export interface KeyTeam extends Team {
  /** a statement that only checks the key (for answers that needed no other statement) */
  readonly check: SQL;
  /** hex SHA-256 of the key (a stable name for it: rate limits) */
  readonly keyHash: string;
}

/**
 * The team of an API key, checked inside whatever statement uses it.
 * @param keyHash hex SHA-256 of the key
 * @param type the type its prefix claims (`pk_` public, `sk_` private)
 * @param access what the route needs
 */
export function teamOfKey(
  keyHash: string,
  type: 'public' | 'private',
  access: 'public' | 'private',
  now: Date,
): KeyTeam {
  const at = now.toISOString();
  const cte = sql`ce_key as materialized (select * from ce_auth(${keyHash}::text, ${type}::text, ${access}::text)),
    ce_touch as (
      update api_keys set last_used_at = ${at}::timestamptz
      where id = (select key_id from ce_key)
        and (last_used_at is null or last_used_at < ${at}::timestamptz - interval '60 seconds')
      returning 1
    ),`;
  return {
    cte,
    id: sql`(select team_id from ce_key)`,
    masked: sql`coalesce((select personal_data = 'masked' from ce_key), false)`,
    check: sql`with ${cte} ok as (select 1) select count(*) as n from ce_key`,
    keyHash,
  };
}

/**
 * The team of a contest that takes public sign-ups, for a visitor's call without a key
 * (docs/signups.md, "No key in a page"): checked inside the statement as a key is, by
 * ce_public_contest, which raises CEK01 (401) for an unknown contest or one without public
 * sign-ups. Personal data is always masked.
 */
export function teamOfPublicContest(contestId: string): KeyTeam {
  // the id from the path as typed: a string Postgres could not take as text (U+0000, a lone
  // surrogate) names no contest, and is sent as one that names none (an empty id)
  const id = badStringReason(contestId) ? '' : contestId;
  return keylessTeam(sql`ce_public_contest(${id}::text)`, `contest:${id}`);
}

/**
 * The team of a visitor's entry token, for the widget's calls about its own entry without a key:
 * ce_entry_token_team raises CEK01 for an unknown token. Personal data masked.
 * @param tokenHash hex SHA-256 of the token
 */
export function teamOfEntryToken(tokenHash: string): KeyTeam {
  return keylessTeam(sql`ce_entry_token_team(${tokenHash}::text)`, `token:${tokenHash}`);
}

function keylessTeam(check: SQL, keyHash: string): KeyTeam {
  // ce_touch touches nothing (no key id) but, as a data-modifying CTE that reads ce_key, makes
  // the check run even in a statement that never reads the team
  const cte = sql`ce_key as materialized (select * from ${check}),
    ce_touch as (update api_keys set last_used_at = last_used_at where id = (select key_id from ce_key) returning 1),`;
  return {
    cte,
    id: sql`(select team_id from ce_key)`,
    masked: sql`true`,
    check: sql`with ${cte} ok as (select 1) select count(*) as n from ce_key`,
    keyHash,
  };
}
