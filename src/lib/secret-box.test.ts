/** Secrets at rest: AES-256-GCM seals that name their key, open with it or the previous one, and refuse an altered seal. */
import { describe, expect, it } from 'vitest';
import { secretBox } from './secret-box.js';

const A = Buffer.alloc(32, 1).toString('base64');
const B = Buffer.alloc(32, 2).toString('base64');

describe('the secret box', () => {
  it('seals with a fresh nonce each time, opens its own seal, and never shows the plain text', async () => {
    const box = await secretBox(A);
    const one = await box.seal('{"apiKey":"pk_secret"}');
    const two = await box.seal('{"apiKey":"pk_secret"}');
    expect(one).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9+/]+=*$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('pk_secret');
    expect(await box.open(one)).toBe('{"apiKey":"pk_secret"}');
  });

  it('while rotating, the new key opens the previous seals; a box without the old key, an altered seal or garbage: null', async () => {
    const old = await (await secretBox(A)).seal('x');
    expect(await (await secretBox(B, A)).open(old)).toBe('x');
    expect(await (await secretBox(B)).open(old)).toBeNull();
    const body = old.split('.')[2]!;
    const flipped = `${old.slice(0, old.length - body.length)}${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    expect(await (await secretBox(A)).open(flipped)).toBeNull();
    expect(await (await secretBox(A)).open('not a seal')).toBeNull();
  });
});
