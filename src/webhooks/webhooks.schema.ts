/** Response schemas of the inbound webhooks and their receipts. */
import * as v from 'valibot';
import { createEntrySchema } from '../entries/entries.js';
import { nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { pageQuerySchema } from '../http/validate.js';

export const Ignored = v.strictObject({
  ignored: v.literal(true),
  reason: v.pipe(v.string(), v.description('e.g. `Topic orders/create is not handled`, `Contest is not active`')),
});

export const ReferralCredit = v.strictObject({
  referrerEntryId: v.nullable(uuid),
  commissionAwarded: v.pipe(v.number(), v.minValue(0)),
  pointsAwarded: nonNegInt,
  alreadyProcessed: v.boolean(),
});

export const Receipt = v.strictObject({
  id: uuid,
  source: v.picklist(['purchase', 'signup', 'shopify', 'stripe']),
  externalId: v.pipe(
    v.nullable(v.string()),
    v.description('the delivery id the sender gave (webhook-id, X-Shopify-Webhook-Id, the Stripe event id)'),
  ),
  dedupeKey: v.nullable(v.string()),
  outcome: v.picklist(['processed', 'rejected', 'ignored', 'duplicate']),
  statusCode: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
  error: v.nullable(v.string()),
  response: v.pipe(v.unknown(), v.description('the JSON body that was answered')),
  createdAt: timestamp,
});

/** POST /webhooks/signup as the document shows it: the route reads these four fields and ignores the rest */
export const SignupWebhookBody = v.object({
  email: createEntrySchema.entries.email.wrapped,
  name: createEntrySchema.entries.name,
  phone: createEntrySchema.entries.phone,
  referralCode: createEntrySchema.entries.referralCode,
});

/** GET /webhooks/deliveries */
export const WebhookDeliveriesQuery = v.object({
  ...pageQuerySchema,
  outcome: v.optional(
    v.picklist(
      ['processed', 'rejected', 'ignored', 'duplicate'],
      'outcome must be one of processed, rejected, ignored, duplicate',
    ),
  ),
  source: v.optional(
    v.picklist(['purchase', 'signup', 'shopify', 'stripe'], 'source must be one of purchase, signup, shopify, stripe'),
  ),
});
