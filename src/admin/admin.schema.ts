/** Response schemas of the admin API. */
import * as v from 'valibot';
import { timestamp, uuid } from '../http/schemas.js';
import { trimmedString } from '../http/validate.js';

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

/** POST /api/admin/teams */
export const CreateTeamBody = v.object({
  name: v.pipe(trimmedString('name', 200), v.minLength(1, 'name must not be empty')),
});

/** POST /api/admin/teams/{teamId}/api-keys */
export const CreateApiKeyBody = v.pipe(
  v.object({
    type: v.picklist(['public', 'private'], 'type must be public or private'),
    name: v.optional(v.nullable(trimmedString('name', 200))),
    // any value on a private key: 400 personalData applies to public keys only (checked first)
    personalData: v.optional(
      v.pipe(
        v.unknown(),
        v.description('"full" (default) or "masked": what the key sees of entries\' personal data; public keys only'),
      ),
    ),
  }),
  v.check(
    (b) =>
      b.type === 'private' || b.personalData === undefined || b.personalData === 'full' || b.personalData === 'masked',
    'personalData must be full or masked',
  ),
);

/** GET /api/v1/key */
export const KeyInfo = v.strictObject({
  id: v.string(),
  teamId: v.string(),
  teamName: v.string(),
  type: v.picklist(['public', 'private']),
  name: v.nullable(v.string()),
  prefix: v.pipe(v.string(), v.description('the first characters of the key, as the key list shows them')),
  personalData: v.pipe(
    v.nullable(v.picklist(['full', 'masked'])),
    v.description('public keys: what they show of entries; private keys: null'),
  ),
});
