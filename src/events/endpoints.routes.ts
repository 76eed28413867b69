/**
 * Outbound events: the team's webhook endpoints, their deliveries log and manual retry
 * (private key). Delivery itself runs after the response and in the cron (deliver.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { apiErrors, Deleted, okJson, pageJson, security } from '../http/schemas.js';
import { jsonBody, pageParams, queryParams } from '../http/validate.js';
import { deliveryContext } from './deliver.js';
import {
  createEndpoint,
  createEndpointSchema,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateEndpointSecret,
  rotateSecretSchema,
  sendTestEvent,
  updateEndpoint,
  updateEndpointSchema,
} from './endpoints.js';
import {
  deliveriesQuery,
  deliverySchema,
  EndpointWithSecret,
  endpointSchema,
  RotatedEndpoint,
  TestEventSent,
} from './endpoints.schema.js';

const ENDPOINT_404 = ['Webhook endpoint not found'];

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
        201: okJson('The endpoint, with its secret', EndpointWithSecret),
        ...apiErrors({ access: 'private', body: true }, { 400: true }),
      },
    }),
    privateKey,
    jsonBody(createEndpointSchema),
    async (c) => {
      const d = c.var.deps;
      const created = await createEndpoint(
        c.var.db(),
        c.var.auth.team,
        { ...urlCtx(c), random: d.random, now: d.clock.now() },
        c.req.valid('json'),
      );
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
      responses: {
        200: okJson('The endpoints, oldest first', v.array(endpointSchema)),
        ...apiErrors({ access: 'private' }),
      },
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
      responses: {
        200: okJson('The updated endpoint', endpointSchema),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 404: ENDPOINT_404 }),
      },
    }),
    privateKey,
    jsonBody(updateEndpointSchema),
    async (c) =>
      ok(
        c,
        await updateEndpoint(
          c.var.db(),
          c.var.auth.team,
          { ...urlCtx(c), now: c.var.deps.clock.now() },
          c.req.param('id'),
          c.req.valid('json'),
        ),
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
        200: okJson('Deleted', Deleted),
        ...apiErrors({ access: 'private' }, { 404: ENDPOINT_404 }),
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
        202: okJson('The test event was recorded', TestEventSent),
        ...apiErrors({ access: 'private' }, { 404: ENDPOINT_404 }),
      },
    }),
    privateKey,
    async (c) =>
      ok(c, await sendTestEvent(c.var.db(), c.var.auth.team, c.req.param('id'), c.var.deps.clock.now()), 202),
  );

  r.post(
    '/api/v1/webhook-endpoints/:id/rotate-secret',
    describeRoute({
      tags,
      operationId: 'rotateWebhookEndpointSecret',
      security: security.privateKey,
      summary: 'A new signing secret (shown only here); the old one also signs deliveries for previousSecretValidHours',
      responses: {
        200: okJson('The endpoint with its new secret', RotatedEndpoint),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 404: ENDPOINT_404 }),
      },
    }),
    privateKey,
    jsonBody(rotateSecretSchema),
    async (c) =>
      ok(
        c,
        await rotateEndpointSecret(
          c.var.db(),
          c.var.auth.team,
          { random: c.var.deps.random, now: c.var.deps.clock.now() },
          c.req.param('id'),
          c.req.valid('json'),
        ),
      ),
  );

  r.get(
    '/api/v1/webhook-endpoints/:id/deliveries',
    describeRoute({
      tags,
      operationId: 'listWebhookDeliveries',
      security: security.privateKey,
      summary: "An endpoint's deliveries, newest first (page, limit, status)",
      responses: {
        200: pageJson('A page of deliveries', deliverySchema),
        ...apiErrors({ access: 'private' }, { 400: true, 404: ENDPOINT_404 }),
      },
    }),
    privateKey,
    queryParams(deliveriesQuery),
    async (c) => {
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listDeliveries(c.var.db(), c.var.auth.team, c.req.param('id'), {
        limit,
        offset,
        status: q.status,
      });
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
        200: okJson('The delivery after the attempt', deliverySchema),
        ...apiErrors(
          { access: 'private' },
          { 404: [...ENDPOINT_404, 'Delivery not found'], 409: ['Delivery already delivered'] },
        ),
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
