/**
 * Server seeds (giveaway draws and instant-win games): 32 random bytes, the HMAC-SHA256 key of
 * the published random stream (docs/fairness.md). Kept beside each seed, never shown: the key
 * padded with zeros to 64 bytes and XORed with 0x36 (ipad) and with 0x5c (opad), so that SQL can
 * compute HMAC-SHA256(seed, m) as sha256(opad || sha256(ipad || m)) with no extension.
 */
import type { RandomSource } from '../deps.js';
import { toHex } from '../lib/crypto.js';

export interface SeedMaterial {
  /** the 32 seed bytes as 64 lower-case hex characters (shown once revealed) */
  seedHex: string;
  /** lower-case hex SHA-256 of the 32 seed bytes (committed up front) */
  seedHash: string;
  ipadHex: string;
  opadHex: string;
}

export function hmacPads(key: Uint8Array): { ipad: Uint8Array; opad: Uint8Array } {
  if (key.length > 64) throw new Error('hmacPads: keys longer than 64 bytes are hashed first; seeds are 32 bytes');
  const ipad = new Uint8Array(64).fill(0x36);
  const opad = new Uint8Array(64).fill(0x5c);
  key.forEach((b, i) => {
    ipad[i] = b ^ 0x36;
    opad[i] = b ^ 0x5c;
  });
  return { ipad, opad };
}

export async function seedFromBytes(seed: Uint8Array): Promise<SeedMaterial> {
  const { ipad, opad } = hmacPads(seed);
  return {
    seedHex: toHex(seed),
    seedHash: toHex(await crypto.subtle.digest('SHA-256', seed as BufferSource)),
    ipadHex: toHex(ipad),
    opadHex: toHex(opad),
  };
}

/** A new seed from the injected random source (crypto.getRandomValues in production). */
export const newSeed = (random: RandomSource) => seedFromBytes(random.bytes(32));
