/**
 * Signature checks for inbound webhooks (docs/contests-and-entries.md), with WebCrypto only so that they run the
 * same on Node and in workerd. Every check works on the exact bytes received: the body is
 * never re-serialised before verification.
 *
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (several signatures may be
 *   sent, space separated), key = base64 decode of the secret after `whsec_`, 5 minutes tolerance
 *   both ways.
 * - `x-webhook-secret: <secret>` for tools that cannot sign (constant-time compare).
 * - Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`, key = the secret as is.
 * - Stripe: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">[,v1=...]`, key = the
 *   secret as is, 300 s tolerance both ways.
 */
import { fromBase64, hmacSha256, timingSafeEqual, toBase64, toHex } from './crypto.js';

const enc = new TextEncoder();

/** Longest `webhook-id` / platform delivery id we accept (anything longer is refused). */
export const MAX_EXTERNAL_ID_LENGTH = 256;
export const STANDARD_TOLERANCE_SECONDS = 5 * 60;
export const STRIPE_TOLERANCE_SECONDS = 300;
/** At most this many candidate signatures are looked at in one header. */
const MAX_SIGNATURES = 16;

function concat(prefix: string, body: Uint8Array): Uint8Array {
  const p = enc.encode(prefix);
  const out = new Uint8Array(p.length + body.length);
  out.set(p, 0);
  out.set(body, p.length);
  return out;
}

const asBytes = (body: Uint8Array | string) => (typeof body === 'string' ? enc.encode(body) : body);

/** Key bytes of a Standard Webhooks secret (`whsec_` + base64); null when malformed or empty. */
export function standardWebhookKey(secret: string): Uint8Array | null {
  if (!secret.startsWith('whsec_')) return null;
  const key = fromBase64(secret.slice('whsec_'.length));
  return key && key.length > 0 ? key : null;
}

/** `v1,<base64>` for the message id, unix timestamp (seconds) and body: what a sender puts in `webhook-signature`. */
export async function signStandardWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: Uint8Array | string,
): Promise<string> {
  const key = standardWebhookKey(secret);
  if (!key) throw new Error('not a whsec_ secret');
  const mac = await hmacSha256(key, concat(`${id}.${timestamp}.`, asBytes(body)));
  return `v1,${toBase64(mac)}`;
}

export interface StandardWebhookHeaders {
  id?: string | null;
  timestamp?: string | null;
  signature?: string | null;
}

/**
 * True when at least one `v1` signature of the header matches and the timestamp is within the
 * tolerance of `now` (the injected clock), either way.
 */
export async function verifyStandardWebhook(
  secret: string,
  headers: StandardWebhookHeaders,
  body: Uint8Array,
  now: Date,
  toleranceSeconds = STANDARD_TOLERANCE_SECONDS,
): Promise<boolean> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return false;
  if (id.length > MAX_EXTERNAL_ID_LENGTH) return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const ts = Number(timestamp);
  if (Math.abs(Math.floor(now.getTime() / 1000) - ts) > toleranceSeconds) return false;
  const key = standardWebhookKey(secret);
  if (!key) return false;
  const expected = toBase64(await hmacSha256(key, concat(`${id}.${timestamp}.`, body)));
  let ok = false;
  for (const part of signature.split(' ').slice(0, MAX_SIGNATURES)) {
    const comma = part.indexOf(',');
    if (comma < 0) continue;
    const version = part.slice(0, comma);
    const sig = part.slice(comma + 1);
    if (version !== 'v1') continue;
    // no early exit: every candidate is compared
    if (timingSafeEqual(sig, expected)) ok = true;
  }
  return ok;
}

/** The `x-webhook-secret` header compared in constant time with the contest's secret. */
export function verifySharedSecret(secret: string, header: string | null | undefined): boolean {
  if (!header) return false;
  return timingSafeEqual(header, secret);
}

/** Base64 HMAC-SHA256 of the body keyed with the shop's secret: what Shopify sends in `X-Shopify-Hmac-Sha256`. */
export async function signShopify(secret: string, body: Uint8Array | string): Promise<string> {
  return toBase64(await hmacSha256(secret, asBytes(body)));
}

export async function verifyShopify(
  secret: string,
  header: string | null | undefined,
  body: Uint8Array,
): Promise<boolean> {
  if (!header || !secret) return false;
  const expected = await signShopify(secret, body);
  return timingSafeEqual(header.trim(), expected);
}

/** `t=<timestamp>,v1=<hex>`: what Stripe sends in `Stripe-Signature` (the tests use Stripe's own library). */
export async function signStripe(secret: string, timestamp: number, body: Uint8Array | string): Promise<string> {
  const mac = await hmacSha256(secret, concat(`${timestamp}.`, asBytes(body)));
  return `t=${timestamp},v1=${toHex(mac)}`;
}

/** Parses `t=..,v1=..,v1=..,v0=..`; null when there is no single well-formed `t` or no `v1`. */
export function parseStripeHeader(header: string): { timestamp: string; v1: string[] } | null {
  let timestamp: string | null = null;
  const v1: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const k = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (k === 't') {
      if (timestamp !== null) return null;
      timestamp = val;
    } else if (k === 'v1' && v1.length < MAX_SIGNATURES) {
      v1.push(val);
    }
  }
  if (timestamp === null || !/^\d{1,12}$/.test(timestamp) || v1.length === 0) return null;
  return { timestamp, v1 };
}

export async function verifyStripe(
  secret: string,
  header: string | null | undefined,
  body: Uint8Array,
  now: Date,
  toleranceSeconds = STRIPE_TOLERANCE_SECONDS,
): Promise<boolean> {
  if (!header || !secret) return false;
  const parsed = parseStripeHeader(header);
  if (!parsed) return false;
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(parsed.timestamp)) > toleranceSeconds) return false;
  const expected = toHex(await hmacSha256(secret, concat(`${parsed.timestamp}.`, body)));
  let ok = false;
  for (const sig of parsed.v1) if (timingSafeEqual(sig, expected)) ok = true;
  return ok;
}
