/**
 * One background loop per owner (a process's or isolate's deps): the first caller starts it,
 * callers that come while it runs make it go round once more. Used for the delivery of outbound
 * events and email, where many requests in a row would otherwise each run their own pass.
 */
interface LoopState {
  running: Promise<void> | null;
  again: boolean;
  startedAt: number;
}

const states = new WeakMap<object, Map<string, LoopState>>();
/** owners whose loops are stopping (a server shutting down): no new loop, no further round */
const stopping = new WeakSet<object>();

export interface LoopOptions {
  /** after a pass that did nothing, wait this long before the next round (default 0) */
  idleGapMs?: number;
  /**
   * a loop running longer than this is taken for dead and a new one starts (Workers: a
   * request's waitUntil work can be cut off, and its `finally` then never runs); default never
   */
  staleAfterMs?: number;
}

/**
 * Joins the loop `name` of `owner`, running `pass` until no caller asked for another round (a
 * pass returns how much it did). `started`: this call started the loop, so it is the one whose
 * request keeps it alive (on Workers a request must not hold another request's work).
 */
export function joinLoop(
  owner: object,
  name: string,
  pass: () => Promise<number>,
  opts: LoopOptions = {},
): { promise: Promise<void>; started: boolean } {
  let byName = states.get(owner);
  if (!byName) {
    byName = new Map();
    states.set(owner, byName);
  }
  let s = byName.get(name);
  if (!s) {
    s = { running: null, again: false, startedAt: 0 };
    byName.set(name, s);
  }
  const state = s;
  if (stopping.has(owner)) return { promise: state.running ?? Promise.resolve(), started: false };
  const stale = opts.staleAfterMs !== undefined && Date.now() - state.startedAt > opts.staleAfterMs;
  if (state.running && !stale) {
    state.again = true;
    return { promise: state.running, started: false };
  }
  state.startedAt = Date.now();
  // this loop's own promise: a loop taken for dead that wakes up again stops and leaves the state alone
  const self: { promise: Promise<void> | null } = { promise: null };
  const current = () => state.running !== null && state.running === self.promise;
  self.promise = (async () => {
    await Promise.resolve(); // self.promise is set before the first pass
    try {
      let last = 1;
      do {
        if (last === 0 && opts.idleGapMs) await new Promise((r) => setTimeout(r, opts.idleGapMs));
        state.again = false;
        last = await pass();
      } while (state.again && current() && !stopping.has(owner));
    } finally {
      if (current()) state.running = null;
    }
  })();
  state.running = self.promise;
  return { promise: self.promise, started: true };
}

/**
 * Stops the loops of `owner` (a server shutting down): none starts any more, a running one ends
 * after the pass it is in (its batch is recorded), and the promise resolves when all have ended.
 */
export async function stopLoops(owner: object): Promise<void> {
  stopping.add(owner);
  const running = [...(states.get(owner)?.values() ?? [])].map((st) => st.running).filter((p) => p !== null);
  await Promise.allSettled(running);
}
