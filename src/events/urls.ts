/**
 * Which receiver URLs outbound events may go to.
 *
 * - `https://` only. `http://` only for `localhost` / loopback addresses, and only when the
 *   server runs with ALLOW_HTTP_WEBHOOKS=1 (local development).
 * - Hosts that are (or, on Node, resolve to) an address of a special-purpose range that is not
 *   globally reachable (the IANA IPv4 and IPv6 special-purpose registries: private, loopback,
 *   link-local, documentation, benchmarking, discard, ... and the IPv6 forms that embed such an
 *   IPv4 address) are refused, unless ALLOW_HTTP_WEBHOOKS=1.
 * - No user:password and no #fragment in the URL (a fragment is never sent to the receiver, so a
 *   URL with one would not be the URL that is called); at most 2,048 characters.
 *
 * Literal addresses and the `localhost` names are checked everywhere (WHATWG URL parsing already
 * turns `http://2130706433/` or `http://0x7f.1/` into `127.0.0.1`). Resolved addresses are
 * checked where the runtime can resolve names (Node: `Deps.resolveHost`, dns.lookup) at create,
 * at update and before every delivery attempt.
 */
import { Errors } from '../errors.js';

export const WEBHOOK_URL_MAX = 2048;

function v4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/**
 * IPv4 ranges events are never sent to: every entry of the IANA IPv4 Special-Purpose Address
 * Registry that is not globally reachable, plus multicast (224/4, its own registry). Entries the
 * registry marks globally reachable (192.0.0.9, 192.0.0.10, 192.31.196/24, 192.52.193/24,
 * 192.175.48/24) are not refused.
 */
const V4_REFUSED: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this" network'],
  ['10.0.0.0', 8, 'private use'],
  ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata services live here)'],
  ['172.16.0.0', 12, 'private use'],
  ['192.0.0.0', 29, 'IPv4 service continuity prefix'],
  ['192.0.0.8', 32, 'IPv4 dummy address'],
  ['192.0.0.11', 32, 'IETF protocol assignments'],
  ['192.0.0.12', 30, 'IETF protocol assignments'],
  ['192.0.0.16', 28, 'IETF protocol assignments'],
  ['192.0.0.32', 27, 'IETF protocol assignments'],
  ['192.0.0.64', 26, 'IETF protocol assignments'],
  ['192.0.0.128', 25, 'IETF protocol assignments (192.0.0.170/171: NAT64/DNS64 discovery)'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'private use'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and 255.255.255.255, limited broadcast)'],
];

const v4Number = (p: number[]) => ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
const V4_RANGES = V4_REFUSED.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (v4Number(v4Parts(base)!) & mask) >>> 0, mask };
});

function blockedV4(parts: number[]): boolean {
  const n = v4Number(parts);
  return V4_RANGES.some(({ net, mask }) => (n & mask) >>> 0 === net);
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
    h = `${h.slice(0, -tail[1]!.length)}${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const halves = h.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) =>
    s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  const fill = 8 - left.length - right.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null;
  return [...left, ...Array(halves.length === 2 ? fill : 0).fill(0), ...right];
}

/**
 * IPv6 ranges events are never sent to: every entry of the IANA IPv6 Special-Purpose Address
 * Registry that is not globally reachable, plus multicast, site-local and the deprecated forms.
 * Forms that embed an IPv4 address are refused whole where the registry says they are not
 * globally reachable (IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible
 * ::/96, local-use NAT64 64:ff9b:1::/48) and otherwise judged by the IPv4 address they carry
 * (NAT64 64:ff9b::/96, 6to4 2002::/16).
 */
const V6_REFUSED: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 96, 'unspecified, loopback, IPv4-compatible (deprecated)'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['::ffff:0:0:0', 96, 'IPv4-translated'],
  ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation'],
  ['100::', 64, 'discard-only'],
  ['100:0:0:1::', 64, 'dummy IPv6 prefix'],
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'deprecated ORCHID'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing SIDs'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];
/**
 * 2001::/23 (IETF protocol assignments) is not globally reachable except these entries, which
 * the registry marks globally reachable: 2001:1::1-3 (anycast services), 2001:3::/32 (AMT),
 * 2001:4:112::/48 (AS112-v6), 2001:20::/28 (ORCHIDv2), 2001:30::/28 (DRIP).
 */
const V6_IETF = ['2001::', 23] as const;
const V6_IETF_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001:1::1', 128],
  ['2001:1::2', 128],
  ['2001:1::3', 128],
  ['2001:3::', 32],
  ['2001:4:112::', 48],
  ['2001:20::', 28],
  ['2001:30::', 28],
];

function inV6(g: number[], base: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((g[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}
const v6Range = ([base, bits]: readonly [string, number, ...unknown[]]) => ({ base: v6Groups(base)!, bits });
const V6_RANGES = V6_REFUSED.map(v6Range);
const IETF = v6Range(V6_IETF);
const IETF_GLOBAL = V6_IETF_GLOBAL.map(v6Range);
const embeddedV4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];

function blockedV6(g: number[]): boolean {
  if (V6_RANGES.some((r) => inV6(g, r.base, r.bits))) return true;
  if (inV6(g, IETF.base, IETF.bits) && !IETF_GLOBAL.some((r) => inV6(g, r.base, r.bits))) return true;
  // NAT64 well-known prefix 64:ff9b::/96 and 6to4 2002::/16: the IPv4 address they lead to
  if (inV6(g, v6Groups('64:ff9b::')!, 96)) return blockedV4(embeddedV4(g[6]!, g[7]!));
  if (g[0] === 0x2002) return blockedV4(embeddedV4(g[1]!, g[2]!));
  return false;
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
  if (url.username || url.password || raw.includes('#')) throw Errors.invalidUrl();
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
export async function checkResolved(
  url: URL,
  allowHttp: boolean,
  resolve: ResolveHost | undefined,
): Promise<string | null> {
  return (await resolveChecked(url, allowHttp, resolve)).refused;
}

/**
 * Resolves the URL's host once and checks every address: `refused` (a sentence) when one of them
 * is an address events must not go to; else `address`, the first one, which the attempt then
 * connects to (src/lib/pinned-post.ts) without resolving the name again. `address` is null for a
 * literal, with no resolver (Workers), with ALLOW_HTTP_WEBHOOKS, or when the name does not resolve.
 */
export async function resolveChecked(
  url: URL,
  allowHttp: boolean,
  resolve: ResolveHost | undefined,
): Promise<{ refused: string | null; address: string | null }> {
  const none = { refused: null, address: null };
  if (!resolve || allowHttp) return none;
  const host = hostOf(url);
  if (v4Parts(host) || v6Groups(host)) return none; // a literal: checked by checkWebhookUrl
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return none;
  }
  if (addresses.some(isBlockedAddress)) {
    return { refused: `Refused: ${host} resolves to a private, loopback or link-local address`, address: null };
  }
  return { refused: null, address: addresses[0] ?? null };
}
