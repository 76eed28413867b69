import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';

/** The key a request was made with: its team (with the name), type and personal-data mode. One statement. */
export async function keyInfo(db: Db, team: Team) {
  const row = await queryOne<{
    id: string;
    team_id: string;
    team_name: string;
    type: 'public' | 'private';
    name: string | null;
    prefix: string;
    personal_data: 'full' | 'masked' | null;
  }>(
    db,
    sql`with ${team.cte} _ as (select 1)
        select k.id, k.team_id, t.name as team_name, k.type, k.name, k.prefix, ce_key.personal_data
        from ce_key join api_keys k on k.id = ce_key.key_id join teams t on t.id = k.team_id`,
  );
  if (!row) throw Errors.missingOrInvalidKey();
  return {
    id: row.id,
    teamId: row.team_id,
    teamName: row.team_name,
    type: row.type,
    name: row.name,
    prefix: row.prefix,
    personalData: row.personal_data,
  };
}
