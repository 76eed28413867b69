/** The console's chi-square p-value against known values of the chi-square distribution. */
import { describe, expect, it } from 'vitest';
import { chiSquare, gammaQ } from './stats.js';

describe('chi-square', () => {
  it('p-values match the distribution tables', () => {
    // P(chi2_k > x): k=1 x=3.841 -> 0.05; k=3 x=16.27 -> 0.001; k=10 x=18.307 -> 0.05; k=2 x=2 -> e^-1
    expect(gammaQ(0.5, 3.841 / 2)).toBeCloseTo(0.05, 3);
    expect(gammaQ(1.5, 16.27 / 2)).toBeCloseTo(0.001, 4);
    expect(gammaQ(5, 18.307 / 2)).toBeCloseTo(0.05, 3);
    expect(gammaQ(1, 1)).toBeCloseTo(Math.exp(-1), 12);
    expect(gammaQ(2, 0)).toBe(1);
  });

  it('tests counts against proportions', () => {
    expect(chiSquare([50, 50], [0.5, 0.5])).toEqual({ statistic: 0, degreesOfFreedom: 1, pValue: 1 });
    const r = chiSquare([60, 40], [0.5, 0.5])!;
    expect(r.statistic).toBeCloseTo(4, 10);
    expect(r.pValue).toBeCloseTo(0.0455, 4);
    expect(chiSquare([0, 0], [0.5, 0.5])).toBeNull();
    expect(chiSquare([5, 1], [1, 0])).toEqual({ statistic: Number.POSITIVE_INFINITY, degreesOfFreedom: 0, pValue: 0 });
    expect(chiSquare([10, 20, 0], [0.25, 0.75, 0])!.degreesOfFreedom).toBe(1);
  });
});
