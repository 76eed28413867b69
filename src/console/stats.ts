/**
 * Pearson's chi-square test of observed counts against expected proportions, for the console's
 * realised-odds check of a game: the statistic, degrees of freedom and p-value (the chance of a
 * deviation at least this large if the configured odds are the true ones).
 */

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): about 15 significant digits for x > 0. */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function. */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = a * Math.log(x) - x - lnGamma(a);
  if (x < a + 1) {
    // series for P(a, x)
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.max(0, 1 - sum * Math.exp(lead));
  }
  // continued fraction for Q(a, x) (Lentz)
  let b = x + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.min(1, Math.exp(lead) * h);
}

export interface ChiSquare {
  statistic: number;
  degreesOfFreedom: number;
  pValue: number;
}

/**
 * Observed counts against expected proportions (summing to 1). Categories expected never
 * (proportion 0) count only if observed: any observation there makes p = 0. Null with fewer than
 * two possible categories or no observations.
 */
export function chiSquare(observed: number[], proportions: number[]): ChiSquare | null {
  const total = observed.reduce((s, x) => s + x, 0);
  const live = proportions.map((p, i) => [p, observed[i] ?? 0] as const).filter(([p]) => p > 0);
  if (proportions.some((p, i) => p <= 0 && (observed[i] ?? 0) > 0))
    return { statistic: Number.POSITIVE_INFINITY, degreesOfFreedom: Math.max(0, live.length - 1), pValue: 0 };
  if (total === 0 || live.length < 2) return null;
  const statistic = live.reduce((s, [p, o]) => s + (o - p * total) ** 2 / (p * total), 0);
  const degreesOfFreedom = live.length - 1;
  return { statistic, degreesOfFreedom, pValue: gammaQ(degreesOfFreedom / 2, statistic / 2) };
}
