/**
 * The draw, as a pure function of the random number and the tiers. The play statement
 * (play.ts) does exactly the same in SQL (a running sum of oddsPercent in tier order, first tier
 * whose running sum is above r); this function is the readable definition, used by the
 * distribution test and cross-checked against the SQL on stored plays.
 */
import type { RandomSource } from '../deps.js';
import { randomUnit } from '../lib/crypto.js';

export interface OddsTier {
  oddsPercent: number;
}

/** Largest double below 100: r must stay in [0, 100). */
const BELOW_100 = 99.99999999999999;

/** A uniform random number in [0, 100) from the injected random source (crypto.getRandomValues). */
export function drawNumber(random: RandomSource): number {
  return Math.min(randomUnit(random) * 100, BELOW_100);
}

/**
 * The tier that `r` (uniform in [0, 100)) picks: tiers are laid end to end in order, each as
 * wide as its oddsPercent, and r falls into exactly one of them. A tier with 0 odds is never
 * picked. Odds may add up to 100 only within 0.000001, so r can land past the end: then the
 * last tier with positive odds is picked.
 */
export function drawTier<T extends OddsTier>(r: number, tiers: readonly T[]): T | undefined {
  let cumulative = 0;
  let lastPositive: T | undefined;
  for (const tier of tiers) {
    cumulative += tier.oddsPercent;
    if (tier.oddsPercent > 0) lastPositive = tier;
    if (r < cumulative) return tier;
  }
  return lastPositive;
}
