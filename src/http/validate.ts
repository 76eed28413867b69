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
 * that is not JSON, `{}` for no body) and assertStorableStrings() (no NUL, no lone surrogates in
 * any string, at any depth).
 */
import type { Context, MiddlewareHandler, ValidationTargets } from 'hono';
import { validator } from 'hono-openapi';
import * as v from 'valibot';
import { normalizeEmail } from '../lib/email.js';
import { ApiError, Errors } from '../errors.js';

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

/** A path for messages: `name`, `tiers[0].name`; odd or long keys are shown escaped and cut. */
function pathLabel(path: readonly (string | number)[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else {
      const safe = /^[A-Za-z_$][\w$-]{0,63}$/.test(k) ? k : JSON.stringify(k.slice(0, 40)).replace(/[^\x20-\x7e]/g, '?');
      out += out ? `.${safe}` : safe;
    }
  }
  return out || 'body';
}

const NUL = '\u0000';
/** a UTF-16 surrogate half without its partner: no UTF-8 encoding, Postgres cannot store it */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored (Postgres text and jsonb hold neither NUL nor lone surrogates), or null. */
export function badStringReason(s: string): string | null {
  if (s.includes(NUL)) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(s)) return 'must not contain lone surrogate characters (invalid Unicode)';
  return null;
}

/**
 * Every string of a parsed JSON value (keys included), walked without recursion (a body may
 * nest thousands of levels): the first one Postgres could not store answers 400 naming its path,
 * e.g. `name must not contain NUL characters`.
 */
export function assertStorableStrings(value: unknown, base: readonly (string | number)[] = []): void {
  const stack: { value: unknown; path: readonly (string | number)[] }[] = [{ value, path: base }];
  while (stack.length) {
    const { value: x, path } = stack.pop()!;
    if (typeof x === 'string') {
      const why = badStringReason(x);
      if (why) throw Errors.validation(`${pathLabel(path)} ${why}`);
    } else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push({ value: x[i], path: [...path, i] });
    } else if (x !== null && typeof x === 'object') {
      const keys = Object.keys(x);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const why = badStringReason(k);
        // the key itself cannot be shown: name the object that holds it
        if (why) throw Errors.validation(`${pathLabel(path)} ${why.replace('must not contain', 'must not have keys with')}`);
        stack.push({ value: (x as Record<string, unknown>)[k], path: [...path, k] });
      }
    }
  }
}

/** How many levels of objects/arrays a JSON value nests (a scalar: 0), counted without recursion. */
export function jsonDepth(value: unknown, stopAfter = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > stopAfter) return max;
    for (const child of Array.isArray(x) ? x : Object.values(x)) stack.push([child, depth]);
  }
  return max;
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const mediaType = (header: string | undefined) => (header ?? '').split(';')[0]!.trim();

/**
 * Reads the JSON body once. No bytes at all (whatever the content type): `{}`. Bytes with a
 * content type that is not JSON, or with none: 415 `Content-Type must be application/json`.
 * Unparseable, or not an object: 400 `Invalid request body`. A string that Postgres cannot store
 * (NUL, lone surrogate) anywhere in it: 400 naming its path.
 */
async function readJsonBody(c: Context): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength === 0) return {};
  if (!JSON_TYPE.test(mediaType(c.req.header('content-type')))) throw Errors.unsupportedMediaType();
  const text = new TextDecoder().decode(bytes);
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
  assertStorableStrings(value);
  return value as Record<string, unknown>;
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

/** How a schema shows in the OpenAPI document when its JSON Schema would mislead (query integers). */
const docOverrides = new WeakMap<object, Record<string, unknown>>();
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

// ---------- shared schemas ----------

export const trimmedString = (field: string, max = 500) =>
  v.pipe(v.string(`Invalid ${field}`), v.trim(), v.maxLength(max, `${field} must be at most ${max} characters`));

/**
 * An email in its one normal form (src/lib/email.ts: trimmed, NFC, lower-cased; atext local
 * part, IDN domains in Unicode or punycode). Every schema that takes an email uses this.
 */
export const emailOf = (message = 'Invalid email') =>
  v.pipe(
    v.string(message),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const email = normalizeEmail(dataset.value);
      if (email === null) {
        addIssue({ message });
        return NEVER;
      }
      return email;
    }),
    v.description('email address (stored trimmed and lower-cased; internationalised domains accepted)'),
  );

export const emailSchema = emailOf();

const intString = v.pipe(v.string(), v.regex(/^-?\d+$/));

// query values arrive as strings and pageParams() parses them (keeping its messages); the
// document shows what a caller sends: integers (the override replaces the base string schema of
// each pipe, which is where the JSON Schema converter looks)
/** A query parameter read as a string (parsed by pageParams) and documented as an integer. */
export const queryInteger = (description: string) => {
  const base = v.string();
  docOverrides.set(base, { type: 'integer', minimum: 1 });
  return v.pipe(base, v.description(description));
};
const pageString = queryInteger('1-based page number, default 1');
const limitString = queryInteger('items per page');

/** page/limit as query strings, documented as integers; ranges are checked by pageParams(). */
export const pageQuerySchema = {
  page: v.optional(pageString),
  limit: v.optional(limitString),
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
