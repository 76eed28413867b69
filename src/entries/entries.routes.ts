import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import {
  createEntrySchema,
  type EntryFilters,
  getEntry,
  listEntries,
  SEARCH_MAX,
  setDisqualified,
  updateEntry,
  updateEntrySchema,
} from './entries.js';
import { createEntry } from './create.js';
import { adjustPoints, MAX_POINTS_ADJUSTMENT, REASON_MAX } from './points.js';
import { riskInputEntries } from '../sql/risk.js';
import { reviewDecisionSchema, reviewEntry } from './review.js';
import { requireKey } from '../http/auth.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok, pagination } from '../http/envelope.js';
import { Errors } from '../errors.js';
import { idempotencyKeyOf, jsonBody, pageParams, pageQuerySchema, queryParams } from '../http/validate.js';
import { requireContestId } from '../http/validate.js';
import { apiErrors, headerParam, jsonRequest, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import {
  CreateEntryBody,
  CreatedEntry,
  Disqualification,
  UpdateEntryBody,
  Entry,
  EntryListItem,
  PointsAdjustment,
  UpdatedEntry,
} from './entries.schema.js';
import { ipHashSalt } from '../db/secrets.js';

/** The entries list's filters; the CSV export takes the same (src/entries/data-out.routes.ts). */
export const entryFilterQuery = {
  search: v.optional(
    v.pipe(
      v.string('Invalid search'),
      v.maxLength(SEARCH_MAX, `search must be at most ${SEARCH_MAX} characters`),
      v.description(
        'case-insensitive substring of the email or the name, or a referral code exactly (a masked public key: a whole email or a referral code)',
      ),
    ),
  ),
  risk: v.optional(
    v.pipe(
      v.picklist(['review', 'high'], 'risk must be review or high'),
      v.description('entries of exactly this risk level'),
    ),
  ),
  confirmed: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'confirmed must be true or false'),
      v.description('entries whose email is (or is not) confirmed'),
    ),
  ),
  disqualified: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'disqualified must be true or false'),
      v.description('disqualified entries, or the others'),
    ),
  ),
  referred: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'referred must be true or false'),
      v.description('entries that joined with a referral code, or the others'),
    ),
  ),
  referredBy: v.optional(
    v.pipe(
      v.string(),
      v.uuid('referredBy must be an entry id'),
      v.description("entries that joined with this entry's referral code"),
    ),
  ),
  review: v.optional(
    v.pipe(
      v.picklist(['pending'], 'review must be pending'),
      v.description('pending: entries with risk signals (level review or high) not reviewed yet: the review queue'),
    ),
  ),
};

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

const listQuery = v.object({
  ...pageQuerySchema,
  ...entryFilterQuery,
  sort: v.optional(
    v.pipe(
      v.picklist(['newest', 'oldest', 'points'], 'sort must be newest, oldest or points'),
      v.description('newest first (default), oldest first, or most points first'),
    ),
  ),
});

const createBody = v.object({ ...createEntrySchema.entries, ...riskInputEntries });

const disqualifyBody = v.object({
  disqualify: v.optional(v.boolean('disqualify must be a boolean')),
  reason: v.optional(
    v.pipe(
      v.string('reason must be a string'),
      v.trim(),
      v.maxLength(REASON_MAX, `reason must be at most ${REASON_MAX} characters`),
      v.description(
        "why (kept in the entry's points history as a row of 0 points and sent in the event's reason); at most 500 characters",
      ),
    ),
  ),
});

const pointsMessage = `points must be a non-zero integer between -${MAX_POINTS_ADJUSTMENT} and ${MAX_POINTS_ADJUSTMENT}`;
const adjustBody = v.pipe(
  v.object({
    points: v.optional(
      v.nullable(
        v.pipe(
          v.number(pointsMessage),
          v.integer(pointsMessage),
          v.minValue(-MAX_POINTS_ADJUSTMENT, pointsMessage),
          v.maxValue(MAX_POINTS_ADJUSTMENT, pointsMessage),
          v.notValue(0, pointsMessage),
        ),
      ),
    ),
    reason: v.optional(
      v.nullable(
        v.pipe(
          v.string('reason must be a string'),
          v.trim(),
          v.maxLength(REASON_MAX, `reason must be at most ${REASON_MAX} characters`),
        ),
      ),
    ),
  }),
  v.check((b) => b.points != null && !!b.reason, 'Missing points or reason'),
);

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
    queryParams(listQuery),
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
    jsonBody(createBody),
    describeRoute({ requestBody: jsonRequest(CreateEntryBody) }),
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
    jsonBody(updateEntrySchema),
    describeRoute({ requestBody: jsonRequest(UpdateEntryBody) }),
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
