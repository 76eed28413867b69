/**
 * The two clauses nearly every statement carries, written once: whose rows a statement may touch
 * (the team of the request's key, src/db/team.ts) and which entries exist for it (an erased entry
 * keeps its row for the totals, but is never read or changed again).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Team } from '../db/team.js';

/** `alias.team_id = <the request's team>`: the rows of the team of the key, and no other. */
export const sqlOfTeam = (team: Team, alias: string): SQL => sql`${sql.raw(alias)}.team_id = ${team.id}`;

/** `alias.erased_at is null`: the entry was not erased. */
export const sqlNotErased = (alias: string): SQL => sql.raw(`${alias}.erased_at is null`);
