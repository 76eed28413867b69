/**
 * Request validation with valibot, through hono-openapi so that the OpenAPI document is
 * generated from the very schemas the routes validate with.
 *
 * Error messages: a schema's own message wins (`v.email('Invalid email')`); otherwise a
 * missing field answers `<field> is required` and a wrong one `Invalid <field>`. A route may
 * give `fallback` to answer one fixed message for every non-custom failure (the reference's
 * `Invalid request body` on purchases).
 *
 * Bodies and query strings are read here, before any schema: see readJsonBody() (415 for a body
 * that is not JSON, `{}` for no body; parseJsonObject: at most 32 levels deep, no NUL and no lone
 * surrogates in any string).
 */
import type { Context, MiddlewareHandler, ValidationTargets } from 'hono';
import { validator } from 'hono-openapi';
import * as v from 'valibot';
import { Errors } from '../errors.js';
import {
  assertStorableStrings,
  docOverrides,
  documentedAs,
  type Issue,
  issueToError,
  parseJsonObject,
} from '../lib/validation.js';

export { emailOf, emailSchema, trimmedString } from '../lib/validation.js';

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const mediaType = (header: string | undefined) => (header ?? '').split(';')[0]!.trim();

/**
 * Reads the JSON body once. No bytes at all (whatever the content type): `{}`. Bytes with a
 * content type that is not JSON, or with none: 415 `Content-Type must be application/json`.
 * Then parseJsonObject: one linear pass each for UTF-8, depth (32 levels), parse and strings.
 * The body's size was judged before (app.ts: the route's declared limit, 64 KiB by default).
 */
async function readJsonBody(c: Context): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength === 0) return {};
  if (!JSON_TYPE.test(mediaType(c.req.header('content-type')))) throw Errors.unsupportedMediaType();
  return parseJsonObject(bytes);
}

/** The query as hono's validator gives it (a repeated name: an array), every value checked as above. */
function readQuery(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, values] of Object.entries(c.req.queries())) {
    out[k] = values.length === 1 ? values[0]! : values;
  }
  assertStorableStrings(out);
  return out;
}

type Opts = { fallback?: string };

const docOptions = {
  options: {
    overrideSchema: ({ valibotSchema }: { valibotSchema: object }) => docOverrides.get(valibotSchema),
  },
};

function validate<S extends v.GenericSchema, T extends keyof ValidationTargets>(
  target: T,
  schema: S,
  read: (c: Context) => unknown,
  opts: Opts = {},
) {
  // hono-openapi's validator carries the schema into the OpenAPI document; the checks run here
  const doc = validator(target, schema, undefined, docOptions as never);
  const mw: MiddlewareHandler = async (c, next) => {
    const result = v.safeParse(schema, await read(c));
    if (!result.success) throw issueToError(result.issues as readonly Issue[], opts.fallback);
    c.req.addValidatedData(target, result.output as never);
    await next();
  };
  return Object.assign(mw, doc) as unknown as typeof doc;
}

/** JSON body validated against `schema`; unknown fields are dropped (valibot object). */
export function jsonBody<S extends v.GenericSchema>(schema: S, opts: Opts = {}) {
  return validate('json', schema, readJsonBody, opts);
}

export function queryParams<S extends v.GenericSchema>(schema: S, opts: Opts = {}) {
  return validate('query', schema, readQuery, opts);
}

// ---------- query schemas ----------

const intString = v.pipe(v.string(), v.regex(/^-?\d+$/));

// query values arrive as strings and pageParams() parses them (keeping its messages); the
// document shows what a caller sends: integers (the override replaces the base string schema of
// each pipe, which is where the JSON Schema converter looks)
/** A query parameter read as a string (parsed by pageParams) and documented as an integer. */
export const queryInteger = (description: string) => {
  return v.pipe(documentedAs(v.string(), { type: 'integer', minimum: 1 }), v.description(description));
};
const pageString = queryInteger('1-based page number, default 1');
const limitString = queryInteger('items per page');

/** page/limit as query strings, documented as integers; ranges are checked by pageParams(). */
export const pageQuerySchema = {
  page: v.optional(pageString),
  limit: v.optional(limitString),
};
/** The page/limit query of a paged list, as one object schema. */
export const pageQueryParams = v.object(pageQuerySchema);

/** Parses page/limit query strings: integers only, page >= 1, limit 1..maxLimit. */
export function pageParams(
  q: { page?: string; limit?: string },
  opts: { defaultLimit?: number; maxLimit?: number } = {},
): { page: number; limit: number; offset: number } {
  const maxLimit = opts.maxLimit ?? 100;
  const page = q.page === undefined ? 1 : v.is(intString, q.page) ? Number(q.page) : Number.NaN;
  if (!Number.isSafeInteger(page) || page < 1) throw Errors.validation('page must be a positive integer');
  const limit =
    q.limit === undefined ? (opts.defaultLimit ?? 20) : v.is(intString, q.limit) ? Number(q.limit) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) {
    throw Errors.validation(`limit must be between 1 and ${maxLimit}`);
  }
  return { page, limit, offset: (page - 1) * limit };
}

/** `:contestId` that is empty or blank: the reference's `400 Missing contestId`. */
export function requireContestId(raw: string | undefined): string {
  const id = raw?.trim();
  if (!id) throw Errors.missingContestId();
  return id;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,200}$/;

/** The request's `Idempotency-Key` (1-200 printable characters), null without one; else 400 Invalid Idempotency-Key. */
export function idempotencyKeyOf(c: { req: { header(name: string): string | undefined } }): string | null {
  const key = c.req.header('idempotency-key') ?? null;
  if (key !== null && !IDEMPOTENCY_KEY_RE.test(key)) throw Errors.validation('Invalid Idempotency-Key');
  return key;
}
