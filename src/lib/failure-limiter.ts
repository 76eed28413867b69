/**
 * Counts failures per key (a client address) in a fixed window: after `max` failures the key is
 * refused until its window ends, whatever it sends, right or wrong. For guessing a secret (the
 * admin token): a guesser gets `max` tries a window, and the right token does not get through a
 * refusal either. Kept in memory: per process on Node, per isolate on Workers.
 */
export interface FailureLimiter {
  /** seconds the key must still wait (0: not refused) */
  refusedFor(key: string): number;
  /** one more failure of the key */
  fail(key: string): void;
}

export function memoryFailureLimiter(max: number, windowSeconds: number, now: () => number): FailureLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const windowMs = windowSeconds * 1000;
  const current = (key: string) => {
    const w = windows.get(key);
    if (w && now() - w.start < windowMs) return w;
    if (w) windows.delete(key);
    return undefined;
  };
  return {
    refusedFor(key) {
      const w = current(key);
      return w && w.count >= max ? Math.max(1, Math.ceil((w.start + windowMs - now()) / 1000)) : 0;
    },
    fail(key) {
      const w = current(key);
      if (w) w.count += 1;
      else {
        if (windows.size > 100_000) windows.clear();
        windows.set(key, { start: now(), count: 1 });
      }
    },
  };
}
