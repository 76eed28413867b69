/** Response schemas of the admin API. */
import * as v from 'valibot';
import { timestamp, uuid } from '../http/schemas.js';

export const Team = v.strictObject({ id: uuid, name: v.string() });

export const TeamListItem = v.strictObject({
  id: uuid,
  name: v.string(),
  createdAt: v.pipe(v.string(), v.description('ISO 8601')),
  activeKeysCount: v.pipe(v.number(), v.description('API keys not revoked')),
  contestsCount: v.pipe(v.number(), v.description('contests (giveaways, leaderboards, waitlists, content gates)')),
  gamesCount: v.pipe(v.number(), v.description('instant-win games')),
});

export const ApiKey = v.strictObject({
  id: uuid,
  type: v.picklist(['public', 'private']),
  name: v.nullable(v.string()),
  key: v.pipe(v.string(), v.description('the key itself: shown this once, only its hash is stored')),
  prefix: v.string(),
  personalData: v.pipe(
    v.nullable(v.picklist(['full', 'masked'])),
    v.description('public keys: full, or masked personal data in every answer; null for private keys'),
  ),
});

export const RevokedApiKey = v.strictObject({ id: uuid, revoked: v.literal(true) });

export const WebhookSecret = v.strictObject({
  secret: v.pipe(v.string(), v.description('`whsec_` + base64; replaces the previous secret at once')),
});

export const Email = v.strictObject({
  id: uuid,
  to: v.string(),
  kind: v.picklist(['confirmation', 'prize', 'status_link', 'winner', 'admitted']),
  subject: v.string(),
  text: v.string(),
  status: v.picklist(['pending', 'sent', 'failed']),
  createdAt: timestamp,
});

/** An API key as the admin key list shows it (never the key itself). */
export const apiKeySchema = v.object({
  id: v.string(),
  type: v.picklist(['public', 'private']),
  name: v.nullable(v.string()),
  prefix: v.string(),
  personalData: v.nullable(v.picklist(['full', 'masked'])),
  createdAt: v.string(),
  revokedAt: v.nullable(v.string()),
});
