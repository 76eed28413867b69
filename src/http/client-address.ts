/** The caller's address as the per-address limits count it (src/lib/ip-hash.ts: IPv6 by its /64). */
import { addressKey } from '../lib/ip-hash.js';
import type { AppContext } from './context.js';

/** `192.0.2.1`, `2001:db8:1:2::/64`, or `unknown` where the runtime does not know the address. */
export function clientAddressKey(c: AppContext): string {
  const ip = c.var.deps.clientIp(c);
  return ip ? addressKey(ip) : 'unknown';
}
