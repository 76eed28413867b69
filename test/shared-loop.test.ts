/**
 * The delivery loop requests share (src/lib/shared-loop.ts): callers during a pass make it go
 * round once more (not once each), the starter is told it started it, and a loop taken for dead
 * (older than staleAfterMs) is replaced and then stops on its own.
 */
import { describe, expect, it } from 'vitest';
import { joinLoop } from '../src/lib/shared-loop.js';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('joinLoop', () => {
  it('callers during a pass make one more round; only the first caller started it', async () => {
    const owner = {};
    let passes = 0;
    let release: () => void = () => {};
    const pass = async () => {
      passes += 1;
      if (passes === 1) await new Promise<void>((r) => (release = r));
      return 1;
    };
    const first = joinLoop(owner, 'x', pass);
    await tick();
    const joiners = [joinLoop(owner, 'x', pass), joinLoop(owner, 'x', pass), joinLoop(owner, 'x', pass)];
    expect([first.started, ...joiners.map((j) => j.started)]).toEqual([true, false, false, false]);
    expect(joiners.every((j) => j.promise === first.promise)).toBe(true);
    release();
    await first.promise;
    expect(passes).toBe(2);
    // done: the next caller starts a new loop
    const next = joinLoop(owner, 'x', pass);
    expect(next.started).toBe(true);
    await next.promise;
    expect(passes).toBe(3);
  });

  it('a loop older than staleAfterMs is replaced; the old one stops after its pass', async () => {
    const owner = {};
    const calls: string[] = [];
    let release: () => void = () => {};
    const stuck = joinLoop(
      owner,
      'x',
      async () => {
        calls.push('old');
        await new Promise<void>((r) => (release = r));
        return 1;
      },
      { staleAfterMs: 10 },
    );
    await tick(30);
    const fresh = joinLoop(
      owner,
      'x',
      async () => {
        calls.push('new');
        return 1;
      },
      { staleAfterMs: 10 },
    );
    expect(fresh.started).toBe(true);
    await fresh.promise;
    release();
    await stuck.promise;
    expect(calls.slice(0, 2)).toEqual(['old', 'new']);
    expect(calls.filter((c) => c === 'old')).toEqual(['old']);
  });
});
