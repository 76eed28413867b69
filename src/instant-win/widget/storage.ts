/**
 * What the widget remembers per game in the shop's localStorage: the device `playCookie` the
 * server handed out (sent back on every later play and claim, so entry limits hold), and an
 * unclaimed win (so a reload within 24 hours still offers the claim form). Falls back to memory
 * when storage is blocked (private modes, sandboxed frames).
 */
import type { Tier } from './api.js';

export interface Saved {
  cookie?: string;
  win?: { playId: string; result: Tier; at: number };
}

const memory = new Map<string, string>();

function store(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  try {
    const s = window.localStorage;
    const probe = '__iw_probe__';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return {
      getItem: (k) => memory.get(k) ?? null,
      setItem: (k, v) => void memory.set(k, v),
      removeItem: (k) => void memory.delete(k),
    };
  }
}

export const storageKey = (gameId: string) => `instant-win:${gameId}`;

export function loadSaved(gameId: string): Saved {
  try {
    const raw = store().getItem(storageKey(gameId));
    const v = raw ? JSON.parse(raw) : null;
    return v && typeof v === 'object' ? (v as Saved) : {};
  } catch {
    return {};
  }
}

export function saveSaved(gameId: string, saved: Saved): void {
  try {
    store().setItem(storageKey(gameId), JSON.stringify(saved));
  } catch {
    /* quota or blocked: the widget still works for this visit */
  }
}
