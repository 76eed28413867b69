/** The production random source: pooled draws from the platform CSPRNG. */
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../src/deps.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('cryptoRandom', () => {
  it('answers exactly the bytes asked for, small, across the pool edge, and large', () => {
    for (const n of [0, 1, 12, 16, 32, 511, 512, 513, 4096, 70_000]) expect(cryptoRandom.bytes(n).length).toBe(n);
  });

  it('never hands out the same bytes twice: 20,000 draws of 16 bytes, crossing many refills, are all distinct', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(hex(cryptoRandom.bytes(16)));
    expect(seen.size).toBe(20_000);
  });

  it('a draw is its own copy: changing it changes no later draw', () => {
    const a = cryptoRandom.bytes(32);
    a.fill(0);
    const b = cryptoRandom.bytes(32);
    expect(b.some((x) => x !== 0)).toBe(true);
    expect(b.buffer).not.toBe(a.buffer);
  });

  it('looks uniform: every byte value turns up in 256 KiB of small draws, none more than 1.2x its share', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 16_384; i++) for (const x of cryptoRandom.bytes(16)) counts[x]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(1.2 * 1024);
  });
});
