/**
 * The other tools' APIs, as each provider's published reference describes them (the shapes the
 * stand-ins of test/support/stand-ins/ check): where each one is, how it is authenticated, and
 * the connection test, one provider call (or a few, to create what is missing) that proves the
 * credential works and the target exists.
 *
 * - Klaviyo (developers.klaviyo.com, revision 2025-10-15): `Authorization: Klaviyo-API-Key <private
 *   key>`, `revision`, JSON:API bodies (`application/vnd.api+json`); errors `{errors: [{status,
 *   code, title, detail}]}`. Test: `GET /api/lists/{listId}`.
 * - Mailchimp Marketing API 3.0 (mailchimp.com/developer): `https://<dc>.api.mailchimp.com/3.0`,
 *   the data centre the key's suffix (`…-us21`); HTTP Basic with any user name and the key;
 *   errors `application/problem+json` `{type, title, status, detail}`. Test: `GET
 *   /3.0/lists/{audienceId}`, then the audience's merge fields, creating the missing ones.
 * - HubSpot (developers.hubspot.com, CRM v3): `Authorization: Bearer <private app token>`; errors
 *   `{status: "error", message, category}`. Test: the property group (`POST
 *   /crm/v3/properties/contacts/groups`, 409 when it exists), then the contact properties,
 *   creating the missing ones.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import type { Provider } from '../lib/integrations.js';
import { HUBSPOT_EVENT_PROPERTIES, HUBSPOT_GROUP, HUBSPOT_TYPES, PERSON_PROPERTIES } from './properties.js';

export const KLAVIYO_REVISION = '2025-10-15';
export const PRODUCT = 'Contest Engine';
const TIMEOUT_MS = 10_000;

/** Mailchimp's subscriber hash: the MD5 of the lower-cased address (how a member is named in a path). */
export const subscriberHash = (email: string) => createHash('md5').update(email.toLowerCase()).digest('hex');

/** A member's path in an audience, relative to the API's base (`/lists/{id}/members/{hash}`). */
export const mailchimpMemberPath = (audienceId: string, email: string) =>
  `/lists/${encodeURIComponent(audienceId)}/members/${subscriberHash(email)}`;

export type Credentials = { apiKey: string } | { accessToken: string };
export type Target = { listId: string } | { audienceId: string } | Record<string, never>;

/** The provider context of the app's dependencies: its fetch, and where each provider is. */
export function providerContext(deps: Pick<Deps, 'fetch' | 'config'>): ProviderContext {
  return {
    fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    urls: deps.config.integrations?.urls,
    timeoutMs: deps.config.integrations?.timeoutMs,
  };
}

export interface ProviderContext {
  fetch: typeof fetch;
  urls?: { klaviyo?: string; mailchimp?: string; hubspot?: string };
  timeoutMs?: number;
}

export interface TestOutcome {
  /** the credential works and the target exists (and what was missing was made) */
  passed: boolean;
  /** the provider's HTTP status of the call that decided it; null when it did not answer */
  providerStatus: number | null;
  /** what happened, the provider's own words on a failure */
  message: string;
  /** the fields or properties the test created at the provider */
  created: string[];
}

const NAMES: Record<Provider, string> = { klaviyo: 'Klaviyo', mailchimp: 'Mailchimp', hubspot: 'HubSpot' };

/** A provider's answer: its status and its JSON body (null when it sent none), or the reason it gave none. */
export type Answer = { status: number; body: unknown } | { status: null; error: string };

async function call(
  ctx: ProviderContext,
  provider: Provider,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown },
): Promise<Answer> {
  return (await callWithHeaders(ctx, provider, url, init)).answer;
}

/** One call: its answer, and its Retry-After header (429). */
export async function callWithHeaders(
  ctx: ProviderContext,
  provider: Provider,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown },
): Promise<{ answer: Answer; retryAfter: string | null }> {
  const timeout = ctx.timeoutMs ?? TIMEOUT_MS;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException('timed out', 'TimeoutError')), timeout);
  try {
    const res = await ctx.fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: abort.signal,
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { answer: { status: res.status, body }, retryAfter: res.headers.get('retry-after') };
  } catch (e) {
    const name = abort.signal.aborted ? 'TimeoutError' : (e as Error)?.name;
    return {
      answer: {
        status: null,
        error:
          name === 'TimeoutError' || name === 'AbortError'
            ? `${NAMES[provider]} did not answer within ${Math.round(timeout / 1000)} s`
            : `${NAMES[provider]} could not be reached (${(e as Error)?.message ?? e})`,
      },
      retryAfter: null,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The provider's own words for a failed answer. */
export function providerMessage(provider: Provider, a: Answer): string {
  if (a.status === null) return a.error;
  const b = a.body as Record<string, unknown> | null;
  let said: unknown;
  if (provider === 'klaviyo') {
    const first = (b?.errors as { detail?: string; title?: string }[] | undefined)?.[0];
    said = first?.detail ?? first?.title;
  } else if (provider === 'mailchimp') said = b?.detail ?? b?.title;
  else said = b?.message;
  return `${NAMES[provider]} answered ${a.status}${typeof said === 'string' && said ? `: ${said}` : ''}`;
}

const ok = (a: Answer): a is { status: number; body: unknown } =>
  a.status !== null && a.status >= 200 && a.status < 300;
const failed = (provider: Provider, a: Answer, created: string[] = []): TestOutcome => ({
  passed: false,
  providerStatus: a.status,
  message: providerMessage(provider, a),
  created,
});

/** Klaviyo's headers for a private key. */
export function klaviyoHeaders(apiKey: string, write = false): Record<string, string> {
  return {
    authorization: `Klaviyo-API-Key ${apiKey}`,
    revision: KLAVIYO_REVISION,
    accept: 'application/vnd.api+json',
    ...(write ? { 'content-type': 'application/vnd.api+json' } : {}),
  };
}

/** Mailchimp's base (with /3.0) for a key: its data centre, or MAILCHIMP_API_URL. */
export function mailchimpBase(ctx: ProviderContext, apiKey: string): string {
  if (ctx.urls?.mailchimp) return `${ctx.urls.mailchimp.replace(/\/+$/, '')}/3.0`;
  const dc = /-([a-z]{2,4}\d{1,3})$/.exec(apiKey)?.[1] ?? 'us1';
  return `https://${dc}.api.mailchimp.com/3.0`;
}

export function mailchimpHeaders(apiKey: string, write = false): Record<string, string> {
  return {
    authorization: `Basic ${btoa(`contest-engine:${apiKey}`)}`,
    accept: 'application/json',
    ...(write ? { 'content-type': 'application/json' } : {}),
  };
}

export function hubspotHeaders(token: string, write = false): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    accept: 'application/json',
    ...(write ? { 'content-type': 'application/json' } : {}),
  };
}

export const klaviyoBase = (ctx: ProviderContext) => (ctx.urls?.klaviyo ?? 'https://a.klaviyo.com').replace(/\/+$/, '');
export const hubspotBase = (ctx: ProviderContext) =>
  (ctx.urls?.hubspot ?? 'https://api.hubapi.com').replace(/\/+$/, '');

/** The connection test: one real call (and those that create what is missing). */
export async function testConnection(
  ctx: ProviderContext,
  provider: Provider,
  credentials: Credentials,
  target: Target,
): Promise<TestOutcome> {
  if (provider === 'klaviyo') {
    const { apiKey } = credentials as { apiKey: string };
    const { listId } = target as { listId: string };
    const a = await call(ctx, provider, `${klaviyoBase(ctx)}/api/lists/${encodeURIComponent(listId)}`, {
      method: 'GET',
      headers: klaviyoHeaders(apiKey),
    });
    if (!ok(a)) return failed(provider, a);
    const name = (a.body as { data?: { attributes?: { name?: string } } } | null)?.data?.attributes?.name;
    return { passed: true, providerStatus: a.status, message: `Klaviyo list "${name ?? listId}" found`, created: [] };
  }
  if (provider === 'mailchimp') {
    const { apiKey } = credentials as { apiKey: string };
    const { audienceId } = target as { audienceId: string };
    const base = `${mailchimpBase(ctx, apiKey)}/lists/${encodeURIComponent(audienceId)}`;
    const list = await call(ctx, provider, `${base}?fields=id,name`, {
      method: 'GET',
      headers: mailchimpHeaders(apiKey),
    });
    if (!ok(list)) return failed(provider, list);
    const fields = await call(ctx, provider, `${base}/merge-fields?count=1000&fields=merge_fields.tag`, {
      method: 'GET',
      headers: mailchimpHeaders(apiKey),
    });
    if (!ok(fields)) return failed(provider, fields);
    const have = new Set(
      ((fields.body as { merge_fields?: { tag: string }[] } | null)?.merge_fields ?? []).map((f) => f.tag),
    );
    const created: string[] = [];
    for (const p of PERSON_PROPERTIES) {
      if (have.has(p.mailchimpTag)) continue;
      const made = await call(ctx, provider, `${base}/merge-fields`, {
        method: 'POST',
        headers: mailchimpHeaders(apiKey, true),
        body: { tag: p.mailchimpTag, name: p.label, type: p.type, required: false, public: false },
      });
      if (!ok(made)) return failed(provider, made, created);
      created.push(p.mailchimpTag);
    }
    const name = (list.body as { name?: string } | null)?.name;
    return {
      passed: true,
      providerStatus: list.status,
      message: `Mailchimp audience "${name ?? audienceId}" found${created.length ? `; ${created.length} merge fields created` : ''}`,
      created,
    };
  }
  const { accessToken } = credentials as { accessToken: string };
  const base = `${hubspotBase(ctx)}/crm/v3/properties/contacts`;
  const group = await call(ctx, provider, `${base}/groups`, {
    method: 'POST',
    headers: hubspotHeaders(accessToken, true),
    body: { name: HUBSPOT_GROUP, label: PRODUCT },
  });
  if (!ok(group) && group.status !== 409) return failed(provider, group);
  const created: string[] = ok(group) ? [`group ${HUBSPOT_GROUP}`] : [];
  const props = await call(ctx, provider, base, { method: 'GET', headers: hubspotHeaders(accessToken) });
  if (!ok(props)) return failed(provider, props, created);
  const have = new Set(((props.body as { results?: { name: string }[] } | null)?.results ?? []).map((p) => p.name));
  for (const p of [...PERSON_PROPERTIES, ...HUBSPOT_EVENT_PROPERTIES]) {
    const name = `${HUBSPOT_GROUP}_${p.key}`;
    if (have.has(name)) continue;
    const made = await call(ctx, provider, base, {
      method: 'POST',
      headers: hubspotHeaders(accessToken, true),
      body: { name, label: p.label, groupName: HUBSPOT_GROUP, ...HUBSPOT_TYPES[p.type] },
    });
    if (!ok(made) && made.status !== 409) return failed(provider, made, created);
    if (ok(made)) created.push(name);
  }
  return {
    passed: true,
    providerStatus: props.status,
    message: `HubSpot contacts can be written${created.length ? `; ${created.length} properties created` : ''}`,
    created,
  };
}

/** What a provider's answer means for a delivery. */
export type SyncOutcome =
  | { result: 'delivered'; status: number }
  | { result: 'retry'; status: number | null; message: string; retryAfterMs?: number }
  | { result: 'failed'; status: number; message: string };

/** 2xx delivered; 429 waits for Retry-After; 5xx and no answer retried; any other 4xx failed in the provider's words. */
export function outcomeOf(provider: Provider, a: Answer, retryAfter: string | null): SyncOutcome | null {
  const status = a.status;
  if (status !== null && status >= 200 && status < 300) return null;
  const message = providerMessage(provider, a);
  if (status === null || status >= 500) return { result: 'retry', status, message };
  if (status === 429) {
    const s = Number(retryAfter);
    return { result: 'retry', status: 429, message, retryAfterMs: Number.isFinite(s) && s > 0 ? s * 1000 : 60_000 };
  }
  return { result: 'failed', status, message };
}

/** A call to a provider, as callInOrder makes it. */
export type ProviderCall = { url: string; method: string; headers: Record<string, string>; body?: unknown };

/**
 * Makes the calls in order, the first that fails deciding (outcomeOf); a call may be made of the
 * previous answer. `notFound`: what a 404 means instead of a failure (a person the tool does not
 * have is as deleted as can be; a member it does not have yet is tried again).
 */
export async function callInOrder(
  ctx: ProviderContext,
  provider: Provider,
  calls: (ProviderCall | ((prev: Answer) => ProviderCall))[],
  notFound?: SyncOutcome,
): Promise<SyncOutcome> {
  let status = 0;
  let prev: Answer = { status: null, error: '' };
  for (const c of calls) {
    const call = typeof c === 'function' ? c(prev) : c;
    const { answer, retryAfter } = await callWithHeaders(ctx, provider, call.url, call);
    if (notFound && answer.status === 404) return notFound;
    const bad = outcomeOf(provider, answer, retryAfter);
    if (bad) return bad;
    prev = answer;
    status = answer.status ?? 0;
  }
  return { result: 'delivered', status };
}
