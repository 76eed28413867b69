/**
 * The console's client of our own API: openapi-fetch, typed by src/lib/api.generated.ts (generated from
 * the OpenAPI document by scripts/build-console.ts). The credential lives in this tab only
 * (sessionStorage: gone when the tab closes, never in localStorage or a cookie).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../lib/api.generated.js';

export type Credential =
  | { kind: 'admin'; token: string }
  | { kind: 'team'; key: string; teamId: string; teamName: string };

const STORE = 'contest-engine-console';

export function loadCredential(): Credential | null {
  try {
    const raw = sessionStorage.getItem(STORE);
    return raw ? (JSON.parse(raw) as Credential) : null;
  } catch {
    return null;
  }
}

export function saveCredential(c: Credential | null) {
  if (c) sessionStorage.setItem(STORE, JSON.stringify(c));
  else sessionStorage.removeItem(STORE);
}

/** Every key the console keeps in the tab's storage starts with this. */
const STORE_PREFIX = 'contest-engine-console';

/** Sign-out: the credential and everything else the console kept in this tab (the pages' public key). */
export function forgetEverything() {
  for (const k of Object.keys(sessionStorage)) if (k.startsWith(STORE_PREFIX)) sessionStorage.removeItem(k);
}

export const authHeaders = (c: Credential): Record<string, string> =>
  c.kind === 'admin' ? { authorization: `Bearer ${c.token}` } : { 'x-api-key': c.key };

export function apiClient(c: Credential) {
  return createClient<paths>({ baseUrl: location.origin, headers: authHeaders(c) });
}
export type Api = ReturnType<typeof apiClient>;

/** A failed call: the API's own message, to show next to what failed. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The answer's body when the call succeeded; throws ApiFailure with the API's message otherwise. */
export async function must<R extends { data?: unknown; error?: unknown; response: Response }>(
  call: Promise<R>,
): Promise<NonNullable<R['data']>> {
  let r: R;
  try {
    r = await call;
  } catch {
    throw new ApiFailure('The server could not be reached. Check your connection and try again.', 0);
  }
  if (r.data !== undefined && r.response.ok) return r.data as NonNullable<R['data']>;
  const body = r.error as { error?: unknown } | undefined;
  const message = typeof body?.error === 'string' ? body.error : `The server answered ${r.response.status}.`;
  throw new ApiFailure(message, r.response.status);
}

export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

const PUBLIC_KEY_STORE = 'contest-engine-console-public-key';

/**
 * A public key the operator pasted for the pages that need one (the widget's preview, a draw's
 * verification page): public keys are made to be seen, kept in this tab only all the same.
 */
export const pagesKey = {
  get: () => sessionStorage.getItem(PUBLIC_KEY_STORE) ?? '',
  set: (k: string) => (k ? sessionStorage.setItem(PUBLIC_KEY_STORE, k) : sessionStorage.removeItem(PUBLIC_KEY_STORE)),
};
