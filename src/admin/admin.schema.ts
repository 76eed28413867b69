/** Response schemas of the admin API. */
import * as v from 'valibot';
import { Contest } from '../contests/contests.schema.js';
import { int, nonNegInt, timestamp, uuid } from '../http/schemas.js';

export const Team = v.strictObject({ id: uuid, name: v.string() });

export const TeamListItem = v.strictObject({
  id: uuid,
  name: v.string(),
  createdAt: v.pipe(v.string(), v.description('ISO 8601')),
  activeKeysCount: v.pipe(v.number(), v.description('API keys not revoked')),
  contestsCount: v.pipe(v.number(), v.description('contests and instant-win games')),
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

export const AdminContest = v.strictObject({
  ...Contest.entries,
  viewsCount: nonNegInt,
  teamId: uuid,
  campaignType: v.picklist(['viral', 'referral', 'affiliate']),
  requireEmailConfirmation: v.boolean(),
  referral: v.strictObject({
    advocatePoints: nonNegInt,
    friendPoints: nonNegInt,
    creditOn: v.picklist(['create', 'confirm']),
  }),
  risk: v.strictObject({
    mode: v.picklist(['flag', 'hold', 'block']),
    maxEntriesPerIpPerHour: nonNegInt,
    maxReferralsPerHour: nonNegInt,
  }),
  purchaseTracking: v.strictObject({
    enabled: v.boolean(),
    pointsPerPurchase: nonNegInt,
    pointsPerCurrencyUnit: v.pipe(v.number(), v.minValue(0)),
  }),
  externalTracking: v.strictObject({ enabled: v.boolean() }),
  affiliate: v.strictObject({ commissionPercent: v.pipe(v.number(), v.minValue(0), v.maxValue(100)) }),
  publicCacheSeconds: v.pipe(
    v.number(),
    v.description("seconds a public key's reads may come from a cache; 0: always exact"),
  ),
  secrets: v.pipe(
    v.strictObject({ shopifySecretSet: v.boolean(), stripeSecretSet: v.boolean(), webhookSecretSet: v.boolean() }),
    v.description('whether each secret is set; secrets themselves are never shown'),
  ),
});

export const BonusAction = v.strictObject({
  id: uuid,
  contestId: uuid,
  action: v.string(),
  description: v.string(),
  icon: v.string(),
  iconColor: v.string(),
  points: nonNegInt,
  confirmationType: v.picklist(['auto', 'manual', 'click']),
  destinationUrl: v.nullable(v.string()),
  order: int,
});

export const WebhookSecret = v.strictObject({
  secret: v.pipe(v.string(), v.description('`whsec_` + base64; replaces the previous secret at once')),
});

export const Email = v.strictObject({
  id: uuid,
  to: v.string(),
  kind: v.picklist(['confirmation', 'prize']),
  subject: v.string(),
  text: v.string(),
  status: v.picklist(['pending', 'sent', 'failed']),
  createdAt: timestamp,
});
