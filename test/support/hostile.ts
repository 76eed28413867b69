/**
 * Hostile strings for path parameters, query strings and body fields (test/hostile-strings.test.ts
 * and its workerd twin): what Postgres refuses to store (U+0000, lone surrogates), bytes that are
 * not UTF-8, and their percent-encoded forms as a client sends them.
 */

/** Path and query values, percent-encoded as they travel. */
export const HOSTILE_PATH_VALUES = [
  '%00',
  'a%00b',
  '%ED%A0%80', // a lone high surrogate's UTF-8 bytes (not valid UTF-8)
  '%ED%B0%80', // a lone low surrogate's
  '%FF%FE',
  '%C0%80', // an overlong NUL
  '%00%00%00%00-0000-0000-0000-000000000000',
];

/** Query parameter names the routes read. */
export const HOSTILE_QUERY_NAMES = [
  'page',
  'limit',
  'search',
  'email',
  'contestId',
  'status',
  'slug',
  'from',
  'to',
  'interval',
  'ref',
  'via',
  'code',
  'token',
  'toolType',
  'sort',
  'format',
];

/** JSON string values (raw JSON text) Postgres cannot store. */
const UNSTORABLE_JSON: [string, string][] = [
  ['U+0000', '"a\\u0000b"'],
  ['lone high surrogate', '"x\\ud800y"'],
  ['lone low surrogate', '"\\udc00"'],
];

/**
 * The body `valid` with each string field in turn replaced by each unstorable string: [what, raw JSON].
 */
export function hostileBodies(valid: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const key of Object.keys(valid)) {
    if (typeof valid[key] !== 'string') continue;
    for (const [what, raw] of UNSTORABLE_JSON) {
      const marker = '\u0001marker\u0001';
      out.push([`${key} = ${what}`, JSON.stringify({ ...valid, [key]: marker }).replace(JSON.stringify(marker), raw)]);
    }
  }
  return out;
}
