/**
 * GET /api/v1/key: which key this is (its team, type and personal-data mode). What a client (the
 * console) asks first, to greet the team by name and to refuse a key that cannot do its job.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { KeyInfo } from './admin.schema.js';
import { keyInfo } from './keys.js';

export function keyRoutes() {
  const r = new Hono<AppEnv>();
  r.get(
    '/api/v1/key',
    describeRoute({
      operationId: 'getApiKey',
      tags: ['Keys'],
      summary: 'The key of the request: its team, type and personal-data mode',
      security: security.publicKey,
      responses: { 200: okJson('The key (never the key itself)', KeyInfo), ...apiErrors({ access: 'public' }) },
    }),
    requireKey('public'),
    async (c) => ok(c, await keyInfo(c.var.db(), c.var.auth.team)),
  );
  return r;
}
