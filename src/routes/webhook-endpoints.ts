/**
 * Outbound events: the team's webhook endpoints, their deliveries log and manual retry
 * (private key). Delivery itself runs after the response and in the cron (src/domain/events).
 */
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { ErrorEnvelope, security } from '../schemas/common.js';
import { deliveryContext } from '../domain/events/deliver.js';
import { EVENT_TYPES } from '../domain/events/emit.js';
import {
  createEndpoint,
  createEndpointSchema,
  deleteEndpoint,
  DELIVERY_STATUSES,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  sendTestEvent,
  updateEndpoint,
  updateEndpointSchema,
} from '../domain/events/endpoints.js';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { jsonBody, pageParams, pageQuerySchema, queryParams } from '../http/validate.js';

const eventType = v.picklist(EVENT_TYPES);
const endpointSchema = v.object({
  id: v.pipe(v.string(), v.uuid()),
  url: v.string(),
  events: v.array(eventType),
  description: v.nullable(v.string()),
  enabled: v.boolean(),
  createdAt: v.string(),
});
const deliverySchema = v.object({
  id: v.pipe(v.string(), v.uuid()),
  eventId: v.pipe(v.string(), v.uuid()),
  type: eventType,
  status: v.picklist(DELIVERY_STATUSES),
  attempts: v.number(),
  lastStatusCode: v.nullable(v.number()),
  lastError: v.nullable(v.string()),
  nextAttemptAt: v.nullable(v.string()),
  deliveredAt: v.nullable(v.string()),
  createdAt: v.string(),
});
const paginationSchema = v.object({ page: v.number(), limit: v.number(), total: v.number(), totalPages: v.number() });
const errorSchema = ErrorEnvelope;
const envelope = <S extends v.GenericSchema>(data: S, extra: v.ObjectEntries = {}) =>
  v.object({ success: v.literal(true), data, ...extra });

const json = (description: string, schema: v.GenericSchema) => ({
  description,
  content: { 'application/json': { schema: resolver(schema) } },
});
const errors = {
  400: json('Invalid input (`Invalid url`, `Unknown event type`, ...)', errorSchema),
  401: json('Missing or invalid API key', errorSchema),
  403: json('This endpoint requires a private API key', errorSchema),
  404: json('Webhook endpoint not found', errorSchema),
};

const deliveriesQuery = v.object({
  ...pageQuerySchema,
  status: v.optional(v.pipe(v.picklist(DELIVERY_STATUSES, 'Invalid status'), v.description('pending, delivered or failed'))),
});

export function webhookEndpointRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Outbound events'];
  const privateKey = requireKey('private');
  const urlCtx = (c: AppContext) => ({
    allowHttp: c.var.deps.config.allowHttpWebhooks === true,
    resolveHost: c.var.deps.resolveHost,
  });

  r.post(
    '/api/v1/webhook-endpoints',
    describeRoute({
      tags,
      operationId: 'createWebhookEndpoint',
      security: security.privateKey,
      summary: 'Add a receiver of outbound events (the signing secret is shown only here)',
      responses: {
        201: json('The endpoint, with its secret', envelope(v.object({ ...endpointSchema.entries, secret: v.string() }))),
        ...errors,
      },
    }),
    privateKey,
    jsonBody(createEndpointSchema),
    async (c) => {
      const d = c.var.deps;
      const created = await createEndpoint(c.var.db(), c.var.auth.team, { ...urlCtx(c), random: d.random, now: d.clock.now() }, c.req.valid('json'));
      return ok(c, created, 201);
    },
  );

  r.get(
    '/api/v1/webhook-endpoints',
    describeRoute({
      tags,
      operationId: 'listWebhookEndpoints',
      security: security.privateKey,
      summary: "List the team's webhook endpoints",
      responses: { 200: json('The endpoints, oldest first', envelope(v.array(endpointSchema))), 401: errors[401], 403: errors[403] },
    }),
    privateKey,
    async (c) => ok(c, await listEndpoints(c.var.db(), c.var.auth.team)),
  );

  r.patch(
    '/api/v1/webhook-endpoints/:id',
    describeRoute({
      tags,
      operationId: 'updateWebhookEndpoint',
      security: security.privateKey,
      summary: 'Change url, events, enabled or description',
      responses: { 200: json('The updated endpoint', envelope(endpointSchema)), ...errors },
    }),
    privateKey,
    jsonBody(updateEndpointSchema),
    async (c) =>
      ok(
        c,
        await updateEndpoint(c.var.db(), c.var.auth.team, { ...urlCtx(c), now: c.var.deps.clock.now() }, c.req.param('id'), c.req.valid('json')),
      ),
  );

  r.delete(
    '/api/v1/webhook-endpoints/:id',
    describeRoute({
      tags,
      operationId: 'deleteWebhookEndpoint',
      security: security.privateKey,
      summary: 'Delete an endpoint and its deliveries log',
      responses: {
        200: json('Deleted', envelope(v.object({ id: v.string(), deleted: v.literal(true) }))),
        401: errors[401],
        403: errors[403],
        404: errors[404],
      },
    }),
    privateKey,
    async (c) => ok(c, await deleteEndpoint(c.var.db(), c.var.auth.team, c.req.param('id'))),
  );

  r.post(
    '/api/v1/webhook-endpoints/:id/test',
    describeRoute({
      tags,
      operationId: 'testWebhookEndpoint',
      security: security.privateKey,
      summary: 'Send a webhook.test event to this endpoint alone (delivered after the answer)',
      responses: {
        202: json('The test event was recorded', envelope(v.object({ eventId: v.pipe(v.string(), v.uuid()) }))),
        401: errors[401],
        403: errors[403],
        404: errors[404],
      },
    }),
    privateKey,
    async (c) => ok(c, await sendTestEvent(c.var.db(), c.var.auth.team, c.req.param('id'), c.var.deps.clock.now()), 202),
  );

  r.get(
    '/api/v1/webhook-endpoints/:id/deliveries',
    describeRoute({
      tags,
      operationId: 'listWebhookDeliveries',
      security: security.privateKey,
      summary: "An endpoint's deliveries, newest first (page, limit, status)",
      responses: { 200: json('A page of deliveries', envelope(v.array(deliverySchema), { pagination: paginationSchema })), ...errors },
    }),
    privateKey,
    queryParams(deliveriesQuery),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listDeliveries(c.var.db(), c.var.auth.team, c.req.param('id'), { limit, offset, status: q.status });
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.post(
    '/api/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    describeRoute({
      tags,
      operationId: 'retryWebhookDelivery',
      security: security.privateKey,
      summary: 'Attempt a pending or failed delivery now; answers the delivery after the attempt',
      responses: {
        200: json('The delivery after the attempt', envelope(deliverySchema)),
        401: errors[401],
        403: errors[403],
        404: json('Webhook endpoint not found / Delivery not found', errorSchema),
        409: json('Delivery already delivered', errorSchema),
      },
    }),
    privateKey,
    async (c) =>
      ok(
        c,
        await retryDelivery(
          c.var.db(),
          c.var.auth.team,
          deliveryContext(c.var.deps),
          c.req.param('id'),
          c.req.param('deliveryId'),
          c.var.deps.clock,
        ),
      ),
  );
  return r;
}
