/**
 * Secrets at rest (the other tools' credentials): AES-256-GCM with the deployment's key
 * (INTEGRATIONS_KEY, 32 bytes in base64), a fresh 96-bit nonce per seal. A sealed value names
 * its key (`v1.<key id>.<base64 of nonce and ciphertext>`, the key id the first 8 hex digits of
 * the key's SHA-256), so that while a key is rotated both the new and the previous key
 * (INTEGRATIONS_KEY_PREVIOUS) can open what each sealed. Web Crypto: the same on Node and Workers.
 */
import { fromBase64, sha256Hex, toBase64 } from './crypto.js';

export interface SecretBox {
  seal(plain: string): Promise<string>;
  /** the plain text, or null when no key of the box sealed it (or it was altered) */
  open(sealed: string): Promise<string | null>;
}

interface Key {
  id: string;
  key: CryptoKey;
}

async function keyOf(base64: string): Promise<Key> {
  const raw = fromBase64(base64.trim());
  if (!raw || raw.length !== 32) throw new Error('a secret-box key is 32 bytes in base64');
  const key = await crypto.subtle.importKey('raw', new Uint8Array(raw), { name: 'AES-GCM' }, false, [
    'encrypt',
    'decrypt',
  ]);
  return { id: (await sha256Hex(base64.trim())).slice(0, 8), key };
}

/** A box sealing with `current` and opening with it or `previous`. */
export async function secretBox(current: string, previous?: string): Promise<SecretBox> {
  const keys = [await keyOf(current), ...(previous ? [await keyOf(previous)] : [])];
  const [sealer] = keys;
  return {
    async seal(plain) {
      const nonce = crypto.getRandomValues(new Uint8Array(12));
      const cipher = new Uint8Array(
        await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, sealer!.key, new TextEncoder().encode(plain)),
      );
      const both = new Uint8Array(nonce.length + cipher.length);
      both.set(nonce);
      both.set(cipher, nonce.length);
      return `v1.${sealer!.id}.${toBase64(both)}`;
    },
    async open(sealed) {
      const [version, id, body] = sealed.split('.');
      const k = keys.find((x) => x.id === id);
      const bytes = body ? fromBase64(body) : null;
      if (version !== 'v1' || !k || !bytes || bytes.length < 13) return null;
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: new Uint8Array(bytes.slice(0, 12)) },
          k.key,
          new Uint8Array(bytes.slice(12)),
        );
        return new TextDecoder().decode(plain);
      } catch {
        return null;
      }
    },
  };
}
