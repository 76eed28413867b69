/** POST /api/v1/contests/{contestId}/admit: let the first N of a waitlist in, or the entries named. */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok } from '../http/envelope.js';
import { apiErrors, headerParam, jsonRequest, okJson, security } from '../http/schemas.js';
import { idempotencyKeyOf, jsonBody, requireContestId } from '../http/validate.js';
import { admit } from './admit.js';
import { AdmitBody, Admitted } from './signups.schema.js';

export function admitRoutes() {
  const r = new Hono<AppEnv>();
  r.post(
    '/api/v1/contests/:contestId/admit',
    describeRoute({
      operationId: 'admitEntries',
      tags: ['Sign-ups'],
      summary: 'Let a waitlist in: the first N still waiting by position, or the entries named',
      description:
        'Each entry let in gets admittedAt, the entry.admitted event and an email, and leaves the positions of those still waiting. ' +
        'With an Idempotency-Key header, a retry admits nobody and answers the same list.',
      security: security.privateKey,
      parameters: [
        headerParam('Idempotency-Key', 'any 1-200 printable characters: a retry with it answers the same list'),
      ],
      requestBody: jsonRequest(AdmitBody),
      responses: {
        200: okJson('The entries let in', Admitted),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: ['Give either count or entryIds', 'Invalid Idempotency-Key', 'a message naming the field'],
            404: ['Contest not found'],
            409: ['Contest is not a waitlist', 'An admission with this Idempotency-Key is in progress, try again'],
          },
        ),
      },
    }),
    requireKey('private'),
    jsonBody(AdmitBody),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const key = idempotencyKeyOf(c);
      const body = c.req.valid('json');
      const whom = body.count !== undefined ? { count: body.count } : { entryIds: body.entryIds! };
      const result = await admit(c.var.db(), c.var.auth.team, contestId, whom, key, c.var.deps.clock.now());
      if (result.emailsQueued) triggerEmailDelivery(c);
      return ok(c, { entryIds: result.entryIds, count: result.entryIds.length });
    },
  );
  return r;
}
