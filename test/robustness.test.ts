/**
 * Hostile input on every write endpoint: deep nesting, U+0000, lone surrogates (as JSON `\ud800`
 * escapes), 1 MB strings, wrong JSON types for the whole body and for every field, bodies that
 * are not JSON, odd path parameters and query strings. Nothing may answer 5xx, and a refused
 * request (4xx) must leave every table as it was (the inbound webhooks record the refusal in
 * webhook_receipts, by design: that table may only gain `rejected` rows with the same status).
 *
 * The list of write endpoints is checked against the app's own routes, so a new write route
 * without an entry here fails this file.
 *
 * A route whose valid request does its change only once (revoke, delete, rotate, reveal, review,
 * a test event, a retry...) sends that request last, once, for real. If it reads a body, the
 * hostile bodies before go to a `spent` target, where the same change was already done: the
 * validation is the same, and a body that passes it is refused after (409/404), changing nothing.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredBodyLimits, MAX_BODY_BYTES } from '../src/http/body-limit.js';
import { signShopify, signStripe } from '../src/lib/signatures.js';
import { contractValidator } from './support/contract.js';
import { ADMIN_TOKEN, createTestEnv, query, type TeamFixture, type TestEnv, wheelGameBody } from './support/harness.js';

let env: TestEnv;
let t: TeamFixture;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const neverLimit = { limit: async () => ({ success: true, retryAfterSeconds: 0 }) };

// ---------------------------------------------------------------- hostile values (raw JSON text)

const NUL = '"a\\u0000b"';
const LONE_HIGH = '"x\\ud800y"';
const LONE_LOW = '"\\udc00"';
const BIG = JSON.stringify('x'.repeat(1_000_000));
const DEEP_ARRAY = '['.repeat(5000) + ']'.repeat(5000);
const DEEP_OBJECT = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
const WRONG_TYPES = ['[]', '{}', '[1,"a"]', '0', '-1.5', 'null', 'true', '"str"'];

/** value kinds that must always be refused with 400 naming the field */
const UNSTORABLE: [string, string][] = [
  ['NUL', NUL],
  ['lone high surrogate', LONE_HIGH],
  ['lone low surrogate', LONE_LOW],
];
/** value kinds that must never answer 5xx */
const OTHER: [string, string][] = [
  ['1 MB string', BIG],
  ['5000-deep array', DEEP_ARRAY],
  ['5000-deep object', DEEP_OBJECT],
  ...WRONG_TYPES.map((w) => [`wrong type ${w}`, w] as [string, string]),
];

const PLACEHOLDER = '\u0001hostile\u0001';
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

type Path = (string | number)[];

/** Every path of a JSON value (objects and the first element of arrays), leaves and containers. */
function paths(value: unknown, base: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) {
    if (value.length) {
      out.push([...base, 0]);
      out.push(...paths(value[0], [...base, 0]));
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push([...base, k]);
      out.push(...paths(v, [...base, k]));
    }
  }
  return out;
}

/** `body` with the value at `path` replaced by the raw JSON text `raw`. */
function withRaw(body: unknown, path: Path, raw: string): string {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = PLACEHOLDER;
  return JSON.stringify(copy).replace(PLACEHOLDER_JSON, () => raw);
}

const label = (path: Path) => path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('');

// ---------------------------------------------------------------- fixtures and endpoints

interface Fx {
  contestId: string;
  /** a waitlist with entries waiting (admit) */
  waitlistId: string;
  /** a pool reward of the contest (PATCH, codes), and one to delete */
  rewardId: string;
  deleteRewardId: string;
  /** a bonus action to remove */
  deleteBonusActionId: string;
  entryId: string;
  referralCode: string;
  /** a visitor's entry token of `entryId` (POST /me/shares) */
  entryToken: string;
  bonusActionId: string;
  gameId: string;
  playId: string;
  playCookie: string;
  keyId: string;
  webhookSecret: string;
  shopifySecret: string;
  stripeSecret: string;
  /** draws of the contest: one committed, one revealed (2 winners, one of them already replaced) */
  committedDrawId: string;
  revealedDrawId: string;
  winnerId: string;
  replacedWinnerId: string;
  /** a manual bonus action: `pendingEntryId` has a completion waiting for the decision */
  manualBonusActionId: string;
  pendingEntryId: string;
  /** entries: one to review, one already reviewed (and whose manual completion is already verified), one to erase */
  reviewEntryId: string;
  spentEntryId: string;
  eraseEntryId: string;
  /** outbound events, on a team of their own (no contest, so no event of the other routes reaches them) */
  hooksKey: string;
  webhookEndpointId: string;
  deliveryId: string;
  /** a Klaviyo connection of the team (its provider calls go to the stubbed fetch), and a failed delivery of it */
  integrationId: string;
  integrationDeliveryId: string;
  /** a REST hook of the events' team */
  hookId: string;
}
let fx: Fx;

interface Endpoint {
  method: string;
  /** the route as the app declares it */
  route: string;
  path: () => string;
  headers?: () => Record<string, string>;
  /** a valid body (the baseline every mutation starts from); undefined: the route reads no body */
  body?: () => Record<string, unknown>;
  /** headers that authenticate these exact bytes (webhooks) */
  sign?: (raw: string) => Promise<Record<string, string>>;
  query?: Record<string, string>;
  /**
   * The valid request does its change once (reveal, replace, review, verify): `path` gets it
   * once, last; the hostile bodies go to this target, where the change is already done and a
   * body that passes the validation is refused with `status` and `error`.
   */
  spent?: { path: () => string; status: number; error: string };
}

const priv = () => ({ 'x-api-key': t.privateKey });
const pub = () => ({ 'x-api-key': t.publicKey });
const hooks = () => ({ 'x-api-key': fx.hooksKey });
let orderSeq = 0;

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    route: '/api/admin/teams',
    path: () => '/api/admin/teams',
    headers: () => admin,
    body: () => ({ name: 'Acme' }),
  },
  {
    method: 'POST',
    route: '/api/admin/teams/:teamId/api-keys',
    path: () => `/api/admin/teams/${t.teamId}/api-keys`,
    headers: () => admin,
    body: () => ({ type: 'public', name: 'widget' }),
  },
  {
    method: 'DELETE',
    route: '/api/admin/api-keys/:keyId',
    path: () => `/api/admin/api-keys/${fx.keyId}`,
    headers: () => admin,
  },
  {
    method: 'POST',
    route: '/api/admin/teams/:teamId/contests',
    path: () => `/api/admin/teams/${t.teamId}/contests`,
    headers: () => admin,
    body: () => ({
      title: 'Summer',
      description: 'd',
      mode: 'leaderboard',
      status: 'draft',
      startDate: '2030-01-01T00:00:00Z',
      endDate: null,
      isEvergreen: false,
      campaignType: 'viral',
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 0.5 },
      externalTracking: { enabled: false },
      affiliate: { commissionPercent: 5 },
      shopifySecret: 'shp',
      stripeSecret: 'str',
      toolType: null,
    }),
  },
  {
    method: 'PATCH',
    route: '/api/admin/contests/:contestId',
    path: () => `/api/admin/contests/${fx.contestId}`,
    headers: () => admin,
    body: () => ({
      title: 'Renamed',
      description: 'x',
      referral: { advocatePoints: 3 },
      slug: 'renamed-contest',
      endDate: '2031-01-01T00:00:00Z',
    }),
  },
  {
    method: 'POST',
    route: '/api/admin/contests/:contestId/bonus-actions',
    path: () => `/api/admin/contests/${fx.contestId}/bonus-actions`,
    headers: () => admin,
    body: () => ({
      action: 'follow',
      description: 'Follow us',
      icon: 'star',
      iconColor: '#fff',
      points: 5,
      confirmationType: 'click',
      destinationUrl: 'https://example.com',
      order: 1,
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/bonus-actions',
    path: () => `/api/v1/contests/${fx.contestId}/bonus-actions`,
    headers: priv,
    body: () => ({
      action: 'share',
      description: 'Share it',
      icon: 'share',
      iconColor: '#000',
      points: 2,
      confirmationType: 'manual',
      destinationUrl: 'https://example.com/s',
      order: 9,
    }),
  },
  {
    method: 'PATCH',
    route: '/api/v1/bonus-actions/:bonusActionId',
    path: () => `/api/v1/bonus-actions/${fx.bonusActionId}`,
    headers: priv,
    // the values it was created with: the complete/verify baselines keep working
    body: () => ({ action: 'visit', points: 3, confirmationType: 'auto' }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests',
    path: () => '/api/v1/contests',
    headers: priv,
    body: () => ({
      title: 'Team summer',
      mode: 'giveaway',
      status: 'draft',
      startDate: '2030-01-01T00:00:00Z',
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5, creditOn: 'create' },
      risk: { mode: 'flag', maxEntriesPerIpPerHour: 10, maxReferralsPerHour: 20 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 1, pointsPerCurrencyUnit: 0.5 },
    }),
  },
  {
    method: 'PATCH',
    route: '/api/v1/contests/:contestId',
    path: () => `/api/v1/contests/${fx.contestId}`,
    headers: priv,
    body: () => ({ title: 'Renamed by the team', referral: { advocatePoints: 4 }, endDate: '2031-06-01T00:00:00Z' }),
  },
  {
    method: 'POST',
    route: '/api/admin/contests/:contestId/webhook-secret',
    path: () => `/api/admin/contests/${fx.contestId}/webhook-secret`,
    headers: () => admin,
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/views',
    path: () => `/api/v1/contests/${fx.contestId}/views`,
    headers: pub,
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/entries',
    path: () => `/api/v1/contests/${fx.contestId}/entries`,
    headers: priv,
    body: () => ({
      email: 'new@example.com',
      phone: '+15550001234',
      name: 'New',
      referralCode: fx.referralCode,
      customFieldData: { size: 'M', n: { a: [1] } },
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/signup',
    path: () => `/api/v1/contests/${fx.contestId}/signup`,
    headers: pub,
    body: () => ({
      email: 'signup@example.com',
      name: 'Sign Up',
      phone: '+15550004321',
      referralCode: fx.referralCode,
      customFields: { size: 'S' },
      consent: true,
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/visits',
    path: () => `/api/v1/contests/${fx.contestId}/visits`,
    headers: pub,
    body: () => ({ referralCode: fx.referralCode, channel: 'whatsapp' }),
  },
  {
    method: 'POST',
    route: '/api/v1/me/shares',
    path: () => '/api/v1/me/shares',
    headers: () => ({ authorization: `Bearer ${fx.entryToken}` }),
    body: () => ({ channel: 'x' }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/admit',
    path: () => `/api/v1/contests/${fx.waitlistId}/admit`,
    headers: priv,
    body: () => ({ count: 1 }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/rewards',
    path: () => `/api/v1/contests/${fx.contestId}/rewards`,
    headers: priv,
    body: () => ({ name: 'Sticker', description: 'A sticker', pointsRequired: 1_000_000, codes: ['S-1', 'S-2'] }),
  },
  {
    method: 'PATCH',
    route: '/api/v1/contests/:contestId/rewards/:rewardId',
    path: () => `/api/v1/contests/${fx.contestId}/rewards/${fx.rewardId}`,
    headers: priv,
    body: () => ({ name: 'Renamed', description: 'Still a pool', pointsRequired: 1_000_000 }),
  },
  {
    method: 'DELETE',
    route: '/api/v1/contests/:contestId/rewards/:rewardId',
    path: () => `/api/v1/contests/${fx.contestId}/rewards/${fx.deleteRewardId}`,
    headers: priv,
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/rewards/:rewardId/codes',
    path: () => `/api/v1/contests/${fx.contestId}/rewards/${fx.rewardId}/codes`,
    headers: priv,
    body: () => ({ codes: ['ADD-1', 'ADD-2'] }),
  },
  {
    method: 'PUT',
    route: '/api/v1/contests/:contestId/emails/:kind',
    path: () => `/api/v1/contests/${fx.contestId}/emails/winner`,
    headers: priv,
    body: () => ({ subject: 'You won {{reward}}', text: 'Dear {{name}}, you won {{reward}} in {{contest}}.' }),
  },
  {
    method: 'DELETE',
    route: '/api/v1/contests/:contestId/emails/:kind',
    path: () => `/api/v1/contests/${fx.contestId}/emails/admitted`,
    headers: priv,
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/emails/:kind/preview',
    path: () => `/api/v1/contests/${fx.contestId}/emails/reward/preview`,
    headers: priv,
    body: () => ({ subject: '{{reward}} for you', text: 'Hi {{name}}, here is {{code}}.' }),
  },
  {
    method: 'DELETE',
    route: '/api/v1/bonus-actions/:bonusActionId',
    path: () => `/api/v1/bonus-actions/${fx.deleteBonusActionId}`,
    headers: priv,
  },
  {
    method: 'PUT',
    route: '/api/v1/entries/:entryId',
    path: () => `/api/v1/entries/${fx.entryId}`,
    headers: priv,
    body: () => ({ email: 'ann@example.com', phone: '+15550009999', name: 'Changed', customFieldData: { size: 'L' } }),
  },
  {
    method: 'DELETE',
    route: '/api/v1/entries/:entryId',
    path: () => `/api/v1/entries/${fx.eraseEntryId}`,
    headers: priv,
  },
  {
    method: 'POST',
    route: '/api/v1/entries/:entryId/disqualify',
    path: () => `/api/v1/entries/${fx.entryId}/disqualify`,
    headers: priv,
    body: () => ({ disqualify: false }),
  },
  {
    method: 'POST',
    route: '/api/v1/entries/:entryId/review',
    path: () => `/api/v1/entries/${fx.reviewEntryId}/review`,
    headers: priv,
    body: () => ({ decision: 'approve' }),
    spent: { path: () => `/api/v1/entries/${fx.spentEntryId}/review`, status: 409, error: 'Entry already reviewed' },
  },
  {
    method: 'POST',
    route: '/api/v1/entries/:entryId/points',
    path: () => `/api/v1/entries/${fx.entryId}/points`,
    headers: priv,
    body: () => ({ points: 5, reason: 'bonus' }),
  },
  {
    method: 'POST',
    route: '/api/v1/entries/:entryId/bonus-actions/:bonusActionId/complete',
    path: () => `/api/v1/entries/${fx.entryId}/bonus-actions/${fx.bonusActionId}/complete`,
    headers: pub,
    body: () => ({ proof: 'https://example.com/p', answer: 'yes' }),
  },
  {
    method: 'POST',
    route: '/api/v1/entries/:entryId/bonus-actions/:bonusActionId/verify',
    path: () => `/api/v1/entries/${fx.pendingEntryId}/bonus-actions/${fx.manualBonusActionId}/verify`,
    headers: priv,
    body: () => ({ approve: true }),
    spent: {
      path: () => `/api/v1/entries/${fx.spentEntryId}/bonus-actions/${fx.manualBonusActionId}/verify`,
      status: 409,
      error: 'No pending completion',
    },
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/purchases',
    path: () => `/api/v1/contests/${fx.contestId}/purchases`,
    headers: priv,
    body: () => ({ email: 'ann@example.com', orderId: `order-${++orderSeq}`, amount: 12.5, currency: 'EUR' }),
  },
  {
    method: 'POST',
    route: '/api/v1/contests/:contestId/draws',
    path: () => `/api/v1/contests/${fx.contestId}/draws`,
    headers: priv,
    body: () => ({
      winners: 2,
      weighting: 'equal',
      confirmedOnly: false,
      minPoints: 0,
      excludePreviousWinners: false,
      label: 'Weekly',
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/draws/:drawId/reveal',
    path: () => `/api/v1/draws/${fx.committedDrawId}/reveal`,
    headers: priv,
    body: () => ({ publicRandomness: 'drand round 4242' }),
    spent: { path: () => `/api/v1/draws/${fx.revealedDrawId}/reveal`, status: 409, error: 'Draw already revealed' },
  },
  {
    method: 'POST',
    route: '/api/v1/draws/:drawId/results/:entryId/replace',
    path: () => `/api/v1/draws/${fx.revealedDrawId}/results/${fx.winnerId}/replace`,
    headers: priv,
    body: () => ({ reason: 'did not answer' }),
    spent: {
      path: () => `/api/v1/draws/${fx.revealedDrawId}/results/${fx.replacedWinnerId}/replace`,
      status: 404,
      error: 'Winner not found',
    },
  },
  {
    method: 'POST',
    route: '/api/v1/instant-win-games',
    path: () => '/api/v1/instant-win-games',
    headers: priv,
    body: () => ({
      slug: 'spin-to-win',
      title: 'Wheel',
      description: 'd',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'embed',
      embedUrl: 'https://example.com/embed',
      status: 'draft',
      tiers: [
        {
          name: 'Prize',
          oddsPercent: 50,
          color: '#f00',
          deliveryType: 'unique_code',
          quantity: null,
          codes: ['A1', 'A2'],
        },
        { name: 'Miss', oddsPercent: 50, isMiss: true },
      ],
    }),
  },
  {
    method: 'PUT',
    route: '/api/v1/instant-win-games/:gameId',
    path: () => `/api/v1/instant-win-games/${fx.gameId}`,
    headers: priv,
    body: () => ({
      title: 'Wheel 2',
      description: 'd',
      publishAs: 'landing',
      embedUrl: null,
      status: 'active',
      tiers: [
        { name: 'Prize', oddsPercent: 100, redeemCode: 'WIN', redeemUrl: 'https://example.com/r', quantity: 5 },
        { name: 'Miss', oddsPercent: 0, isMiss: true },
      ],
    }),
  },
  // before the game's deletion: both are sent last, in this order
  {
    method: 'POST',
    route: '/api/v1/instant-win-games/:gameId/fairness/rotate',
    path: () => `/api/v1/instant-win-games/${fx.gameId}/fairness/rotate`,
    headers: priv,
  },
  {
    method: 'DELETE',
    route: '/api/v1/instant-win-games/:gameId',
    path: () => `/api/v1/instant-win-games/${fx.gameId}`,
    headers: priv,
    query: { force: 'true' },
  },
  {
    method: 'POST',
    route: '/api/v1/instant-win-games/:gameId/play',
    path: () => `/api/v1/instant-win-games/${fx.gameId}/play`,
    headers: pub,
    body: () => ({ playCookie: fx.playCookie }),
  },
  {
    method: 'POST',
    route: '/api/v1/instant-win-games/:gameId/plays/:playId/claim',
    path: () => `/api/v1/instant-win-games/${fx.gameId}/plays/${fx.playId}/claim`,
    headers: pub,
    body: () => ({ email: 'winner@example.com', playCookie: fx.playCookie }),
  },
  {
    method: 'POST',
    route: '/api/webhooks/purchase/:contestId',
    path: () => `/api/webhooks/purchase/${fx.contestId}`,
    body: () => ({ email: 'ann@example.com', orderId: `wh-${++orderSeq}`, amount: 3, currency: 'USD' }),
    sign: async () => ({ 'x-webhook-secret': fx.webhookSecret }),
  },
  {
    method: 'POST',
    route: '/api/webhooks/signup/:contestId',
    path: () => `/api/webhooks/signup/${fx.contestId}`,
    body: () => ({
      email: `signup${++orderSeq}@example.com`,
      name: 'S',
      phone: '+15550004321',
      referralCode: fx.referralCode,
    }),
    sign: async () => ({ 'x-webhook-secret': fx.webhookSecret }),
  },
  {
    method: 'POST',
    route: '/api/webhooks/referral/shopify/:contestId',
    path: () => `/api/webhooks/referral/shopify/${fx.contestId}`,
    body: () => ({
      id: 1,
      admin_graphql_api_id: `gid://shopify/Order/${++orderSeq}`,
      total_price: '25.00',
      currency: 'USD',
      email: 'buyer@example.com',
      contact_email: 'buyer@example.com',
      customer: { email: 'buyer@example.com' },
      note_attributes: [{ name: 'ref', value: fx.referralCode }],
      discount_codes: [{ code: fx.referralCode }],
      landing_site: `/?ref=${fx.referralCode}`,
      landing_site_ref: fx.referralCode,
    }),
    sign: async (raw) => ({
      'x-shopify-hmac-sha256': await signShopify(fx.shopifySecret, raw),
      'x-shopify-topic': 'orders/paid',
    }),
  },
  {
    method: 'POST',
    route: '/api/webhooks/referral/stripe/:contestId',
    path: () => `/api/webhooks/referral/stripe/${fx.contestId}`,
    body: () => ({
      id: `evt_${++orderSeq}`,
      type: 'checkout.session.completed',
      data: {
        object: {
          id: `cs_${orderSeq}`,
          payment_status: 'paid',
          amount_total: 1000,
          currency: 'usd',
          client_reference_id: fx.referralCode,
          metadata: { referralCode: fx.referralCode, ref: fx.referralCode },
          customer_details: { email: 'buyer@example.com' },
          customer_email: 'buyer@example.com',
        },
      },
    }),
    sign: async (raw) => ({
      'stripe-signature': await signStripe(fx.stripeSecret, Math.floor(env.clock.now().getTime() / 1000), raw),
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/webhook-endpoints',
    path: () => '/api/v1/webhook-endpoints',
    headers: hooks,
    body: () => ({
      url: 'https://hooks.example.test/new',
      events: ['entry.created', 'draw.revealed'],
      description: 'CRM',
    }),
  },
  {
    method: 'PATCH',
    route: '/api/v1/webhook-endpoints/:id',
    path: () => `/api/v1/webhook-endpoints/${fx.webhookEndpointId}`,
    headers: hooks,
    // enabled stays false: see the setup
    body: () => ({
      url: 'https://hooks.example.test/in',
      events: ['entry.created'],
      enabled: false,
      description: 'CRM',
    }),
  },
  {
    method: 'POST',
    route: '/api/v1/webhook-endpoints/:id/rotate-secret',
    path: () => `/api/v1/webhook-endpoints/${fx.webhookEndpointId}/rotate-secret`,
    headers: hooks,
    body: () => ({ previousSecretValidHours: 24 }),
  },
  // the test event and the retry before the endpoint's deletion: all three are sent last, in this order
  {
    method: 'POST',
    route: '/api/v1/webhook-endpoints/:id/test',
    path: () => `/api/v1/webhook-endpoints/${fx.webhookEndpointId}/test`,
    headers: hooks,
  },
  {
    method: 'POST',
    route: '/api/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    path: () => `/api/v1/webhook-endpoints/${fx.webhookEndpointId}/deliveries/${fx.deliveryId}/retry`,
    headers: hooks,
  },
  {
    method: 'POST',
    route: '/api/v1/hooks',
    path: () => '/api/v1/hooks',
    headers: hooks,
    body: () => ({ url: 'https://hooks.example.test/zap/2', event: 'entry.confirmed' }),
  },
  {
    method: 'DELETE',
    route: '/api/v1/hooks/:id',
    path: () => `/api/v1/hooks/${fx.hookId}`,
    headers: hooks,
  },
  {
    method: 'DELETE',
    route: '/api/v1/webhook-endpoints/:id',
    path: () => `/api/v1/webhook-endpoints/${fx.webhookEndpointId}`,
    headers: hooks,
  },
  // the other tools: a connection made, changed, tested (the stubbed fetch answers) and deleted last
  {
    method: 'POST',
    route: '/api/v1/integrations',
    path: () => '/api/v1/integrations',
    headers: priv,
    body: () => ({
      provider: 'klaviyo',
      credentials: { apiKey: 'pk_0123456789abcdefghijKLMN' },
      target: { listId: 'XyZ123' },
    }),
  },
  {
    method: 'PATCH',
    route: '/api/v1/integrations/:id',
    path: () => `/api/v1/integrations/${fx.integrationId}`,
    headers: priv,
    body: () => ({ enabled: true, contests: 'all' }),
  },
  {
    method: 'POST',
    route: '/api/v1/integrations/:id/test',
    path: () => `/api/v1/integrations/${fx.integrationId}/test`,
    headers: priv,
  },
  // the retry before the backfill, which would owe the same person anew
  {
    method: 'POST',
    route: '/api/v1/integrations/:id/deliveries/:deliveryId/retry',
    path: () => `/api/v1/integrations/${fx.integrationId}/deliveries/${fx.integrationDeliveryId}/retry`,
    headers: priv,
  },
  {
    method: 'POST',
    route: '/api/v1/integrations/:id/backfill',
    path: () => `/api/v1/integrations/${fx.integrationId}/backfill`,
    headers: priv,
  },
  {
    method: 'DELETE',
    route: '/api/v1/integrations/:id',
    path: () => `/api/v1/integrations/${fx.integrationId}`,
    headers: priv,
  },
];

// ---------------------------------------------------------------- database state

interface State {
  tables: Record<string, string>;
  receipts: { outcome: string; status_code: number }[];
  /** the change counters the digest was taken at (null: they moved while the digest was taken) */
  changes: Record<string, string> | null;
}

/**
 * Change counters of this file's own database (test instrumentation, installed in the setup): a
 * row trigger on every table counts, per table, the rows inserted, updated or deleted (on
 * api_keys, not an update of last_used_at alone, which every authenticated request refreshes). A
 * rolled-back change rolls its count back. A table whose counter has not moved is as it was, and
 * its digest is not computed again; other databases on the same server do not move them.
 */
async function installChangeCounter() {
  await env.db.execute(sql`create table ce_test_changes (t text primary key, n bigint not null)`);
  await env.db.execute(
    sql.raw(`create function ce_test_bump() returns trigger language plpgsql as $$
    begin
      insert into ce_test_changes as c values (TG_TABLE_NAME, 1) on conflict (t) do update set n = c.n + 1;
      return null;
    end $$`),
  );
  const tables = await query<{ t: string }>(
    env.db,
    sql`select table_name as t from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'ce_test_changes'`,
  );
  for (const { t: table } of tables) {
    let events = 'insert or update or delete';
    if (table === 'api_keys') {
      const cols = await query<{ c: string }>(
        env.db,
        sql`select column_name as c from information_schema.columns
            where table_schema = 'public' and table_name = 'api_keys' and column_name <> 'last_used_at'`,
      );
      events = `insert or delete or update of ${cols.map((c) => `"${c.c}"`).join(', ')}`;
    }
    await env.db.execute(
      sql.raw(`create trigger ce_test_bump after ${events} on "${table}" for each row execute function ce_test_bump()`),
    );
  }
}

async function changes(): Promise<Record<string, string>> {
  const rows = await query<{ t: string; n: string }>(env.db, sql`select t, n::text as n from ce_test_changes`);
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

let tableNames: string[] | undefined;

/**
 * A digest of every table (api_keys without its last_used_at, refreshed by reads); webhook_receipts
 * apart. With `previous`, only the tables whose change counter moved since are read again (most
 * refusals write nothing; reading every table after every request was most of this file's time).
 */
async function digest(previous?: State): Promise<State> {
  const before = await changes();
  const moved = (t: string) => !previous?.changes || previous.changes[t] !== before[t];
  tableNames ??= (
    await query<{ t: string }>(
      env.db,
      sql`select table_name as t from information_schema.tables
          where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not in ('webhook_receipts', 'ce_test_changes') order by 1`,
    )
  ).map((r) => r.t);
  const stale = tableNames.filter(moved);
  const parts = stale.map(
    (n) =>
      sql`select ${n} as t, md5(coalesce(string_agg(r, '|' order by r), '')) as h
          from (select (to_jsonb(x) - 'last_used_at')::text as r from ${sql.identifier(n)} x) s`,
  );
  const rows = parts.length ? await query<{ t: string; h: string }>(env.db, sql.join(parts, sql` union all `)) : [];
  const receipts = moved('webhook_receipts')
    ? await query<{ outcome: string; status_code: number }>(
        env.db,
        sql`select outcome, status_code from webhook_receipts order by created_at, id`,
      )
    : previous!.receipts;
  const tables = { ...previous?.tables, ...Object.fromEntries(rows.map((r) => [r.t, r.h])) };
  const after = await changes();
  const still = Object.keys({ ...before, ...after }).every((t) => before[t] === after[t]);
  return { tables, receipts, changes: still ? before : null };
}

let state: State;

interface Sent {
  status: number;
  error: unknown;
}

/**
 * Sends one request (by default to the endpoint's spent target, if it has one); checks: no 5xx,
 * and a refusal changes nothing (but a rejected receipt).
 */
async function send(
  e: Endpoint,
  what: string,
  o: { raw?: string; path?: string; query?: string; contentType?: string | null },
): Promise<Sent> {
  const headers: Record<string, string> = { ...e.headers?.() };
  if (o.raw !== undefined) {
    if (o.contentType !== null) headers['content-type'] = o.contentType ?? 'application/json';
    if (e.sign) Object.assign(headers, await e.sign(o.raw));
  }
  const url =
    (o.path ?? (e.spent?.path ?? e.path)()) + (o.query ?? (e.query ? `?${new URLSearchParams(e.query)}` : ''));
  // bytes, not a string: a string body would get `text/plain` from fetch's Request on its own
  const res = await env.app.request(url, {
    method: e.method,
    headers,
    body: o.raw === undefined ? undefined : new TextEncoder().encode(o.raw),
  });
  const text = await res.text();
  // the hostile answers are documented answers too (status, media type, body shape)
  (await contractValidator()).check({
    method: e.method,
    path: url,
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text,
  });
  let error: unknown = text;
  try {
    error = JSON.parse(text).error;
  } catch {
    /* not JSON */
  }
  const where = `${e.method} ${e.route} ${what} → ${res.status} ${String(error).slice(0, 200)}`;
  expect(res.status, where).toBeLessThan(500);
  // a request that passed may have started background work (an email's delivery after the
  // answer): it finishes now, not inside the next request's before-and-after
  if (res.status < 400) await env.settle();
  const after = await digest(state);
  if (res.status >= 400) {
    expect(after.tables, where).toEqual(state.tables);
    const added = after.receipts.slice(state.receipts.length);
    expect(after.receipts.slice(0, state.receipts.length), where).toEqual(state.receipts);
    for (const r of added) expect(r, where).toEqual({ outcome: 'rejected', status_code: res.status });
  }
  state = after;
  return { status: res.status, error };
}

// ---------------------------------------------------------------- setup

beforeAll(async () => {
  env = await createTestEnv({ rateLimiter: neverLimit });
  t = await env.team();
  const c = await env.contest(t.teamId, {
    requireEmailConfirmation: false,
    purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 1 },
    externalTracking: { enabled: true },
    referral: { advocatePoints: 10, friendPoints: 5 },
    publicSignup: true,
  });
  const waitlist = await env.contest(t.teamId, { requireEmailConfirmation: false, mode: 'waitlist' });
  for (const email of ['w1@example.com', 'w2@example.com', 'w3@example.com']) {
    const w = await env.request('POST', `/api/v1/contests/${waitlist.id}/entries`, {
      key: t.privateKey,
      body: { email },
    });
    expect(w.status).toBe(201);
  }
  const shopifySecret = 'shpss_test_secret';
  const stripeSecret = 'whsec_stripe_test';
  const patched = await env.request('PATCH', `/api/admin/contests/${c.id}`, {
    headers: admin,
    body: { shopifySecret, stripeSecret },
  });
  expect(patched.status).toBe(200);
  const webhookSecret = (await env.request('POST', `/api/admin/contests/${c.id}/webhook-secret`, { headers: admin }))
    .body.data.secret;
  const entry = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
    key: t.privateKey,
    body: { email: 'ann@example.com', name: 'Ann' },
  });
  expect(entry.status).toBe(201);
  const referral_code = (
    await query<{ referral_code: string }>(
      env.db,
      sql`select referral_code from entries where id = ${entry.body.data.entryId}`,
    )
  )[0]!.referral_code;
  const ba = await env.request('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
    headers: admin,
    body: { action: 'visit', points: 3 },
  });
  expect(ba.status).toBe(201);
  const key = await env.request('POST', `/api/admin/teams/${t.teamId}/api-keys`, {
    headers: admin,
    body: { type: 'public', name: 'spare' },
  });
  const game = await env.request('POST', '/api/v1/instant-win-games', {
    key: t.privateKey,
    body: wheelGameBody(100, 'WIN', { status: 'active' }),
  });
  expect(game.status, JSON.stringify(game.body)).toBe(201);
  const played = await env.request('POST', `/api/v1/instant-win-games/${game.body.data.id}/play`, {
    key: t.publicKey,
    body: {},
  });
  expect(played.status).toBe(200);

  // entries of the contest (no confirmation asked): to review, already reviewed, to erase, with a pending completion
  const newEntry = async (email: string) => {
    const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, { key: t.privateKey, body: { email } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.entryId as string;
  };
  const [reviewEntryId, spentEntryId, eraseEntryId, pendingEntryId] = [
    await newEntry('review@example.com'),
    await newEntry('spent@example.com'),
    await newEntry('erase@example.com'),
    await newEntry('pending@example.com'),
  ];
  const reviewed = await env.request('POST', `/api/v1/entries/${spentEntryId}/review`, {
    key: t.privateKey,
    body: { decision: 'approve' },
  });
  expect(reviewed.status).toBe(200);
  // a manual bonus action: completed with the public key, it waits for the decision
  const manual = await env.request('POST', `/api/admin/contests/${c.id}/bonus-actions`, {
    headers: admin,
    body: { action: 'review', points: 4, confirmationType: 'manual' },
  });
  expect(manual.status).toBe(201);
  for (const id of [pendingEntryId, spentEntryId]) {
    const done = await env.request('POST', `/api/v1/entries/${id}/bonus-actions/${manual.body.data.id}/complete`, {
      key: t.publicKey,
      body: {},
    });
    expect([done.status, done.body.data?.pointsAdded], JSON.stringify(done.body)).toEqual([200, 0]);
  }
  const verified = await env.request(
    'POST',
    `/api/v1/entries/${spentEntryId}/bonus-actions/${manual.body.data.id}/verify`,
    { key: t.privateKey, body: { approve: true } },
  );
  expect(verified.status).toBe(200);

  // draws of the contest's entries: one revealed with two winners, one of them replaced; then one committed
  const drawBody = { winners: 2, confirmedOnly: false, excludePreviousWinners: false };
  const draw = await env.request('POST', `/api/v1/contests/${c.id}/draws`, { key: t.privateKey, body: drawBody });
  expect(draw.status, JSON.stringify(draw.body)).toBe(201);
  const revealed = await env.request('POST', `/api/v1/draws/${draw.body.data.id}/reveal`, {
    key: t.privateKey,
    body: {},
  });
  expect(revealed.body.data?.results, JSON.stringify(revealed.body)).toHaveLength(2);
  const [replacedWinnerId, winnerId] = revealed.body.data.results.map((r: { entryId: string }) => r.entryId);
  const replaced = await env.request('POST', `/api/v1/draws/${draw.body.data.id}/results/${replacedWinnerId}/replace`, {
    key: t.privateKey,
    body: { reason: 'no answer' },
  });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  const committed = await env.request('POST', `/api/v1/contests/${c.id}/draws`, { key: t.privateKey, body: drawBody });
  expect(committed.status).toBe(201);

  // outbound events, on a team of their own: the contest's events never reach its endpoint.
  // The endpoint is disabled (the PATCH baseline keeps it so): its delivery fails at once for
  // good (no network), is never picked up again in the background while the digests are taken,
  // and the manual retry can always attempt it again. No request leaves the process either way.
  env.deps.fetch = async () => new Response(null, { status: 204 });
  const hooksTeam = await env.team('Hooks');
  const endpoint = await env.request('POST', '/api/v1/webhook-endpoints', {
    key: hooksTeam.privateKey,
    body: { url: 'https://hooks.example.test/in' },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  const endpointPath = `/api/v1/webhook-endpoints/${endpoint.body.data.id}`;
  expect(
    (await env.request('PATCH', endpointPath, { key: hooksTeam.privateKey, body: { enabled: false } })).status,
  ).toBe(200);
  expect((await env.request('POST', `${endpointPath}/test`, { key: hooksTeam.privateKey })).status).toBe(202);
  await env.settle();
  const deliveries = await env.request('GET', `${endpointPath}/deliveries`, { key: hooksTeam.privateKey });
  expect(deliveries.body.data.map((d: { status: string; lastError: string }) => [d.status, d.lastError])).toEqual([
    ['failed', 'Endpoint disabled'],
  ]);

  // (the person of the integration delivery below, made before the connection: nothing owed them yet)
  const retried = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
    key: t.privateKey,
    body: { email: 'refused-by-klaviyo@example.com' },
  });
  expect(retried.status, JSON.stringify(retried.body)).toBe(201);
  // the other tools: a connection, its credentials sealed with a key of the test's own
  env.deps.config.integrations = { key: Buffer.alloc(32, 3).toString('base64') };
  const integration = await env.request('POST', '/api/v1/integrations', {
    key: t.privateKey,
    body: { provider: 'klaviyo', credentials: { apiKey: 'pk_0123456789abcdefghijKLMN' }, target: { listId: 'XyZ123' } },
  });
  expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  // a delivery the provider refused, for the retry (which only makes it due: no call). Its person
  // is an unconfirmed entry of their own: nothing else (a backfill among the other routes' requests,
  // an event) ever owes them a newer delivery, which would make the retry answer 409
  const refused = await query<{ id: string }>(
    env.db,
    sql`with e as (update entries set email_confirmed = false where id = ${retried.body.data.entryId} returning id)
        insert into integration_deliveries (integration_id, entry_id, kind, status, last_status, last_error)
        select ${integration.body.data.id}::uuid, e.id, 'person', 'failed', 401, 'Klaviyo answered 401' from e
        returning id`,
  );
  const hook = await env.request('POST', '/api/v1/hooks', {
    key: hooksTeam.privateKey,
    body: { url: 'https://hooks.example.test/zap/1', event: 'entry.created' },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);

  // rewards: a pool no entry reaches, and one to delete
  const pool = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
    key: t.privateKey,
    body: { name: 'Pool', pointsRequired: 1_000_000, codes: ['P-1'] },
  });
  expect(pool.status, JSON.stringify(pool.body)).toBe(201);
  const doomed = await env.request('POST', `/api/v1/contests/${c.id}/rewards`, {
    key: t.privateKey,
    body: { name: 'Doomed', referralsRequired: 1000 },
  });
  expect(doomed.status).toBe(201);

  const doomedAction = await env.request('POST', `/api/v1/contests/${c.id}/bonus-actions`, {
    key: t.privateKey,
    body: { action: 'Doomed', points: 1 },
  });
  expect(doomedAction.status).toBe(201);

  // a visitor's entry token of the entry (its SHA-256 stored, as a sign-up stores it)
  const entryToken = `et_${'Robustness'.padEnd(40, 'x')}`;
  await query(
    env.db,
    sql`insert into entry_tokens (token_hash, entry_id) values (encode(sha256(convert_to(${entryToken}, 'UTF8')), 'hex'), ${entry.body.data.entryId})`,
  );

  fx = {
    contestId: c.id,
    entryToken,
    deleteBonusActionId: doomedAction.body.data.id,
    waitlistId: waitlist.id,
    rewardId: pool.body.data.id,
    deleteRewardId: doomed.body.data.id,
    entryId: entry.body.data.entryId,
    referralCode: referral_code,
    bonusActionId: ba.body.data.id,
    gameId: game.body.data.id,
    playId: played.body.data.playId,
    playCookie: played.body.data.playCookie,
    keyId: key.body.data.id,
    webhookSecret,
    shopifySecret,
    stripeSecret,
    committedDrawId: committed.body.data.id,
    revealedDrawId: draw.body.data.id,
    winnerId,
    replacedWinnerId,
    manualBonusActionId: manual.body.data.id,
    pendingEntryId,
    reviewEntryId,
    spentEntryId,
    eraseEntryId,
    hooksKey: hooksTeam.privateKey,
    webhookEndpointId: endpoint.body.data.id,
    deliveryId: deliveries.body.data[0].id,
    integrationId: integration.body.data.id,
    integrationDeliveryId: refused[0]!.id,
    hookId: hook.body.data.id,
  };
  await env.settle();
  await installChangeCounter();
  state = await digest();
});
afterAll(async () => {
  await env.settle();
  await env.close();
});

// ---------------------------------------------------------------- the tests

describe('the list of write endpoints', () => {
  it('is every POST/PUT/PATCH/DELETE route of the app', () => {
    const routes = new Set(
      env.app.routes
        .filter(
          (r) =>
            ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.path.includes('//') && !r.path.includes('*'),
        )
        .map((r) => `${r.method} ${r.path}`),
    );
    expect([...routes].sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.route}`).sort());
  });

  it('each baseline request is valid (so that a refusal below is about the hostile value)', async () => {
    // the baselines of the routes without a body change state (revoke, rotate, count, delete),
    // and so do the ones with a spent target: those are sent last, in their own test
    for (const e of ENDPOINTS.filter((x) => x.body && !x.spent)) {
      const r = await send(e, 'baseline', { raw: JSON.stringify(e.body!()) });
      expect([e.route, r.status < 300], `${e.route}: ${r.status} ${String(r.error)}`).toEqual([e.route, true]);
    }
    // on its spent target, the valid body passes the validation and is refused after it
    for (const e of ENDPOINTS.filter((x) => x.spent)) {
      const r = await send(e, 'baseline on the spent target', { raw: JSON.stringify(e.body!()) });
      expect([e.route, r.status, r.error]).toEqual([e.route, e.spent!.status, e.spent!.error]);
    }
  });
});

describe.each(ENDPOINTS.filter((e) => e.body).map((e) => [`${e.method} ${e.route}`, e] as const))('%s', (_name, e) => {
  it('U+0000 and lone surrogates in any field (or key): 400 naming the field', async () => {
    const body = e.body!();
    for (const path of paths(body)) {
      for (const [kind, raw] of UNSTORABLE) {
        const r = await send(e, `${label(path)} = ${kind}`, { raw: withRaw(e.body!(), path, raw) });
        const reason =
          kind === 'NUL'
            ? 'must not contain NUL characters'
            : 'must not contain lone surrogate characters (invalid Unicode)';
        expect([r.status, r.error], `${label(path)} = ${kind}`).toEqual([400, `${label(path)} ${reason}`]);
      }
    }
    // an unknown field, and a key holding the character
    const unknown = await send(e, 'unknown field NUL', { raw: withRaw({ ...e.body!(), zz: 1 }, ['zz'], NUL) });
    expect([unknown.status, unknown.error]).toEqual([400, 'zz must not contain NUL characters']);
    const key = await send(e, 'key with NUL', { raw: JSON.stringify(e.body!()).replace(/^\{/, '{"a\\u0000":1,') });
    expect([key.status, key.error]).toEqual([400, 'body must not have keys with NUL characters']);
    const surrogateKey = await send(e, 'key with lone surrogate', {
      raw: JSON.stringify(e.body!()).replace(/^\{/, '{"\\ud800":1,'),
    });
    expect(surrogateKey.status).toBe(400);
  });

  it('1 MB strings, 5000-deep nesting and wrong JSON types in every field: never 5xx, a refusal changes nothing', async () => {
    for (const path of paths(e.body!())) {
      for (const [kind, raw] of OTHER)
        await send(e, `${label(path)} = ${kind}`, { raw: withRaw(e.body!(), path, raw) });
    }
  });

  it('a whole body of the wrong shape: 400 Invalid request body (or 413 when too large), nothing changed', async () => {
    // DEEP_OBJECT is an object whose one (unknown) field is deep: whatever the endpoint makes of it, no 5xx
    for (const raw of ['[]', '[{}]', '1', 'null', '"{}"', 'true', DEEP_ARRAY, DEEP_OBJECT, '{', '{"a":1}}', BIG]) {
      const r = await send(e, `body ${raw.slice(0, 20)}`, { raw });
      // 64 KiB everywhere but where a route declares more (the store/payment platforms' receivers, a reward's codes: 1 MiB)
      const limit = declaredBodyLimits(env.app).get(`${e.method} ${e.route}`) ?? MAX_BODY_BYTES;
      if (raw === BIG && BIG.length > limit) expect([r.status, r.error]).toEqual([413, 'Request body too large']);
      else if (raw === DEEP_ARRAY || raw === DEEP_OBJECT)
        expect([r.status, r.error], raw.slice(0, 20)).toEqual([400, 'JSON nested too deeply']);
      else expect([r.status, r.error], raw.slice(0, 20)).toEqual([400, 'Invalid request body']);
    }
    // nesting inside a field the endpoint ignores: refused before it is parsed, as deep as anywhere
    const deep = await send(e, 'deep unknown field', { raw: withRaw({ ...e.body!(), zz: 1 }, ['zz'], DEEP_OBJECT) });
    expect([deep.status, deep.error]).toEqual([400, 'JSON nested too deeply']);
  });

  if (!e.sign) {
    it('a body that is not JSON: 415 Content-Type must be application/json, nothing changed', async () => {
      const valid = JSON.stringify(e.body!());
      for (const [contentType, raw] of [
        ['text/plain', valid],
        ['text/plain;charset=utf-8', valid],
        ['application/x-www-form-urlencoded', 'name=Acme&email=a%40b.co'],
        [
          'multipart/form-data; boundary=X',
          '--X\r\nContent-Disposition: form-data; name="name"\r\n\r\nAcme\r\n--X--\r\n',
        ],
        ['application/xml', '<name>Acme</name>'],
        [null, valid],
      ] as const) {
        const r = await send(e, `content-type ${contentType}`, { raw, contentType });
        expect([r.status, r.error], String(contentType)).toEqual([415, 'Content-Type must be application/json']);
      }
    });
  }
});

describe('odd path parameters and query strings', () => {
  const ODD_IDS = [
    '%00',
    '%ED%A0%80',
    '%EF%BF%BF',
    'x'.repeat(3000),
    '%F0%9F%98%80',
    '..',
    'null',
    '-1',
    '1e9',
    "'",
    '%27%3B--',
  ];

  it('every id in every write path: never 5xx, a refusal changes nothing', async () => {
    for (const e of ENDPOINTS) {
      const real = e.path();
      const ids = [...real.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map((m) => m[0]);
      for (const id of ids) {
        for (const odd of ODD_IDS) {
          await send(e, `path ${odd.slice(0, 12)}`, {
            path: real.replace(id, odd),
            raw: e.body ? JSON.stringify(e.body()) : undefined,
          });
        }
      }
    }
  });

  it('U+0000 in any query parameter: 400 naming it', async () => {
    const del = ENDPOINTS.find((e) => e.method === 'DELETE' && e.route.startsWith('/api/v1/instant-win-games'))!;
    const r = await send(del, 'force=NUL', { query: '?force=%00' });
    expect([r.status, r.error]).toEqual([400, 'force must not contain NUL characters']);
    const gets: [string, string[]][] = [
      ['/api/v1/contests', ['toolType', 'page', 'limit']],
      [`/api/v1/contests/${fx.contestId}/entries`, ['search', 'page', 'limit']],
      [
        `/api/v1/entries/lookup/bonus-actions?contestId=${fx.contestId}&email=ann%40example.com`,
        ['email', 'contestId'],
      ],
      ['/api/v1/instant-win-games', ['slug', 'page', 'limit']],
      [`/api/v1/instant-win-games/${fx.gameId}/plays`, ['status', 'page', 'limit']],
      [`/api/v1/contests/${fx.contestId}/webhook-receipts`, ['outcome', 'source', 'page', 'limit']],
      [`/api/admin/teams/${t.teamId}/emails`, ['page', 'limit']],
    ];
    for (const [path, params] of gets) {
      for (const p of params) {
        const url = new URL(path, 'http://x');
        url.searchParams.delete(p);
        const sep = url.search ? '&' : '?';
        const headers = path.startsWith('/api/admin') ? admin : { 'x-api-key': t.privateKey };
        for (const [value, error] of [
          ['%00', `${p} must not contain NUL characters`],
          ['a%00', `${p} must not contain NUL characters`],
        ]) {
          const res = await env.app.request(`${url.pathname}${url.search}${sep}${p}=${value}`, { headers });
          expect([path, p, res.status, ((await res.json()) as { error?: string }).error]).toEqual([
            path,
            p,
            400,
            error,
          ]);
        }
        // a bare lone-surrogate byte sequence cannot be decoded: the raw text reaches the schema
        const res = await env.app.request(`${url.pathname}${url.search}${sep}${p}=%ED%A0%80`, { headers });
        expect(res.status, `${path} ${p}`).toBeLessThan(500);
      }
    }
  });

  it('the routes that read no body, and the ones with a spent target, sent once for real: 2xx', async () => {
    for (const e of ENDPOINTS.filter((x) => !x.body || x.spent)) {
      const r = await send(e, 'baseline', { path: e.path(), raw: e.body ? JSON.stringify(e.body()) : undefined });
      expect(r.status, `${e.route} ${String(r.error)}`).toBeLessThan(300);
    }
  });
});
