/**
 * The one place that defines what an error answers: status + exact message. Clients match on
 * these strings (the API reference), so they are written once, here. A ground-floor module:
 * domain code throws these, and the HTTP layer (src/http/envelope.ts, app.onError) turns them
 * into the error envelope; nothing here knows about HTTP frameworks.
 */

/** The statuses an API error answers with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503;

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const def = (status: ErrorStatus, message: string) => () => new ApiError(status, message);

export const Errors = {
  // conventions (docs/api.md)
  notFound: def(404, 'Not found'),
  invalidBody: def(400, 'Invalid request body'),
  jsonTooDeep: def(400, 'JSON nested too deeply'),
  bodyTooLarge: def(413, 'Request body too large'),
  unsupportedMediaType: def(415, 'Content-Type must be application/json'),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError(429, 'Too many requests', { 'Retry-After': String(retryAfterSeconds) }),
  internal: def(500, 'Internal server error'),
  validation: (message: string) => new ApiError(400, message),

  // auth (docs/api.md)
  missingOrInvalidKey: def(401, 'Missing or invalid API key'),
  invalidKey: def(401, 'Invalid API key'),
  privateKeyRequired: def(403, 'This endpoint requires a private API key'),
  privateKeyRequiredShort: def(403, 'Private key required'),
  adminUnauthorized: def(401, 'Unauthorized'),

  // contests and entries (docs/contests-and-entries.md)
  missingContestId: def(400, 'Missing contestId'),
  contestNotFound: def(404, 'Contest not found'),
  contestNotActive: def(409, 'Contest is not active'),
  slugTaken: def(409, 'Slug already in use'),
  entryNotFound: def(404, 'Entry not found'),
  emailOrPhoneRequired: def(400, 'Email or phone is required'),
  emailAlreadyUsed: def(409, 'Email already used by another entry'),
  phoneAlreadyUsed: def(409, 'Phone already used by another entry'),
  nothingToUpdate: def(400, 'At least one of name, email, phone or customFieldData is required'),
  missingPointsOrReason: def(400, 'Missing points or reason'),
  confirmationNotFound: def(404, 'Confirmation link not found'),

  // sign-ups from a page (docs/signups.md)
  signupClosed: def(403, 'Sign-ups with a public key are off for this contest'),
  consentRequired: def(400, 'consent is required'),
  botCheckFailed: def(403, 'Bot check failed'),
  botCheckUnavailable: def(503, 'Bot check unavailable, try again'),
  invalidEntryToken: def(401, 'Missing or invalid entry token'),
  signupNotConfirmed: def(403, 'Confirm your email before completing bonus actions'),
  entryTokenRequired: def(403, 'This contest needs the entry token to complete bonus actions'),
  notAWaitlist: def(409, 'Contest is not a waitlist'),

  // rewards (docs/rewards.md)
  rewardNotFound: def(404, 'Reward not found'),
  rewardPoolFull: def(409, 'A pool holds at most 100000 codes'),
  rewardNotAPool: def(409, 'This reward does not give codes from a pool'),
  rewardNotOneCode: def(409, 'This reward does not give one code to everyone'),

  // the emails a team writes (docs/emails.md)
  emailKindNotFound: def(404, 'Email kind not found'),
  admissionInProgress: def(409, 'An admission with this Idempotency-Key is in progress, try again'),

  // the other tools a team connects (docs/integrations.md)
  integrationNotFound: def(404, 'Integration not found'),
  integrationsOff: def(
    503,
    'Integrations are off on this deployment: set INTEGRATIONS_KEY (32 random bytes in base64, `openssl rand -base64 32`)',
  ),
  integrationSealedElsewhere: def(
    409,
    "This connection's credentials were sealed with another INTEGRATIONS_KEY: save them again",
  ),
  integrationProviderMismatch: def(400, "credentials and target must be of the connection's provider"),
  integrationDeliverySuperseded: def(409, 'A newer delivery of this person is already waiting to be sent'),
  integrationDisabled: def(409, 'This connection is disabled: enable it first'),
  backfillRunning: def(409, "This connection's last backfill is still sending: wait for it to finish"),

  // bonus actions
  missingEntryOrBonusActionId: def(400, 'Missing entryId or bonusActionId'),
  entryOrBonusActionNotFound: def(404, 'Entry or bonus action not found'),
  entryDisqualified: def(403, 'Entry is disqualified'),
  bonusActionNotFound: def(404, 'Bonus action not found'),
  clickActionNeedsLink: def(400, 'A click action needs a destinationUrl'),

  // purchases and webhooks (docs/contests-and-entries.md)
  amountMustBePositive: def(400, 'Amount must be positive'),
  purchaseTrackingDisabled: def(400, 'Purchase tracking is not enabled for this contest'),
  externalTrackingDisabled: def(403, 'External tracking is not enabled for this contest'),
  invalidWebhookSignature: def(401, 'Invalid webhook signature'),
  amountTooLarge: def(400, 'Amount is too large'),

  // instant win (docs/instant-win.md)
  gameNotFound: def(404, 'Game not found'),
  gameNotActive: def(409, 'Game is not active'),
  unknownSlug: def(400, 'Unknown slug'),
  atLeastTwoTiers: def(400, 'At least two tiers are required'),
  oddsMustSumTo100: def(400, 'Tier odds must sum to 100'),
  prizeTierNeedsDelivery: def(400, 'Each prize tier needs a redeemCode or redeemUrl'),
  alreadyPlayed: def(403, 'You have already played'),
  alreadyPlayedToday: def(403, 'You have already played today'),
  invalidEmail: def(400, 'Invalid email'),
  playNotFound: def(404, 'Play not found'),
  playDidNotWin: def(400, 'This play did not win a prize'),
  reservationExpired: def(410, 'This prize reservation has expired'),
  playOtherDevice: def(403, 'This play belongs to another device'),
  prizeAlreadyClaimed: def(409, 'This prize has already been claimed'),
  gameHasClaims: def(409, 'Game has claimed entries; pass force=true to delete'),

  // giveaway draws (docs/fairness.md)
  drawNotFound: def(404, 'Draw not found'),
  noEligibleEntries: def(409, 'No eligible entries'),
  drawAlreadyRevealed: def(409, 'Draw already revealed'),
  drawNotRevealed: def(409, 'Draw is not revealed'),
  winnerNotFound: def(404, 'Winner not found'),
  // outbound events (docs/events.md)
  invalidUrl: def(400, 'Invalid url'),
  unknownEventType: def(400, 'Unknown event type'),
  webhookEndpointNotFound: def(404, 'Webhook endpoint not found'),
  deliveryNotFound: def(404, 'Delivery not found'),
  deliveryAlreadyDelivered: def(409, 'Delivery already delivered'),
  deliveryInProgress: def(409, 'Delivery in progress'),
  hookNotFound: def(404, 'Hook not found'),

  // admin (docs/api.md)
  teamNotFound: def(404, 'Team not found'),
  apiKeyNotFound: def(404, 'API key not found'),

  // trust and safety: public keys, manual bonus actions, risk signals
  personalDataPublicOnly: def(400, 'personalData applies to public keys only'),
  noPendingCompletion: def(409, 'No pending completion'),
  entryRefusedByRisk: def(403, 'Entry refused by risk rules'),
  entryAlreadyReviewed: def(409, 'Entry already reviewed'),
  invalidIpAddress: def(400, 'Invalid ipAddress'),
} as const;
