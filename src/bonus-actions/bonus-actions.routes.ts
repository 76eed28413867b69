import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { emailSchema, jsonBody, queryParams } from '../http/validate.js';
import { sha256Hex } from '../lib/crypto.js';
import { entryTokenOf } from '../lib/entry-tokens.js';
import { completeBonusAction, listBonusActionsForEntry, verifyBonusCompletion } from './bonus-actions.js';
import {
  BonusCompletion,
  completeBody,
  EntryBonusActions,
  lookupQuery,
  verifyBody,
  verifyResultSchema,
} from './bonus-actions.schema.js';

/** Blank path parameters: the reference's `400 Missing entryId or bonusActionId`. */
const requireCompleteIds = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.req.param('entryId')?.trim() || !c.req.param('bonusActionId')?.trim())
    throw Errors.missingEntryOrBonusActionId();
  await next();
});

export function bonusActionRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Bonus actions'];
  const publicKey = requireKey('public', { unauthorized: Errors.invalidKey });

  r.get(
    '/api/v1/entries/:entryId/bonus-actions',
    describeRoute({
      operationId: 'listEntryBonusActions',
      tags,
      summary:
        'Bonus actions of an entry with completion state (entryId `lookup` + ?email&contestId finds the entry by email)',
      security: security.keyOrEntryToken,
      responses: {
        200: okJson("The contest's bonus actions as this entry sees them, in display order", EntryBonusActions),
        ...apiErrors(
          { access: 'public', unauthorized: 'Invalid API key' },
          {
            400: ['email is required', 'contestId is required', 'Invalid email'],
            404: ['Entry not found', 'Contest not found'],
          },
        ),
      },
    }),
    requireKey('public', { unauthorized: Errors.invalidKey, keyless: 'entryToken' }),
    queryParams(lookupQuery),
    async (c) => {
      const entryId = c.req.param('entryId');
      const team = c.var.auth.team;
      if (c.var.auth.keyless) {
        // an entry token without a key: the token's own entry only
        const token = entryTokenOf(c.req.header('authorization'))!;
        return ok(c, await listBonusActionsForEntry(c.var.db(), team, { entryId }, await sha256Hex(token)));
      }
      if (entryId !== 'lookup') return ok(c, await listBonusActionsForEntry(c.var.db(), team, { entryId }));
      const q = c.req.valid('query');
      const rawEmail = q.email?.trim();
      const contestId = q.contestId?.trim();
      if (!rawEmail) throw Errors.validation('email is required');
      if (!contestId) throw Errors.validation('contestId is required');
      const email = v.safeParse(emailSchema, rawEmail);
      if (!email.success) throw Errors.invalidEmail();
      return ok(c, await listBonusActionsForEntry(c.var.db(), team, { email: email.output, contestId }));
    },
  );

  r.post(
    '/api/v1/entries/:entryId/bonus-actions/:bonusActionId/complete',
    describeRoute({
      operationId: 'completeBonusAction',
      tags,
      summary: 'Complete a bonus action (points once; again: alreadyCompleted)',
      security: security.keyOrEntryToken,
      responses: {
        200: okJson(
          'Completed now (points added), or completed before (alreadyCompleted, nothing added)',
          BonusCompletion,
        ),
        ...apiErrors(
          { access: 'public', unauthorized: 'Invalid API key', body: true },
          {
            400: 'Invalid input: `Missing entryId or bonusActionId`, or a message naming the field (`proof must be at most 2000 characters`...)',
            401: ['Missing or invalid entry token'],
            403: [
              'Entry is disqualified',
              'This contest needs the entry token to complete bonus actions',
              'Confirm your email before completing bonus actions',
            ],
            404: ['Entry or bonus action not found'],
            409: ['Contest is not active'],
          },
        ),
      },
    }),
    requireKey('public', { unauthorized: Errors.invalidKey, keyless: 'entryToken' }),
    requireCompleteIds,
    jsonBody(completeBody),
    async (c) => {
      const body = c.req.valid('json');
      const token = entryTokenOf(c.req.header('authorization'));
      const result = await completeBonusAction(
        c.var.db(),
        c.var.auth.team,
        c.req.param('entryId').trim(),
        c.req.param('bonusActionId').trim(),
        { proof: body.proof || null, answer: body.answer || null },
        c.var.deps.clock.now(),
        {
          verifyManual: c.var.auth.type === 'private',
          // a visitor's own entry token (the sign-up widget sends it): it must be this entry's
          entryToken: { hash: token ? await sha256Hex(token) : null, publicKey: c.var.auth.type === 'public' },
        },
      );
      return ok(c, result);
    },
  );
  r.post(
    '/api/v1/entries/:entryId/bonus-actions/:bonusActionId/verify',
    describeRoute({
      operationId: 'verifyBonusCompletion',
      tags,
      summary:
        'Approve or reject a pending (manual) completion: verified adds the points once; rejected may be completed again',
      security: security.privateKey,
      responses: {
        200: okJson('The decision applied', verifyResultSchema),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: true, 404: ['Entry or bonus action not found'], 409: ['No pending completion'] },
        ),
      },
    }),
    requireKey('private'),
    jsonBody(verifyBody),
    async (c) =>
      ok(
        c,
        await verifyBonusCompletion(
          c.var.db(),
          c.var.auth.team,
          c.req.param('entryId').trim(),
          c.req.param('bonusActionId').trim(),
          c.req.valid('json').approve!,
          c.var.deps.clock.now(),
        ),
      ),
  );

  // empty path segments never match `:param`; these make the reference's 400 reachable
  for (const path of [
    '/api/v1/entries//bonus-actions/:bonusActionId/complete',
    '/api/v1/entries/:entryId/bonus-actions//complete',
    '/api/v1/entries//bonus-actions//complete',
  ]) {
    r.post(path, describeRoute({ hide: true }), publicKey, () => {
      throw Errors.missingEntryOrBonusActionId();
    });
  }
  return r;
}
