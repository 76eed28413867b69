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
 * Every string of a parsed JSON value (keys included), in one pass without recursion: the first
 * one Postgres could not store answers 400 naming its path, e.g. `name must not contain NUL
 * characters`. Linear in the value's size: a node knows its parent, and a path is spelled out
 * only for the error (copying it at every level made a deep body cost the square of its depth).
 */
export function assertStorableStrings(value: unknown, base: readonly (string | number)[] = []): void {
  type Node = { value: unknown; key: string | number | null; parent: Node | null };
  const pathOf = (n: Node): (string | number)[] => {
    const out: (string | number)[] = [];
    for (let x: Node | null = n; x && x.key !== null; x = x.parent) out.push(x.key);
    return [...base, ...out.reverse()];
  };
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const x = node.value;
    if (typeof x === 'string') {
      const why = badStringReason(x);
      if (why) throw Errors.validation(`${pathLabel(pathOf(node))} ${why}`);
    } else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push({ value: x[i], key: i, parent: node });
    } else if (x !== null && typeof x === 'object') {
      const keys = Object.keys(x);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const why = badStringReason(k);
        // the key itself cannot be shown: name the object that holds it
        if (why)
          throw Errors.validation(
            `${pathLabel(pathOf(node))} ${why.replace('must not contain', 'must not have keys with')}`,
          );
        stack.push({ value: (x as Record<string, unknown>)[k], key: k, parent: node });
      }
    }
  }
}

/** How many levels of objects and arrays a request body may nest (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests deeper than `limit` levels, read in one pass over its characters
 * before it is parsed (brackets inside strings do not count). Text that is not JSON may pass:
 * the parser refuses it after.
 */
export function jsonTextTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body as the JSON object it must be, each check linear in its size: bytes that are
 * not UTF-8, text that is not JSON, or a value that is not an object: 400 `Invalid request body`;
 * nested deeper than MAX_JSON_DEPTH: 400 `JSON nested too deeply` (before it is parsed); a string
 * Postgres cannot store anywhere in it: 400 naming its path. Empty text (or only white space): `{}`.
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  // bytes that are not UTF-8 are not JSON (RFC 8259): refused, never stored as U+FFFD
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw Errors.invalidBody();
  }
  if (text.trim() === '') return {};
  if (jsonTextTooDeep(text)) throw Errors.jsonTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw Errors.invalidBody();
  }
  // every body of this API is a JSON object: arrays, strings, numbers and null are refused
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw Errors.invalidBody();
  assertStorableStrings(value);
  return value as Record<string, unknown>;
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
