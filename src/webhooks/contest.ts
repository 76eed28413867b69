/**
 * The contest named by a webhook path, with what its webhooks need (secrets and switches).
 * Webhooks carry no API key: the contest's own secrets authenticate them.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import { type Team, teamById } from '../db/team.js';
import { isUuid } from '../lib/crypto.js';

export interface WebhookContest {
  id: string;
  teamId: string;
  /** the team, for the domain functions the webhook calls (no key: the contest's secret authenticated it) */
  team: Team;
  webhookSecret: string | null;
  shopifySecret: string | null;
  stripeSecret: string | null;
  externalTrackingEnabled: boolean;
}

/** undefined for a malformed or unknown id (the routes answer those like a bad signature). */
export async function loadWebhookContest(db: Db, contestId: string | undefined): Promise<WebhookContest | undefined> {
  if (!isUuid(contestId)) return undefined;
  const row = await queryOne<{
    id: string;
    team_id: string;
    webhook_secret: string | null;
    shopify_secret: string | null;
    stripe_secret: string | null;
    external_tracking_enabled: boolean;
  }>(
    db,
    sql`select id, team_id, webhook_secret, shopify_secret, stripe_secret, external_tracking_enabled
        from contests where id = ${contestId}`,
  );
  if (!row) return undefined;
  return {
    id: row.id,
    teamId: row.team_id,
    team: teamById(row.team_id),
    webhookSecret: row.webhook_secret,
    shopifySecret: row.shopify_secret,
    stripeSecret: row.stripe_secret,
    externalTrackingEnabled: row.external_tracking_enabled,
  };
}
