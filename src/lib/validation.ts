/**
 * Validation that is not about HTTP: valibot issues as API errors (the message rules below),
 * strings Postgres can store, JSON depth, and the shared email and string schemas. The HTTP
 * layer (src/http/validate.ts) reads bodies and queries with these; domain schemas use them too.
 *
 * Error messages: a schema's own message wins (`v.email('Invalid email')`); otherwise a
 * missing field answers `<field> is required` and a wrong one `Invalid <field>`; `fallback`
 * answers one fixed message for every non-custom failure.
 */
import * as v from 'valibot';
import { type ApiError, Errors } from '../errors.js';
import { normalizeEmail } from './email.js';

/**
 * How a schema shows in the OpenAPI document when its own JSON Schema would mislead: a query
 * integer read as a string, a custom check that reads as "anything". The document generator
 * (src/http/validate.ts) asks this map for every schema node it converts.
 */
export const docOverrides = new WeakMap<object, Record<string, unknown>>();

/** The schema, shown in the OpenAPI document as `json` (the base of a pipe, where the converter looks). */
export function documentedAs<S extends object>(schema: S, json: Record<string, unknown>): S {
  docOverrides.set(schema, json);
  return schema;
}

export interface Issue {
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
      const safe = /^[A-Za-z_$][\w$-]{0,63}$/.test(k)
        ? k
        : JSON.stringify(k.slice(0, 40)).replace(/[^\x20-\x7e]/g, '?');
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
        if (why)
          throw Errors.validation(`${pathLabel(path)} ${why.replace('must not contain', 'must not have keys with')}`);
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
