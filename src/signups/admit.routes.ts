/** POST /api/v1/contests/{contestId}/admit: let the first N of a waitlist in, or the entries named. */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok } from '../http/envelope.js';
import { apiErrors, headerParam, jsonRequest, okJson, security, uuid } from '../http/schemas.js';
import { idempotencyKeyOf, jsonBody, requireContestId } from '../http/validate.js';
import { ADMIT_MAX, admit } from './admit.js';

const countMessage = `count must be an integer between 1 and ${ADMIT_MAX}`;
export const AdmitBody = v.pipe(
  v.object({
    count: v.optional(
      v.pipe(
        v.number(countMessage),
        v.integer(countMessage),
        v.minValue(1, countMessage),
        v.maxValue(ADMIT_MAX, countMessage),
        v.description('admit the first `count` entries still waiting, by position'),
      ),
    ),
    entryIds: v.optional(
      v.pipe(
        v.array(v.string('entryIds must be entry ids'), 'entryIds must be a list of entry ids'),
        v.minLength(1, 'entryIds must not be empty'),
        v.maxLength(ADMIT_MAX, `entryIds must have at most ${ADMIT_MAX} ids`),
        v.description('admit these entries (those still waiting; others are left as they are)'),
      ),
    ),
  }),
  v.check((b) => (b.count === undefined) !== (b.entryIds === undefined), 'Give either count or entryIds'),
);

const Admitted = v.strictObject({
  entryIds: v.pipe(v.array(uuid), v.description('the entries this admission let in, by position')),
  count: v.number(),
});

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
