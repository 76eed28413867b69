import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { jsonBody, requireContestId } from '../http/validate.js';
import { purchaseInputSchema, recordPurchase, toPurchaseInput } from './purchases.js';
import { Purchase } from './purchases.schema.js';

export function purchaseRoutes() {
  const r = new Hono<AppEnv>();

  r.post(
    '/api/v1/contests/:contestId/purchases',
    describeRoute({
      operationId: 'recordPurchase',
      tags: ['Purchases'],
      summary:
        'Record a purchase (points per the contest purchase tracking; duplicate orderId answers 200 alreadyExists)',
      security: security.privateKey,
      responses: {
        201: okJson('The purchase was recorded and its points awarded', Purchase),
        200: okJson('A purchase with this orderId was recorded before: nothing changed (alreadyExists)', Purchase),
        ...apiErrors(
          { access: 'private', body: true, forbidden: 'Private key required' },
          {
            400: [
              'Invalid request body',
              'Amount must be positive',
              'Amount is too large',
              'Purchase tracking is not enabled for this contest',
              'Missing contestId',
            ],
            404: ['Contest not found', 'Entry not found'],
            409: ['Contest is not active'],
          },
        ),
      },
    }),
    // docs/api.md: this endpoint words the 403 `Private key required`
    requireKey('private', { forbidden: Errors.privateKeyRequiredShort }),
    jsonBody(purchaseInputSchema, { fallback: 'Invalid request body' }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const body = c.req.valid('json');
      const result = await recordPurchase(
        c.var.db(),
        c.var.deps.clock.now(),
        { id: contestId, team: c.var.auth.team },
        toPurchaseInput(body, 'api'),
      );
      return ok(c, result.data, result.status);
    },
  );

  return r;
}
