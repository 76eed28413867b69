/** The other tools a team connects (Klaviyo, Mailchimp, HubSpot): docs/integrations.md. */
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { PROVIDERS } from '../../lib/integrations.js';
import { createdAt, id, ts } from './columns.js';
import { teams } from './core.js';

export const integrations = pgTable(
  'integrations',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    /** the credentials as JSON, sealed with the deployment's INTEGRATIONS_KEY (src/lib/secret-box.ts) */
    credentials: text('credentials').notNull(),
    /** the credential's last 4 characters: all the API ever shows of it */
    credentialHint: text('credential_hint').notNull(),
    /** where the people go: {listId} (Klaviyo), {audienceId} (Mailchimp), {} (HubSpot) */
    target: jsonb('target').notNull().default(sql`'{}'::jsonb`),
    /** the contests it takes people from; null: all of the team's */
    contests: uuid('contests').array(),
    options: jsonb('options').notNull().default(sql`'{}'::jsonb`),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('integrations_team_idx').on(t.teamId, t.createdAt),
    check('integrations_provider_ck', sql`${t.provider} in (${sql.raw(PROVIDERS.map((p) => `'${p}'`).join(', '))})`),
  ],
);
