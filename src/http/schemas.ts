/**
 * Building blocks of the OpenAPI document: the envelopes, the error answers and the security
 * requirements. Every response schema of the document is a valibot schema turned into JSON
 * Schema by hono-openapi's resolver(), like the request schemas the routes validate with.
 *
 * Response objects are strict (no field beyond those listed), so the contract test
 * (test/support/contract.ts) also catches a field the document forgot.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { resolver } from 'hono-openapi';
import * as v from 'valibot';

export type Schema = v.GenericSchema;

// ---------------------------------------------------------------- scalars

export const uuid = v.pipe(v.string(), v.uuid());

/** What a DELETE answers: the id, and that it is gone. */
export const Deleted = v.strictObject({ id: uuid, deleted: v.literal(true) });
export const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 date-time (UTC)'));
export const int = v.pipe(v.number(), v.integer());
export const nonNegInt = v.pipe(v.number(), v.integer(), v.minValue(0));
export const nullable = <S extends Schema>(s: S) => v.nullable(s);

// ---------------------------------------------------------------- envelopes

export const ErrorEnvelope = v.pipe(
  v.strictObject({
    success: v.literal(false),
    error: v.pipe(v.string(), v.description('the exact message; clients may match on it')),
  }),
  v.title('Error'),
);

export const Pagination = v.strictObject({
  page: v.pipe(int, v.minValue(1)),
  limit: v.pipe(int, v.minValue(1)),
  total: nonNegInt,
  totalPages: nonNegInt,
});

/** `{ success: true, data, ...extra }` */
export const okEnvelope = <S extends Schema>(data: S, extra: Record<string, Schema> = {}) =>
  v.strictObject({ success: v.literal(true), data, ...extra });

/** `{ success: true, data: [item], pagination }` */
export const pageEnvelope = <S extends Schema>(item: S) => okEnvelope(v.array(item), { pagination: Pagination });

// ---------------------------------------------------------------- responses

type ResponseObject = {
  description: string;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  content?: Record<string, { schema: ReturnType<typeof resolver> }>;
};

export const json = (description: string, schema: Schema): ResponseObject => ({
  description,
  content: { 'application/json': { schema: resolver(schema) } },
});

/** A success answer in the envelope. */
export const okJson = (description: string, data: Schema, extra?: Record<string, Schema>) =>
  json(description, okEnvelope(data, extra));

/** A paginated list in the envelope. */
export const pageJson = (description: string, item: Schema) => json(description, pageEnvelope(item));

/** A non-JSON answer (HTML page, script, CSV) of the given media type. */
export const media = (description: string, type: string, extra: Partial<ResponseObject> = {}): ResponseObject => ({
  description,
  ...extra,
  content: { [type]: { schema: resolver(v.string()) } },
});

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 500 | 503;

const GENERIC: Record<ErrorStatus, string> = {
  400: 'Invalid input; the message names the field (`Invalid email`, `page must be a positive integer`, `Invalid request body`...)',
  401: 'Missing or invalid credentials',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: '`Request body too large` (64 KiB; 1 MiB on the store/payment webhooks)',
  415: '`Content-Type must be application/json`',
  429: '`Too many requests`; `Retry-After` says when to try again',
  500: '`Internal server error`',
  503: 'Unavailable',
};

const quote = (messages: readonly string[]) => messages.map((m) => `\`${m}\``).join(', ');

/**
 * Error answers, all in the error envelope. Each status maps to the exact messages the route
 * may answer with it (or `true` for the generic description).
 */
export function errors(
  spec: Partial<Record<ErrorStatus, readonly string[] | string | true>>,
): Record<string, ResponseObject> {
  const out: Record<string, ResponseObject> = {};
  for (const [k, m] of Object.entries(spec) as [string, readonly string[] | string | true][]) {
    const status = Number(k) as ErrorStatus;
    const description = m === true ? GENERIC[status] : typeof m === 'string' ? m : quote(m);
    const res = json(description, ErrorEnvelope);
    if (status === 429)
      res.headers = { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } };
    out[k] = res;
  }
  return out;
}

// ---------------------------------------------------------------- security

export const SECURITY_SCHEMES = {
  publicKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'A public (`pk_...`) or private (`sk_...`) API key of the team: routes that accept a public key accept a private one too.',
  },
  privateKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'A private (`sk_...`) API key: a public key is refused with 403.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `ADMIN_TOKEN` of the deployment. Unset: every admin route answers 404.',
  },
  entryToken: {
    type: 'http',
    scheme: 'bearer',
    description: "A visitor's entry token (`et_...`), given by a sign-up: it reaches that entry and nothing else.",
  },
} as const;

type Requirement = Record<string, string[]>[];
export const security: Record<
  'publicKey' | 'keyless' | 'keyOrEntryToken' | 'privateKey' | 'admin' | 'entryToken' | 'none',
  Requirement
> = {
  /** a public or a private key */
  publicKey: [{ publicKey: [] }, { privateKey: [] }],
  /** a public or a private key, or none for a contest with public sign-ups (a visitor's page) */
  keyless: [{ publicKey: [] }, { privateKey: [] }, {}],
  /** a public or a private key, or the visitor's own entry token alone (about its own entry) */
  keyOrEntryToken: [{ publicKey: [] }, { privateKey: [] }, { entryToken: [] }],
  /** a private key only */
  privateKey: [{ privateKey: [] }],
  admin: [{ adminToken: [] }],
  /** the visitor's own entry token (Authorization: Bearer et_...) */
  entryToken: [{ entryToken: [] }],
  none: [],
};

const MISSING_KEY = 'Missing or invalid API key';

/**
 * The errors every /api/v1 route can answer: 401 (the route's wording), 403 for a public key on
 * a private route, 413/415 for routes that take a JSON body, 500; plus the route's own.
 */
export function apiErrors(
  opts: { access: 'public' | 'private'; body?: boolean; unauthorized?: string; forbidden?: string },
  own: Partial<Record<ErrorStatus, readonly string[] | string | true>> = {},
) {
  return errors({
    ...own,
    401: [opts.unauthorized ?? MISSING_KEY, ...asList(own[401])],
    ...(opts.access === 'private'
      ? { 403: [opts.forbidden ?? 'This endpoint requires a private API key', ...asList(own[403])] }
      : {}),
    ...(opts.body ? { 413: true, 415: true } : {}),
    // public keys are rate limited per (key, client address); play and claim have their own limit
    429: true,
    500: true,
  });
}

const asList = (m: readonly string[] | string | true | undefined): string[] => (Array.isArray(m) ? [...m] : []);

/** Admin routes: 401 `Unauthorized`, 404 when the admin API is off (and the route's own), 413/415 with a body, 500. */
export function adminErrors(own: Partial<Record<ErrorStatus, readonly string[] | string | true>> = {}, body = true) {
  return errors({
    ...own,
    401: ['Unauthorized'],
    404:
      quote(['Not found', ...asList(own[404])]) +
      ' (`Not found` also for every admin route while ADMIN_TOKEN is unset)',
    ...(body ? { 413: true, 415: true } : {}),
    // 10 failed attempts a minute per client address, then every attempt waits for the minute's end
    429: '`Too many requests`: too many failed attempts from this address; `Retry-After` says when to try again',
    500: true,
  });
}

// ---------------------------------------------------------------- query parameters

/**
 * An integer query parameter as the document shows it (the route parses the string). Used
 * after the route's query validator so that it wins over the validator's string typing.
 */
export function intQuery(name: string, description: string, range: { min: number; max?: number; default?: number }) {
  const s =
    range.max === undefined
      ? v.pipe(v.number(), v.integer(), v.minValue(range.min))
      : v.pipe(v.number(), v.integer(), v.minValue(range.min), v.maxValue(range.max));
  const { $schema: _, ...schema } = toJsonSchema(s) as Record<string, unknown>;
  if (range.default !== undefined) schema.default = range.default;
  return { name, in: 'query' as const, required: false, description, schema };
}

/** page and limit of a paginated list. */
export const pageQuery = (opts: { defaultLimit?: number; maxLimit?: number } = {}) => [
  intQuery('page', '1-based page number', { min: 1, default: 1 }),
  intQuery('limit', 'items per page', { min: 1, max: opts.maxLimit ?? 100, default: opts.defaultLimit ?? 20 }),
];

/** A request header the route reads (the inbound webhooks' signatures). */
export function headerParam(name: string, description: string, required = false) {
  const { $schema: _, ...schema } = toJsonSchema(v.string()) as Record<string, unknown>;
  return { name, in: 'header' as const, required, description, schema };
}

/** A JSON request body as the document shows it (after a route's validator, this one wins). */
export const jsonRequest = (schema: Schema, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema: resolver(schema) } },
});
