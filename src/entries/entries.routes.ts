import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type * as v from 'valibot';
import { ipHashSalt } from '../db/secrets.js';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { apiErrors, headerParam, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { idempotencyKeyOf, jsonBody, pageParams, queryParams, requireContestId } from '../http/validate.js';
import { createEntry } from './create.js';
import { type EntryFilters, getEntry, listEntries, setDisqualified, updateEntry } from './entries.js';
import {
  adjustBody,
  CreatedEntry,
  CreateEntryBody,
  Disqualification,
  disqualifyBody,
  Entry,
  EntryListItem,
  type entryFilterQuery,
  entryListQuery,
  PointsAdjustment,
  UpdatedEntry,
  UpdateEntryBody,
} from './entries.schema.js';
import { adjustPoints } from './points.js';
import { reviewDecisionSchema, reviewEntry } from './review.js';

/** The filters' query values as listEntries and exportEntries take them. */
export function entryFilters(q: v.InferOutput<v.ObjectSchema<typeof entryFilterQuery, undefined>>): EntryFilters {
  const flag = (x: 'true' | 'false' | undefined) => (x === undefined ? null : x === 'true');
  return {
    search: q.search,
    risk: q.risk,
    confirmed: flag(q.confirmed),
    disqualified: flag(q.disqualified),
    referred: flag(q.referred),
    referredBy: q.referredBy ?? null,
    reviewPending: q.review === 'pending',
  };
}

const emailCtx = (c: AppContext) => ({
  now: c.var.deps.clock.now(),
  random: c.var.deps.random,
  publicUrl: c.var.deps.config.publicUrl,
});

export function entryRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Entries'];
  const publicKey = requireKey('public');
  const privateKey = requireKey('private');

  r.get(
    '/api/v1/contests/:contestId/entries',
    describeRoute({
      operationId: 'listEntries',
      tags,
      summary: 'List entries of a contest (page, limit, search on email or name, filters, sort)',
      security: security.publicKey,
      responses: {
        200: pageJson('Entries, newest first', EntryListItem),
        ...apiErrors({ access: 'public' }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    publicKey,
    queryParams(entryListQuery),
    describeRoute({ parameters: pageQuery() }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const q = c.req.valid('query');
      const { page, limit, offset } = pageParams(q);
      const { items, total } = await listEntries(c.var.db(), c.var.auth.team, contestId, {
        limit,
        offset,
        ...entryFilters(q),
        sort: q.sort ?? 'newest',
      });
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );
  r.get('/api/v1/contests//entries', describeRoute({ hide: true }), publicKey, () => {
    throw Errors.missingContestId();
  });

  r.get(
    '/api/v1/entries/:entryId',
    describeRoute({
      operationId: 'getEntry',
      tags,
      summary: 'Get an entry with its detail fields',
      security: security.publicKey,
      responses: { 200: okJson('The entry', Entry), ...apiErrors({ access: 'public' }, { 404: ['Entry not found'] }) },
    }),
    publicKey,
    async (c) => ok(c, await getEntry(c.var.db(), c.var.auth.team, c.req.param('entryId'))),
  );

  r.post(
    '/api/v1/contests/:contestId/entries',
    describeRoute({
      operationId: 'createEntry',
      tags,
      summary: 'Create an entry (201), or find the existing one with that email (200)',
      security: security.privateKey,
      responses: {
        201: okJson('The entry was created', CreatedEntry),
        200: okJson(
          'An entry with this email (or phone, for phone-only entries) already exists: it is answered, unchanged',
          CreatedEntry,
        ),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: 'Invalid input: `Email or phone is required`, `Invalid email`, `Invalid phone`, `Missing contestId`, or a message naming the field',
            404: ['Contest not found'],
            409: ['Contest is not active'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(CreateEntryBody),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const body = c.req.valid('json');
      const ctx = { ...emailCtx(c), ipHashSalt: () => ipHashSalt(c.var.deps) };
      const result = await createEntry(
        c.var.db(),
        ctx,
        { id: contestId, team: c.var.auth.team },
        {
          ipAddress: body.ipAddress,
          userAgent: body.userAgent,
          email: body.email ?? undefined,
          phone: body.phone ?? undefined,
          name: body.name ?? undefined,
          referralCode: body.referralCode ?? undefined,
          customFieldData: body.customFieldData ?? undefined,
        },
      );
      if (result.emailQueued) triggerEmailDelivery(c);
      return ok(c, result.data, result.status);
    },
  );
  r.post('/api/v1/contests//entries', describeRoute({ hide: true }), privateKey, () => {
    throw Errors.missingContestId();
  });

  r.put(
    '/api/v1/entries/:entryId',
    describeRoute({
      operationId: 'updateEntry',
      tags,
      summary: 'Update name, email, phone or customFieldData',
      security: security.privateKey,
      responses: {
        200: okJson('The updated entry', UpdatedEntry),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: 'Invalid input: `At least one of name, email, phone or customFieldData is required`, `Email or phone is required`, or a message naming the field',
            404: ['Entry not found'],
            409: ['Email already used by another entry', 'Phone already used by another entry'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(UpdateEntryBody),
    async (c) => {
      const result = await updateEntry(
        c.var.db(),
        emailCtx(c),
        c.var.auth.team,
        c.req.param('entryId'),
        c.req.valid('json'),
      );
      if (result.emailQueued) triggerEmailDelivery(c);
      return ok(c, result.data);
    },
  );

  r.post(
    '/api/v1/entries/:entryId/disqualify',
    describeRoute({
      operationId: 'disqualifyEntry',
      tags,
      summary: 'Disqualify (true), re-qualify (false) or toggle (omitted)',
      security: security.privateKey,
      responses: {
        200: okJson("The entry's new state", Disqualification),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: ['disqualify must be a boolean', 'reason must be a string', 'reason must be at most 500 characters'],
            404: ['Entry not found'],
          },
        ),
      },
    }),
    privateKey,
    jsonBody(disqualifyBody),
    async (c) => {
      const body = c.req.valid('json');
      const result = await setDisqualified(
        c.var.db(),
        c.var.auth.team,
        c.req.param('entryId'),
        body.disqualify,
        c.var.deps.clock.now(),
        body.reason || null,
      );
      // a disqualified entry leaves the leaderboard now, not when a cached copy expires
      await c.var.deps.publicCache?.forget(result.contestId);
      return ok(c, result.answer);
    },
  );

  r.post(
    '/api/v1/entries/:entryId/review',
    describeRoute({
      operationId: 'reviewEntry',
      tags,
      summary:
        'Review a flagged entry: approve releases held referral points; reject disqualifies it and takes back its referral points',
      security: security.privateKey,
      responses: {
        200: okJson('The entry after the review', Entry),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: true, 404: ['Entry not found'], 409: ['Entry already reviewed'] },
        ),
      },
    }),
    privateKey,
    jsonBody(reviewDecisionSchema),
    async (c) =>
      ok(
        c,
        await reviewEntry(
          c.var.db(),
          c.var.auth.team,
          c.req.param('entryId'),
          c.req.valid('json').decision,
          c.var.deps.clock.now(),
        ),
      ),
  );

  r.post(
    '/api/v1/entries/:entryId/points',
    describeRoute({
      operationId: 'adjustEntryPoints',
      tags,
      summary: 'Adjust points (never below 0); adjustment = change applied',
      description:
        'With an Idempotency-Key header, a retry with the same key for the same entry adds nothing and answers the first answer.',
      security: security.privateKey,
      parameters: [
        headerParam('Idempotency-Key', 'any 1-200 printable characters: a retry with it answers the first answer'),
      ],
      responses: {
        200: okJson('The adjustment made', PointsAdjustment),
        ...apiErrors(
          { access: 'private', body: true, forbidden: 'Private key required' },
          {
            400: 'Invalid input: `Missing points or reason`, `Invalid Idempotency-Key`, or a message naming the field',
            404: ['Entry not found'],
          },
        ),
      },
    }),
    requireKey('private', { forbidden: Errors.privateKeyRequiredShort }),
    jsonBody(adjustBody),
    async (c) => {
      const body = c.req.valid('json');
      const result = await adjustPoints(
        c.var.db(),
        c.var.auth.team,
        c.req.param('entryId'),
        body.points!,
        body.reason!,
        c.var.deps.clock.now(),
        idempotencyKeyOf(c),
      );
      return ok(c, result);
    },
  );
  return r;
}
