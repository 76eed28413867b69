/**
 * Inbound webhooks (docs/contests-and-entries.md). No API key: each contest's own
 * secrets authenticate. The body is read RAW and verified over the exact bytes received, then
 * parsed.
 *
 * Order of the checks, for every webhook: contest known and secret valid (else `401 Invalid
 * webhook signature`; an unknown or malformed contest id answers the same 401, so the endpoint
 * does not reveal which contests exist) → JSON object (400 `Invalid request body`) → payload
 * fields (400 naming the field) → events not handled (200, ignored; Shopify's topic header is
 * checked before the body) → the work, once per delivery id (a delivery id processed before is
 * answered with the stored answer). Every delivery to a known contest is recorded in
 * `webhook_receipts` (refused signatures within the rate limiter).
 *
 * Also here: GET /api/v1/contests/:contestId/webhook-receipts, the team's audit of those rows.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import type { Db } from '../db/client.js';
import { ipHashSalt } from '../db/secrets.js';
import { type CreateEntryInput, createEntry } from '../entries/create.js';
import { CreatedEntry, CreateEntryBody } from '../entries/entries.schema.js';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import { largeBody } from '../http/body-limit.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { apiErrors, errors, headerParam as header, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { pageParams, queryParams, requireContestId } from '../http/validate.js';
import {
  MAX_EXTERNAL_ID_LENGTH,
  verifySharedSecret,
  verifyShopify,
  verifyStandardWebhook,
  verifyStripe,
} from '../lib/signatures.js';
import { issueToError, parseJsonObject } from '../lib/validation.js';
import { purchaseInputSchema, recordPurchase, toPurchaseInput } from '../purchases/purchases.js';
import { Purchase } from '../purchases/purchases.schema.js';
import { loadWebhookContest, type WebhookContest } from './contest.js';
import {
  guardDelivery,
  listContestReceipts,
  processDelivery,
  type ReceiptMeta,
  recordReceipt,
  rejectDelivery,
  type WebhookSource,
} from './receipts.js';
import {
  creditReferredSale,
  parseShopifyOrder,
  parseStripeSession,
  type ReferredSale,
  STRIPE_EVENTS,
} from './referrals.js';
import { Ignored, Receipt, ReferralCredit, SignupWebhookBody, WebhookDeliveriesQuery } from './webhooks.schema.js';

/** The generic webhooks' two ways to authenticate (either one). */
const genericAuthHeaders = [
  header(
    'webhook-id',
    'Standard Webhooks: the delivery id (a repeated id is answered with the stored answer, once processed)',
  ),
  header('webhook-timestamp', 'Standard Webhooks: Unix seconds, within 5 minutes of the server clock'),
  header(
    'webhook-signature',
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the contest webhook secret',
  ),
  header('x-webhook-secret', 'Instead of a signature: the contest webhook secret itself'),
];

const jsonBodyOf = (schema: v.GenericSchema, description: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema: resolver(schema) } },
});

const webhookErrors = (own: Parameters<typeof errors>[0]) =>
  errors({ ...own, 401: ['Invalid webhook signature'], 413: true, 500: true });

const platformPayload = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description("the platform's own payload, unchanged"),
);

type C = Context<AppEnv>;
type Obj = Record<string, unknown>;

/**
 * The signed body as a JSON object (parseJsonObject: bad UTF-8, not JSON, not an object, over 32
 * levels deep or with a string Postgres cannot store is a 400); empty text is no object here.
 */
function webhookObject(raw: Uint8Array): Obj {
  if (new TextDecoder().decode(raw).trim() === '') throw Errors.invalidBody();
  return parseJsonObject(raw);
}

/** A delivery id header, or null; over-long ids are cut for the audit row only. */
function headerId(c: C, name: string): string | null {
  const id = c.req.header(name)?.trim();
  return id ? id : null;
}

interface Delivery {
  db: Db;
  now: Date;
  contest: WebhookContest;
  raw: Uint8Array;
  meta: ReceiptMeta;
}

/**
 * Loads the contest, reads the raw body and checks the signature with `verify`. Unknown
 * contest: 401, not recorded (no team could read it). Bad signature: 401, recorded as rejected.
 */
async function authenticate(
  c: C,
  source: WebhookSource,
  externalIdHeader: string | null,
  verify: (contest: WebhookContest, raw: Uint8Array, now: Date) => Promise<boolean>,
): Promise<Delivery> {
  // the receipt and the work share one interactive transaction (receipts.ts): on Workers this is
  // the WebSocket path, the one route family that keeps it
  const db = c.var.txDb();
  const now = c.var.deps.clock.now();
  const contest = await loadWebhookContest(db, c.req.param('contestId'));
  if (!contest) throw Errors.invalidWebhookSignature();
  const raw = new Uint8Array(await c.req.arrayBuffer());
  const externalId = externalIdHeader ? headerId(c, externalIdHeader) : null;
  const meta: ReceiptMeta = { contestId: contest.id, source, externalId };
  if (!(await verify(contest, raw, now))) {
    // recorded for the team's audit, within the app's rate limiter (30 a minute per contest by
    // default): contest ids are not secret, and a flood of forged requests must not fill the table
    const { success } = await c.var.deps.rateLimiter.limit(`webhook-rejected:${contest.id}`);
    if (success) await rejectDelivery(db, now, meta, Errors.invalidWebhookSignature());
    throw Errors.invalidWebhookSignature();
  }
  if (externalId && externalId.length > MAX_EXTERNAL_ID_LENGTH) {
    await rejectDelivery(
      db,
      now,
      meta,
      Errors.validation(`${externalIdHeader} must be at most ${MAX_EXTERNAL_ID_LENGTH} characters`),
    );
  }
  return { db, now, contest, raw, meta };
}

/** Standard Webhooks signature, or the `x-webhook-secret` header (docs/contests-and-entries.md). */
async function verifyGeneric(c: C, contest: WebhookContest, raw: Uint8Array, now: Date): Promise<boolean> {
  const secret = contest.webhookSecret;
  if (!secret) return false;
  const signature = c.req.header('webhook-signature');
  if (signature) {
    const ok = await verifyStandardWebhook(
      secret,
      { id: c.req.header('webhook-id'), timestamp: c.req.header('webhook-timestamp'), signature },
      raw,
      now,
    );
    if (ok) return true;
  }
  return verifySharedSecret(secret, c.req.header('x-webhook-secret'));
}

const answer = (c: C, a: { status: number; body: unknown }) => c.json(a.body as object, a.status as 200);

const ignoredBody = (reason: string) => ({ success: true as const, data: { ignored: true, reason } });

async function ignore(c: C, d: Delivery, reason: string, dedupeKey: string | null = null) {
  const body = ignoredBody(reason);
  await recordReceipt(d.db, d.now, { ...d.meta, dedupeKey }, 'ignored', 200, body, reason);
  return c.json(body, 200);
}

/**
 * The signup body (reference: `email` required; `name`, `phone`, `referralCode` optional; other
 * fields ignored). The fields are validated by createEntry with the create-entry rules.
 */
function signupInput(body: Obj): CreateEntryInput {
  if (body.email === undefined || body.email === null || (typeof body.email === 'string' && !body.email.trim())) {
    throw Errors.validation('email is required');
  }
  const input: Record<string, unknown> = { email: body.email };
  for (const k of ['name', 'phone', 'referralCode', 'ipAddress', 'userAgent'] as const)
    if (body[k] !== undefined) input[k] = body[k];
  const parsed = v.safeParse(CreateEntryBody, input);
  if (!parsed.success) throw issueToError(parsed.issues as unknown as Parameters<typeof issueToError>[0]);
  return input as CreateEntryInput;
}

/** Credits a parsed sale once per delivery; a closed contest is acknowledged and ignored. */
async function creditSale(c: C, d: Delivery, sale: ReferredSale) {
  const meta = { ...d.meta, dedupeKey: sale.orderId };
  if (Number(sale.amount) <= 0) return ignore(c, { ...d, meta }, 'Order total is 0', sale.orderId);
  const a = await processDelivery(d.db, d.now, meta, async (tx) => {
    const out = await creditReferredSale(tx, d.now, d.contest.id, sale);
    if (out.kind === 'not_open') {
      return {
        outcome: 'ignored',
        status: 200,
        body: ignoredBody('Contest is not active'),
        note: 'Contest is not active',
      };
    }
    return { outcome: 'processed', status: 200, body: { success: true, data: out.result } };
  });
  return answer(c, a);
}

export function webhookRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Webhooks'];

  r.post(
    '/api/webhooks/purchase/:contestId',
    describeRoute({
      operationId: 'receivePurchaseWebhook',
      tags,
      summary: 'Record a purchase (Standard Webhooks signature or x-webhook-secret); same record and rules as the API',
      security: security.none,
      parameters: genericAuthHeaders,
      requestBody: jsonBodyOf(purchaseInputSchema, 'The purchase, as for POST /api/v1/contests/{contestId}/purchases'),
      responses: {
        201: okJson('The purchase was recorded and its points awarded', Purchase),
        200: okJson('Recorded before (same orderId, or a repeated delivery id): nothing changed', Purchase),
        ...webhookErrors({
          400: [
            'Invalid request body',
            'Amount must be positive',
            'Amount is too large',
            'Purchase tracking is not enabled for this contest',
          ],
          404: ['Entry not found'],
          409: ['Contest is not active'],
        }),
      },
    }),
    async (c) => {
      const d = await authenticate(c, 'purchase', 'webhook-id', (contest, raw, now) =>
        verifyGeneric(c, contest, raw, now),
      );
      const input = await guardDelivery(d.db, d.now, d.meta, () => {
        const parsed = v.safeParse(purchaseInputSchema, webhookObject(d.raw));
        if (!parsed.success)
          throw issueToError(parsed.issues as unknown as Parameters<typeof issueToError>[0], 'Invalid request body');
        return toPurchaseInput(parsed.output, 'webhook');
      });
      const a = await processDelivery(d.db, d.now, { ...d.meta, dedupeKey: input.orderId }, async (tx) => {
        const res = await recordPurchase(tx, d.now, { id: d.contest.id, team: d.contest.team }, input);
        return { outcome: 'processed', status: res.status, body: { success: true, data: res.data } };
      });
      return answer(c, a);
    },
  );

  r.post(
    '/api/webhooks/signup/:contestId',
    describeRoute({
      operationId: 'receiveSignupWebhook',
      tags,
      summary: 'Create an entry (Standard Webhooks signature or x-webhook-secret); external tracking must be on',
      security: security.none,
      parameters: genericAuthHeaders,
      requestBody: jsonBodyOf(
        SignupWebhookBody,
        'The person: `email` required; `name`, `phone`, `referralCode` optional; other fields are ignored',
      ),
      responses: {
        201: okJson('The entry was created', CreatedEntry),
        200: okJson(
          'An entry with this email exists, or the delivery id was processed before: answered unchanged',
          CreatedEntry,
        ),
        ...webhookErrors({
          400: 'Invalid input: `Invalid request body`, `email is required`, or a message naming the field',
          403: ['External tracking is not enabled for this contest'],
          409: ['Contest is not active'],
        }),
      },
    }),
    async (c) => {
      const d = await authenticate(c, 'signup', 'webhook-id', (contest, raw, now) =>
        verifyGeneric(c, contest, raw, now),
      );
      const input = await guardDelivery(d.db, d.now, d.meta, () => signupInput(webhookObject(d.raw)));
      let emailQueued = false;
      const a = await processDelivery(d.db, d.now, d.meta, async (tx) => {
        if (!d.contest.externalTrackingEnabled) throw Errors.externalTrackingDisabled();
        const deps = c.var.deps;
        const res = await createEntry(
          tx,
          {
            now: d.now,
            random: deps.random,
            publicUrl: deps.config.publicUrl,
            ipHashSalt: () => ipHashSalt(deps),
            source: 'webhook',
          },
          d.contest,
          input,
        );
        emailQueued = res.emailQueued;
        return {
          outcome: 'processed',
          status: res.status,
          body: { success: true, data: res.data },
          dedupeKey: res.data.entryId,
        };
      });
      if (emailQueued && !a.replayed) triggerEmailDelivery(c);
      return answer(c, a);
    },
  );

  r.post(
    '/api/webhooks/referral/shopify/:contestId',
    describeRoute({
      operationId: 'receiveShopifyReferralWebhook',
      tags,
      summary: 'Shopify orders/paid: credits the referrer (X-Shopify-Hmac-Sha256 with the contest shopifySecret)',
      security: security.none,
      parameters: [
        header('X-Shopify-Hmac-Sha256', 'base64 HMAC-SHA256 of the raw body with the contest shopifySecret', true),
        header('X-Shopify-Topic', 'only `orders/paid` is handled; other topics are acknowledged and ignored'),
        header('X-Shopify-Webhook-Id', 'the delivery id (a repeated id is answered with the stored answer)'),
      ],
      requestBody: jsonBodyOf(platformPayload, 'The Shopify order'),
      responses: {
        200: okJson(
          'The referrer was credited, or the delivery was acknowledged and ignored',
          v.union([ReferralCredit, Ignored]),
        ),
        ...webhookErrors({ 400: 'Invalid input: `Invalid request body`, or a message naming the field of the order' }),
      },
    }),
    largeBody(),
    async (c) => {
      const d = await authenticate(c, 'shopify', 'x-shopify-webhook-id', (contest, raw) =>
        verifyShopify(contest.shopifySecret ?? '', c.req.header('x-shopify-hmac-sha256'), raw),
      );
      const topic = c.req.header('x-shopify-topic')?.trim() ?? '';
      if (topic !== 'orders/paid') return ignore(c, d, `Topic ${topic || '(none)'} is not handled`);
      const sale = await guardDelivery(d.db, d.now, d.meta, () => parseShopifyOrder(webhookObject(d.raw)));
      return creditSale(c, d, sale);
    },
  );

  r.post(
    '/api/webhooks/referral/stripe/:contestId',
    describeRoute({
      operationId: 'receiveStripeReferralWebhook',
      tags,
      summary: 'Stripe checkout.session.completed / async_payment_succeeded: credits the referrer (Stripe-Signature)',
      security: security.none,
      parameters: [
        header('Stripe-Signature', '`t=<unix seconds>,v1=<hex HMAC-SHA256>` with the contest stripeSecret', true),
      ],
      requestBody: jsonBodyOf(platformPayload, 'The Stripe event'),
      responses: {
        200: okJson(
          'The referrer was credited, or the event was acknowledged and ignored',
          v.union([ReferralCredit, Ignored]),
        ),
        ...webhookErrors({
          400: 'Invalid input: `Invalid request body`, `id is required`, `Invalid id`, `type is required`, `Invalid data.object`...',
        }),
      },
    }),
    largeBody(),
    async (c) => {
      const d = await authenticate(c, 'stripe', null, (contest, raw, now) =>
        verifyStripe(contest.stripeSecret ?? '', c.req.header('stripe-signature'), raw, now),
      );
      const event = await guardDelivery(d.db, d.now, d.meta, () => {
        const e = webhookObject(d.raw);
        if (e.id === undefined || e.id === null) throw Errors.validation('id is required');
        if (typeof e.id !== 'string' || !e.id.trim() || e.id.length > MAX_EXTERNAL_ID_LENGTH)
          throw Errors.validation('Invalid id');
        if (typeof e.type !== 'string') throw Errors.validation('type is required');
        return e as Obj & { id: string; type: string };
      });
      const withId: Delivery = { ...d, meta: { ...d.meta, externalId: event.id } };
      if (!(STRIPE_EVENTS as readonly string[]).includes(event.type))
        return ignore(c, withId, `Event ${event.type} is not handled`);
      const sale = await guardDelivery(d.db, d.now, withId.meta, () => {
        const data = event.data;
        const session = data && typeof data === 'object' ? (data as Obj).object : undefined;
        if (!session || typeof session !== 'object' || Array.isArray(session))
          throw Errors.validation('Invalid data.object');
        return parseStripeSession(session as Obj);
      });
      if (!sale) return ignore(c, withId, 'Checkout session is not paid');
      return creditSale(c, withId, sale);
    },
  );

  r.get(
    '/api/v1/contests/:contestId/webhook-receipts',
    describeRoute({
      operationId: 'listWebhookReceipts',
      tags,
      summary: 'What arrived on the contest webhooks, newest first (audit; private key)',
      security: security.privateKey,
      responses: {
        200: pageJson('Deliveries, newest first', Receipt),
        ...apiErrors({ access: 'private' }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    requireKey('private'),
    queryParams(WebhookDeliveriesQuery),
    describeRoute({ parameters: pageQuery({ defaultLimit: 50 }) }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q, { defaultLimit: 50 });
      const { items, total } = await listContestReceipts(c.var.db(), c.var.auth.team, contestId, {
        limit,
        offset,
        outcome: q.outcome,
        source: q.source,
      });
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  return r;
}
