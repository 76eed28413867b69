/**
 * The visitor's credential for their own entry: `et_` and 40 base62 characters (about 238 random
 * bits). Only its SHA-256 is stored (entry_tokens); an erased entry's tokens are deleted.
 */
import type { RandomSource } from '../deps.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';

export const ENTRY_TOKEN_RE = /^et_[A-Za-z0-9]{40}$/;

export async function newEntryToken(random: RandomSource): Promise<{ token: string; hash: string }> {
  const token = `et_${randomBase62(random, 40)}`;
  return { token, hash: await sha256Hex(token) };
}

/** The token of `Authorization: Bearer et_…`, or null when the header carries none (or a malformed one). */
export function entryTokenOf(authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  return m && ENTRY_TOKEN_RE.test(m[1]!) ? m[1]! : null;
}
