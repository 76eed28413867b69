/** Outbound events: the webhook endpoints' and deliveries' answers and queries. */
import * as v from 'valibot';
import { int, nonNegInt, timestamp, uuid } from '../http/schemas.js';
import { pageQuerySchema } from '../http/validate.js';
import { EVENT_TYPES } from '../sql/events.js';
import { DELIVERY_STATUSES } from './endpoints.js';

const eventType = v.picklist(EVENT_TYPES);

export const endpointSchema = v.strictObject({
  id: uuid,
  url: v.string(),
  events: v.array(eventType),
  description: v.nullable(v.string()),
  enabled: v.boolean(),
  createdAt: timestamp,
});

export const deliverySchema = v.strictObject({
  id: uuid,
  eventId: uuid,
  type: eventType,
  status: v.picklist(DELIVERY_STATUSES),
  attempts: nonNegInt,
  lastStatusCode: v.nullable(int),
  lastError: v.nullable(v.string()),
  nextAttemptAt: v.nullable(timestamp),
  deliveredAt: v.nullable(timestamp),
  createdAt: timestamp,
});

export const deliveriesQuery = v.object({
  ...pageQuerySchema,
  status: v.optional(
    v.pipe(v.picklist(DELIVERY_STATUSES, 'Invalid status'), v.description('pending, delivered or failed')),
  ),
});

/** POST /webhook-endpoints: the endpoint and its signing secret, shown this once */
export const EndpointWithSecret = v.strictObject({ ...endpointSchema.entries, secret: v.string() });

/** POST /webhook-endpoints/{id}/rotate-secret */
export const RotatedEndpoint = v.strictObject({
  ...endpointSchema.entries,
  secret: v.string(),
  previousSecretExpiresAt: v.pipe(
    v.nullable(timestamp),
    v.description('until when deliveries also carry a signature by the old secret; null: not at all'),
  ),
});

/** POST /webhook-endpoints/{id}/test */
export const TestEventSent = v.strictObject({ eventId: uuid });
