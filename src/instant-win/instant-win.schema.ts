/** Response schemas of the instant-win routes. */
import * as v from 'valibot';
import { nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { emailSchema, pageQuerySchema } from '../http/validate.js';
import { GameFairness, PlayFairness } from './fairness.schema.js';
import { PLAY_COOKIE_RE } from './hashing.js';
import {
  DELIVERY_TYPES,
  ENTRY_LIMITS,
  GAME_STATUSES,
  LAYOUTS,
  MECHANICS,
  PLAY_STATUSES,
  PRESETS,
  PUBLISH_AS,
  RETIRED_PRESETS,
} from './presets.js';

export const Tier = v.strictObject({
  id: uuid,
  name: v.string(),
  oddsPercent: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  isMiss: v.boolean(),
  color: v.nullable(v.string()),
  deliveryType: v.nullable(v.picklist(DELIVERY_TYPES)),
  quantity: v.nullable(nonNegInt),
  remaining: v.nullable(nonNegInt),
  codesTotal: nonNegInt,
  codesAvailable: nonNegInt,
  redeemCode: v.optional(v.pipe(v.nullable(v.string()), v.description('private keys only'))),
  redeemUrl: v.optional(v.pipe(v.nullable(v.string()), v.description('private keys only'))),
  codes: v.optional(
    v.pipe(v.array(v.string()), v.description('private keys only, not in lists: the code pool of a unique_code tier')),
  ),
});

export const Game = v.strictObject({
  id: uuid,
  slug: v.pipe(v.string(), v.description('the preset')),
  title: v.string(),
  description: v.nullable(v.string()),
  status: v.picklist(GAME_STATUSES),
  mechanic: v.picklist(MECHANICS),
  layout: v.picklist(LAYOUTS),
  entryLimit: v.picklist(ENTRY_LIMITS),
  publishAs: v.picklist(PUBLISH_AS),
  embedUrl: v.nullable(v.string()),
  publicCacheSeconds: v.pipe(
    v.number(),
    v.description('seconds what a public key reads about this game may come from a cache; 0: always exact'),
  ),
  tiers: v.array(Tier),
  stats: v.strictObject({ plays: nonNegInt, wins: nonNegInt, claims: nonNegInt }),
  fairness: v.pipe(v.nullable(GameFairness), v.description('the committed server seed the next plays are drawn with')),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const DeletedGame = v.strictObject({ id: uuid, deleted: v.literal(true) });

export const PlayResult = v.strictObject({
  playId: uuid,
  playCookie: v.pipe(
    v.string(),
    v.description('keep it (e.g. in localStorage) and send it with the claim and later plays'),
  ),
  alreadyPlayed: v.literal(false),
  result: v.strictObject({
    id: v.pipe(v.nullable(uuid), v.description('null for the built-in "No prize"')),
    name: v.string(),
    isMiss: v.boolean(),
    color: v.nullable(v.string()),
  }),
  fairness: PlayFairness,
});

export const Claim = v.strictObject({
  alreadyClaimed: v.boolean(),
  prizeName: v.string(),
  couponCode: v.nullable(v.string()),
  redeemUrl: v.nullable(v.string()),
});

export const Play = v.strictObject({
  id: uuid,
  status: v.picklist(PLAY_STATUSES),
  tier: v.strictObject({ id: v.nullable(uuid), name: v.string(), isMiss: v.boolean() }),
  email: v.nullable(v.string()),
  createdAt: timestamp,
  expiresAt: v.nullable(timestamp),
  claimedAt: v.nullable(timestamp),
  drawnTier: v.pipe(
    v.nullable(v.strictObject({ id: uuid, name: v.string() })),
    v.description('the tier the number drew (the result differs when it was out of stock)'),
  ),
  clientSeed: v.nullable(v.string()),
  nonce: v.nullable(nonNegInt),
  seedId: v.nullable(uuid),
});

// ---------------------------------------------------------------- requests

const LIST_SLUGS: readonly string[] = [...PRESETS, ...RETIRED_PRESETS];

const playCookieSchema = v.optional(
  v.nullable(
    v.pipe(
      v.string('Invalid playCookie'),
      v.regex(PLAY_COOKIE_RE, 'Invalid playCookie'),
      v.description('the device cookie from an earlier play (16-128 characters: letters, digits, _ and -)'),
    ),
  ),
);

const clientSeedSchema = v.optional(
  v.pipe(
    v.string('clientSeed must be 1 to 64 printable ASCII characters'),
    v.regex(/^[\x20-\x7e]{1,64}$/, 'clientSeed must be 1 to 64 printable ASCII characters'),
    v.description('your own seed for the provably fair number (default: the hex SHA-256 of playCookie)'),
  ),
);

/** GET /instant-win/games */
export const GameListQuery = v.object({
  slug: v.optional(v.pipe(v.string(), v.picklist(LIST_SLUGS, 'Unknown slug'), v.description('preset filter'))),
  ...pageQuerySchema,
});

/** DELETE /instant-win/games/{gameId} */
export const DeleteGameQuery = v.object({
  force: v.optional(v.picklist(['true', 'false'], 'force must be true or false')),
});

/** POST /instant-win/games/{gameId}/play */
export const PlayBody = v.object({ playCookie: playCookieSchema, clientSeed: clientSeedSchema });

/** POST /instant-win/games/{gameId}/plays/{playId}/claim: a missing email answers the same `Invalid email` as a wrong one */
export const ClaimBody = v.object({ email: emailSchema, playCookie: playCookieSchema }, 'Invalid email');

/** GET /instant-win/games/{gameId}/plays */
export const PlayListQuery = v.object({
  status: v.optional(v.picklist(PLAY_STATUSES, `status must be one of ${PLAY_STATUSES.join(', ')}`)),
  ...pageQuerySchema,
});
