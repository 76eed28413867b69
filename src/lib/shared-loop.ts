/**
 * One background loop per owner (a process's deps): the first caller starts it, callers that come
 * while it runs make it go round once more, and every caller gets the loop's promise to keep
 * (deps.background). Used on Node for outbound events and email, where many requests in a row
 * would otherwise each run their own delivery pass.
 */
export interface LoopState {
  running: Promise<void> | null;
  again: boolean;
}

const states = new WeakMap<object, Map<string, LoopState>>();

/**
 * Joins the loop `name` of `owner`, running `pass` until no caller asked for another round. A
 * pass returns how much it did; after a pass that did nothing, the next round waits `idleGapMs`.
 */
export function joinLoop(owner: object, name: string, pass: () => Promise<number>, idleGapMs = 0): Promise<void> {
  let byName = states.get(owner);
  if (!byName) states.set(owner, (byName = new Map()));
  let s = byName.get(name);
  if (!s) byName.set(name, (s = { running: null, again: false }));
  const state = s;
  if (state.running) {
    state.again = true;
    return state.running;
  }
  state.running = (async () => {
    try {
      let last = 1;
      do {
        if (last === 0 && idleGapMs > 0) await new Promise((r) => setTimeout(r, idleGapMs));
        state.again = false;
        last = await pass();
      } while (state.again);
    } finally {
      state.running = null;
    }
  })();
  return state.running;
}
