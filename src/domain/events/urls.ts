/**
 * Which receiver URLs outbound events may go to.
 *
 * - `https://` only. `http://` only for `localhost` / loopback addresses, and only when the
 *   server runs with ALLOW_HTTP_WEBHOOKS=1 (local development).
 * - Hosts that are (or, on Node, resolve to) a private, loopback, link-local, unspecified,
 *   carrier-grade-NAT or multicast address are refused, unless ALLOW_HTTP_WEBHOOKS=1.
 * - No user:password in the URL; at most 2,048 characters.
 *
 * Literal addresses and the `localhost` names are checked everywhere (WHATWG URL parsing already
 * turns `http://2130706433/` or `http://0x7f.1/` into `127.0.0.1`). Resolved addresses are
 * checked where the runtime can resolve names (Node: `Deps.resolveHost`, dns.lookup) at create,
 * at update and before every delivery attempt.
 */
import { Errors } from '../../errors.js';

export const WEBHOOK_URL_MAX = 2048;

function v4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function blockedV4([a, b, c]: number[]): boolean {
  return (
    a === 0 || // "this" network, 0.0.0.0
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local (cloud metadata services live here)
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, documentation
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a! >= 224 // multicast, reserved, broadcast
  );
}

/** Expands an IPv6 literal (without brackets) to 8 16-bit groups; null when it is not one. */
function v6Groups(host: string): number[] | null {
  if (!host.includes(':')) return null;
  let h = host.toLowerCase();
  const zone = h.indexOf('%');
  if (zone >= 0) h = h.slice(0, zone);
  // an embedded IPv4 tail (::ffff:1.2.3.4)
  const tail = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(h);
  if (tail) {
    const p = v4Parts(tail[1]!);
    if (!p) return null;
    h = h.slice(0, -tail[1]!.length) + ((p[0]! << 8) | p[1]!).toString(16) + ':' + ((p[2]! << 8) | p[3]!).toString(16);
  }
  const halves = h.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  const fill = 8 - left.length - right.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null;
  return [...left, ...Array(halves.length === 2 ? fill : 0).fill(0), ...right];
}

function blockedV6(g: number[]): boolean {
  const allZeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroUpTo(7) && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  if (allZeroUpTo(5) && g[5] === 0xffff) return blockedV4([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]); // v4-mapped
  if (allZeroUpTo(6)) return blockedV4([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]); // v4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return blockedV4([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]); // NAT64
  const first = g[0]!;
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xffc0) === 0xfec0 || // site-local (deprecated)
    (first & 0xff00) === 0xff00 // multicast
  );
}

/** True for an IP address (v4 or v6, no brackets) that events must not be sent to. */
export function isBlockedAddress(address: string): boolean {
  const v4 = v4Parts(address);
  if (v4) return blockedV4(v4);
  const v6 = v6Groups(address);
  if (v6) return blockedV6(v6);
  return false;
}

function isLoopback(address: string): boolean {
  const v4 = v4Parts(address);
  if (v4) return v4[0] === 127;
  const v6 = v6Groups(address);
  if (!v6) return false;
  if (v6.slice(0, 7).every((x) => x === 0) && v6[7] === 1) return true;
  return v6.slice(0, 5).every((x) => x === 0) && v6[5] === 0xffff && v6[6]! >> 8 === 127;
}

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The URL's host without IPv6 brackets and without a trailing dot, lower-cased. */
export function hostOf(url: URL): string {
  let h = url.hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.replace(/\.$/, '');
}

/**
 * The parsed URL when it may receive events; throws `400 Invalid url` otherwise. Checks the text
 * of the URL only (no name resolution: see checkResolved).
 */
export function checkWebhookUrl(raw: string, allowHttp: boolean): URL {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > WEBHOOK_URL_MAX) throw Errors.invalidUrl();
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw Errors.invalidUrl();
  }
  if (url.username || url.password) throw Errors.invalidUrl();
  const host = hostOf(url);
  if (!host) throw Errors.invalidUrl();
  const loopback = isLocalhostName(host) || isLoopback(host);
  if (url.protocol === 'http:') {
    if (!allowHttp || !loopback) throw Errors.invalidUrl();
    return url;
  }
  if (url.protocol !== 'https:') throw Errors.invalidUrl();
  if (!allowHttp && (isLocalhostName(host) || isBlockedAddress(host))) throw Errors.invalidUrl();
  return url;
}

/** Resolves a host name to its addresses (Node: dns.lookup with all: true). */
export type ResolveHost = (host: string) => Promise<string[]>;

/**
 * The refusal reason when the host resolves to an address events must not go to, else null.
 * A name that does not resolve is not refused here (the attempt fails and is retried).
 */
export async function checkResolved(url: URL, allowHttp: boolean, resolve: ResolveHost | undefined): Promise<string | null> {
  if (!resolve || allowHttp) return null;
  const host = hostOf(url);
  if (v4Parts(host) || v6Groups(host)) return null; // a literal: checked by checkWebhookUrl
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return null;
  }
  const bad = addresses.find(isBlockedAddress);
  return bad ? `Refused: ${host} resolves to a private, loopback or link-local address` : null;
}
