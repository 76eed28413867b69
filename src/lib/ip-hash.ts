import { hmacSha256, toHex } from './crypto.js';

/** Keyed hash (HMAC-SHA256 with the deployment's salt) of the caller's IP address. */
export async function hashIp(salt: string, ip: string): Promise<string> {
  return toHex(await hmacSha256(salt, `iw-ip:${ip.trim().toLowerCase()}`));
}
