/**
 * REST hooks (private key): a subscription to one event type at a URL, made and removed by an
 * automation platform (the Zapier app, integrations/zapier/) as a user turns a Zap on and off. A
 * hook is a webhook endpoint subscribed to that one type: delivered, signed, retried and logged
 * like every endpoint (docs/events.md), and listed with them.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, Deleted, okJson, security } from '../http/schemas.js';
import { jsonBody } from '../http/validate.js';
import { createEndpoint, deleteEndpoint } from './endpoints.js';
import { CreateHook, Hook } from './hooks.schema.js';

export function hookRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Outbound events'];
  const privateKey = requireKey('private');

  r.post(
    '/api/v1/hooks',
    describeRoute({
      tags,
      operationId: 'subscribeHook',
      security: security.privateKey,
      summary: 'Subscribe a URL to one event type (a REST hook, as the Zapier app makes them)',
      responses: {
        201: okJson('The hook', Hook),
        ...apiErrors({ access: 'private', body: true }, { 400: true }),
      },
    }),
    privateKey,
    jsonBody(CreateHook),
    async (c) => {
      const d = c.var.deps;
      const body = c.req.valid('json');
      const made = await createEndpoint(
        c.var.db(),
        c.var.auth.team,
        {
          allowHttp: d.config.allowHttpWebhooks === true,
          resolveHost: d.resolveHost,
          random: d.random,
          now: d.clock.now(),
        },
        { url: body.url, events: [body.event], description: `REST hook: ${body.event}` },
      );
      return ok(
        c,
        { id: made.id, url: made.url, event: body.event, secret: made.secret, createdAt: made.createdAt },
        201,
      );
    },
  );

  r.delete(
    '/api/v1/hooks/:id',
    describeRoute({
      tags,
      operationId: 'unsubscribeHook',
      security: security.privateKey,
      summary: 'Remove a hook (and its deliveries log)',
      responses: {
        200: okJson('Removed', Deleted),
        ...apiErrors({ access: 'private' }, { 404: [Errors.hookNotFound().message] }),
      },
    }),
    privateKey,
    async (c) => ok(c, await deleteEndpoint(c.var.db(), c.var.auth.team, c.req.param('id'), Errors.hookNotFound)),
  );
  return r;
}
