/**
 * The draw as a pure function: tier boundaries, zero odds, rounding at the top end, and a
 * chi-square test of 100,000 draws with the real random source (crypto.getRandomValues).
 * (That the SQL draw of a play picks the same tier as drawTier() for its stored number is
 * checked in instant-win.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { cryptoRandom, type RandomSource } from '../deps.js';
import { drawNumber, drawTier } from './draw.js';

const tiers = (...odds: number[]) => odds.map((oddsPercent, i) => ({ name: `t${i}`, oddsPercent }));

describe('drawTier', () => {
  it('lays the tiers end to end in order: [0,30) first, [30,55.5) second, [55.5,100) third', () => {
    const t = tiers(30, 25.5, 44.5);
    const pick = (r: number) => drawTier(r, t)!.name;
    expect([0, 29.999999, 30, 55.4999999, 55.5, 99.9999999].map(pick)).toEqual(['t0', 't0', 't1', 't1', 't2', 't2']);
  });

  it('never picks a tier with 0 odds, wherever it stands', () => {
    const t = tiers(0, 50, 0, 50, 0);
    for (const r of [0, 1e-12, 49.99, 50, 99.99]) expect(['t1', 't3']).toContain(drawTier(r, t)!.name);
  });

  it('odds adding up to a hair under 100: a number past the end gets the last tier with odds', () => {
    const t = tiers(33.3333333, 33.3333333, 33.3333333, 0);
    expect(drawTier(99.99999995, t)!.name).toBe('t2');
    expect(drawTier(5, [])).toBeUndefined();
  });

  it('drawNumber stays in [0, 100) even for the largest 53-bit value', () => {
    const max: RandomSource = { bytes: (n) => new Uint8Array(n).fill(255) };
    const zero: RandomSource = { bytes: (n) => new Uint8Array(n) };
    expect(drawNumber(max)).toBeLessThan(100);
    expect(drawNumber(max)).toBeGreaterThan(99.999999);
    expect(drawNumber(zero)).toBe(0);
  });
});

describe('distribution', () => {
  it('100,000 draws with crypto.getRandomValues match the odds (chi-square, p > 0.001)', () => {
    const t = tiers(40, 30, 20, 9.5, 0.5); // 5 tiers: 4 degrees of freedom
    const n = 100_000;
    const counts = new Map<string, number>(t.map((x) => [x.name, 0]));
    for (let i = 0; i < n; i++) {
      const name = drawTier(drawNumber(cryptoRandom), t)!.name;
      counts.set(name, counts.get(name)! + 1);
    }
    let chi2 = 0;
    for (const x of t) {
      const expected = (n * x.oddsPercent) / 100;
      chi2 += (counts.get(x.name)! - expected) ** 2 / expected;
    }
    // survival function of chi-square with 4 degrees of freedom: e^(-x/2) (1 + x/2)
    const p = Math.exp(-chi2 / 2) * (1 + chi2 / 2);
    console.log(
      `draw distribution: counts ${JSON.stringify(Object.fromEntries(counts))} for odds 40/30/20/9.5/0.5, chi2 = ${chi2.toFixed(3)}, p = ${p.toFixed(4)}`,
    );
    expect(p).toBeGreaterThan(0.001);
    // and the test can fail: a draw that ignores the last tier is caught
    const skewed = counts.get('t4')! ** 2 / ((n * 0.5) / 100); // chi2 contribution if t4 were never drawn
    expect(Math.exp(-skewed / 2) * (1 + skewed / 2)).toBeLessThan(0.001);
  });
});
