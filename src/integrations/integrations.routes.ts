/**
 * The other tools a team connects (private key): Klaviyo, Mailchimp, HubSpot. Create, list,
 * read, change, delete, and the connection test (docs/integrations.md). Without the deployment's
 * INTEGRATIONS_KEY every one answers 503 saying how to set it.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { apiErrors, Deleted, okJson, pageJson, security } from '../http/schemas.js';
import { jsonBody, pageParams, queryParams } from '../http/validate.js';
import { latestBackfill, startBackfill } from './backfill.js';
import {
  createIntegration,
  credentialBox,
  deleteIntegration,
  getIntegration,
  listIntegrationDeliveries,
  listIntegrations,
  retryIntegrationDelivery,
  runIntegrationTest,
  updateIntegration,
} from './integrations.js';
import {
  Backfill,
  CreateIntegration,
  Integration,
  IntegrationDeliveriesQuery,
  IntegrationDelivery,
  IntegrationTest,
  UpdateIntegration,
} from './integrations.schema.js';
import { providerContext } from './providers.js';

const NOT_FOUND = [Errors.integrationNotFound().message];
const OFF = [Errors.integrationsOff().message];

export function integrationRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Integrations'];
  const privateKey = requireKey('private');
  const box = (c: AppContext) => credentialBox(c.var.deps.config);
  const now = (c: AppContext) => c.var.deps.clock.now();

  r.post(
    '/api/v1/integrations',
    describeRoute({
      tags,
      operationId: 'createIntegration',
      security: security.privateKey,
      summary: 'Connect Klaviyo, Mailchimp or HubSpot (credentials encrypted at rest, never answered back)',
      responses: {
        201: okJson('The connection', Integration),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 503: OFF }),
      },
    }),
    privateKey,
    jsonBody(CreateIntegration),
    async (c) =>
      ok(c, await createIntegration(c.var.db(), c.var.auth.team, await box(c), c.req.valid('json'), now(c)), 201),
  );

  r.get(
    '/api/v1/integrations',
    describeRoute({
      tags,
      operationId: 'listIntegrations',
      security: security.privateKey,
      summary: "The team's connections, oldest first",
      responses: {
        200: okJson('The connections', v.array(Integration)),
        ...apiErrors({ access: 'private' }, { 503: OFF }),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(c, await listIntegrations(c.var.db(), c.var.auth.team));
    },
  );

  r.get(
    '/api/v1/integrations/:id',
    describeRoute({
      tags,
      operationId: 'getIntegration',
      security: security.privateKey,
      summary: 'One connection',
      responses: {
        200: okJson('The connection', Integration),
        ...apiErrors({ access: 'private' }, { 404: NOT_FOUND, 503: OFF }),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(c, await getIntegration(c.var.db(), c.var.auth.team, c.req.param('id')));
    },
  );

  r.patch(
    '/api/v1/integrations/:id',
    describeRoute({
      tags,
      operationId: 'updateIntegration',
      security: security.privateKey,
      summary: 'Change credentials, target, contests or enabled (credentials and target of its provider)',
      responses: {
        200: okJson('The connection', Integration),
        ...apiErrors({ access: 'private', body: true }, { 400: true, 404: NOT_FOUND, 503: OFF }),
      },
    }),
    privateKey,
    jsonBody(UpdateIntegration),
    async (c) =>
      ok(
        c,
        await updateIntegration(
          c.var.db(),
          c.var.auth.team,
          await box(c),
          c.req.param('id'),
          c.req.valid('json'),
          now(c),
        ),
      ),
  );

  r.delete(
    '/api/v1/integrations/:id',
    describeRoute({
      tags,
      operationId: 'deleteIntegration',
      security: security.privateKey,
      summary: 'Disconnect (nothing is removed at the provider)',
      responses: {
        200: okJson('Deleted', Deleted),
        ...apiErrors({ access: 'private' }, { 404: NOT_FOUND, 503: OFF }),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(c, await deleteIntegration(c.var.db(), c.var.auth.team, c.req.param('id')));
    },
  );

  r.post(
    '/api/v1/integrations/:id/test',
    describeRoute({
      tags,
      operationId: 'testIntegration',
      security: security.privateKey,
      summary:
        "The connection test: a real call to the provider proving the credential works and the target exists (creating Mailchimp's merge fields and HubSpot's properties when missing)",
      description:
        'Answers 200 whatever the provider said: `passed`, the provider status and, on a failure, its own message.',
      responses: {
        200: okJson('What the provider answered', IntegrationTest),
        ...apiErrors(
          { access: 'private' },
          { 404: NOT_FOUND, 409: [Errors.integrationSealedElsewhere().message], 503: OFF },
        ),
      },
    }),
    privateKey,
    async (c) => {
      const ctx = providerContext(c.var.deps);
      return ok(c, await runIntegrationTest(c.var.db(), c.var.auth.team, await box(c), ctx, c.req.param('id')));
    },
  );

  r.get(
    '/api/v1/integrations/:id/deliveries',
    describeRoute({
      tags,
      operationId: 'listIntegrationDeliveries',
      security: security.privateKey,
      summary:
        "A connection's deliveries, newest first (page, limit, status): what was sent, and what the provider said",
      responses: {
        200: pageJson('A page of deliveries', IntegrationDelivery),
        ...apiErrors({ access: 'private' }, { 400: true, 404: NOT_FOUND, 503: OFF }),
      },
    }),
    privateKey,
    queryParams(IntegrationDeliveriesQuery),
    async (c) => {
      await box(c);
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listIntegrationDeliveries(c.var.db(), c.var.auth.team, c.req.param('id'), {
        limit,
        offset,
        status: q.status,
        kind: q.kind,
        entryId: q.entryId,
      });
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.post(
    '/api/v1/integrations/:id/deliveries/:deliveryId/retry',
    describeRoute({
      tags,
      operationId: 'retryIntegrationDelivery',
      security: security.privateKey,
      summary: 'Send a failed or waiting delivery again, with the next run of the every-minute job',
      description: 'Never calls the provider on the request: answers the delivery, pending and due now.',
      responses: {
        200: okJson('The delivery, due now', IntegrationDelivery),
        ...apiErrors(
          { access: 'private' },
          {
            404: [...NOT_FOUND, Errors.deliveryNotFound().message],
            409: [
              Errors.deliveryAlreadyDelivered().message,
              Errors.deliveryInProgress().message,
              Errors.integrationDeliverySuperseded().message,
            ],
            503: OFF,
          },
        ),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(
        c,
        await retryIntegrationDelivery(
          c.var.db(),
          c.var.auth.team,
          c.req.param('id'),
          c.req.param('deliveryId'),
          now(c),
        ),
      );
    },
  );

  r.post(
    '/api/v1/integrations/:id/backfill',
    describeRoute({
      tags,
      operationId: 'startIntegrationBackfill',
      security: security.privateKey,
      summary:
        "Send the existing entries: every confirmed person of the connection's contests, in bulk, by the every-minute job",
      responses: {
        202: okJson('The backfill, owed', Backfill),
        ...apiErrors(
          { access: 'private' },
          {
            404: NOT_FOUND,
            409: [Errors.integrationDisabled().message, Errors.backfillRunning().message],
            503: OFF,
          },
        ),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(c, await startBackfill(c.var.db(), c.var.auth.team, c.req.param('id'), now(c)), 202);
    },
  );

  r.get(
    '/api/v1/integrations/:id/backfill',
    describeRoute({
      tags,
      operationId: 'getIntegrationBackfill',
      security: security.privateKey,
      summary: "The connection's latest backfill and its progress (null: none yet)",
      responses: {
        200: okJson('The latest backfill', v.nullable(Backfill)),
        ...apiErrors({ access: 'private' }, { 404: NOT_FOUND, 503: OFF }),
      },
    }),
    privateKey,
    async (c) => {
      await box(c);
      return ok(c, await latestBackfill(c.var.db(), c.var.auth.team, c.req.param('id')));
    },
  );
  return r;
}
