/**
 * A client's address as every per-address limit and risk rule counts it: an IPv4 address alone,
 * an IPv6 address by its /64 (one subscriber's network: a home or a phone gets a whole /64, and
 * picks any of its 2^64 addresses at will, so counting them one by one counts nothing), an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the IPv4 address it carries.
 */
import { hmacSha256, toHex } from './crypto.js';

/** The 8 groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups), or null. */
function ipv6Groups(address: string): number[] | null {
  let a = address;
  const lastColon = a.lastIndexOf(':');
  const tail = a.slice(lastColon + 1);
  if (tail.includes('.')) {
    const bytes = tail.split('.');
    if (bytes.length !== 4 || bytes.some((b) => !/^\d{1,3}$/.test(b) || Number(b) > 255)) return null;
    const [b0, b1, b2, b3] = bytes.map(Number) as [number, number, number, number];
    a = `${a.slice(0, lastColon + 1)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const head = part(halves[0]);
  const rest = part(halves[1]);
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16));
}

/**
 * The key an address is counted by: `192.0.2.1`; `2001:db8:1:2::/64` for any address of that
 * /64; `192.0.2.1` for `::ffff:192.0.2.1`. Anything that is not an IPv6 address comes back
 * trimmed and lower-cased (an IPv4 address, or whatever a proxy sent).
 */
export function addressKey(ip: string): string {
  let a = ip.trim().toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  if (!a.includes(':')) return a;
  const zone = a.indexOf('%');
  const groups = ipv6Groups(zone >= 0 ? a.slice(0, zone) : a);
  if (!groups) return a;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff)
    return `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  return `${[g0, g1, g2, g3].map((g) => g.toString(16)).join(':')}::/64`;
}

/** Keyed hash (HMAC-SHA256 with the deployment's salt) of the caller's address, by its addressKey. */
export async function hashIp(salt: string, ip: string): Promise<string> {
  return toHex(await hmacSha256(salt, `iw-ip:${addressKey(ip)}`));
}
