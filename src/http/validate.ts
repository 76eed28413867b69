/**
 * Request validation with valibot, through hono-openapi so that the OpenAPI document is
 * generated from the very schemas the routes validate with.
 *
 * Error messages: a schema's own message wins (`v.email('Invalid email')`); otherwise a
 * missing field answers `<field> is required` and a wrong one `Invalid <field>`. A route may
 * give `fallback` to answer one fixed message for every non-custom failure (the reference's
 * `Invalid request body` on purchases).
 */
import type { MiddlewareHandler, ValidationTargets } from 'hono';
import { validator } from 'hono-openapi';
import * as v from 'valibot';
import { ApiError, Errors } from './errors.js';

interface Issue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
}

const isDefaultMessage = (m: string) => /^Invalid \w+: (Expected|Received)/.test(m);

export function issueToError(issues: readonly Issue[], fallback?: string): ApiError {
  const issue = issues[0];
  if (!issue) return Errors.invalidBody();
  const path = (issue.path ?? [])
    .map((p) => (typeof p === 'object' && p !== null && 'key' in p ? p.key : p))
    .map(String)
    .join('.');
  if (!isDefaultMessage(issue.message)) return Errors.validation(issue.message);
  if (fallback) return Errors.validation(fallback);
  if (!path) return Errors.invalidBody();
  if (/received undefined$/.test(issue.message)) return Errors.validation(`${path} is required`);
  return Errors.validation(`Invalid ${path}`);
}

/** Reads the JSON body once: empty = {}, unparseable or not an object = 400 Invalid request body. */
const parseJsonBody: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type') ?? '';
  if (/^application\/([\w.-]+\+)?json/i.test(type.trim())) {
    const text = await c.req.text();
    let value: unknown = {};
    if (text.trim() !== '') {
      try {
        value = JSON.parse(text);
      } catch {
        throw Errors.invalidBody();
      }
    }
    // every body of this API is a JSON object: arrays, strings, numbers and null are refused
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw Errors.invalidBody();
    c.req.bodyCache.json = Promise.resolve(value);
  }
  await next();
};

type Opts = { fallback?: string };

function validate<S extends v.GenericSchema, T extends keyof ValidationTargets>(target: T, schema: S, opts: Opts = {}) {
  return validator(target, schema, (result) => {
    if (!result.success) throw issueToError(result.error as readonly Issue[], opts.fallback);
  });
}

/** JSON body validated against `schema`; unknown fields are dropped (valibot object). */
export function jsonBody<S extends v.GenericSchema>(schema: S, opts: Opts = {}) {
  const check = validate('json', schema, opts);
  const mw: MiddlewareHandler = async (c, next) => parseJsonBody(c, () => check(c, next) as Promise<void>);
  // keep hono-openapi's metadata so the body shows in the OpenAPI document
  return Object.assign(mw, check) as unknown as typeof check;
}

export function queryParams<S extends v.GenericSchema>(schema: S, opts: Opts = {}) {
  return validate('query', schema, opts);
}

// ---------- shared schemas ----------

export const trimmedString = (field: string, max = 500) =>
  v.pipe(v.string(`Invalid ${field}`), v.trim(), v.maxLength(max, `${field} must be at most ${max} characters`));

export const emailSchema = v.pipe(
  v.string('Invalid email'),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254, 'Invalid email'),
  v.email('Invalid email'),
);

const intString = v.pipe(v.string(), v.regex(/^-?\d+$/));

/** page/limit as query strings, documented; ranges are checked by pageParams(). */
export const pageQuerySchema = {
  page: v.optional(v.pipe(v.string(), v.description('1-based page number, default 1'))),
  limit: v.optional(v.pipe(v.string(), v.description('items per page'))),
};

/** Parses page/limit query strings: integers only, page >= 1, limit 1..maxLimit. */
export function pageParams(
  q: { page?: string; limit?: string },
  opts: { defaultLimit?: number; maxLimit?: number } = {},
): { page: number; limit: number; offset: number } {
  const maxLimit = opts.maxLimit ?? 100;
  const page = q.page === undefined ? 1 : v.is(intString, q.page) ? Number(q.page) : Number.NaN;
  if (!Number.isSafeInteger(page) || page < 1) throw Errors.validation('page must be a positive integer');
  const limit = q.limit === undefined ? (opts.defaultLimit ?? 20) : v.is(intString, q.limit) ? Number(q.limit) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) {
    throw Errors.validation(`limit must be between 1 and ${maxLimit}`);
  }
  return { page, limit, offset: (page - 1) * limit };
}
