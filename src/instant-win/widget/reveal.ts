/**
 * The shared reveal for every mechanic but the wheel: a tile that shakes and then shows the
 * tier the server returned, in its colour.
 */
import type { Tier } from './api.js';
import { textColorOn } from './geometry.js';
import { type StageView, tierColor } from './wheel.js';

/** per mechanic: tile label, action button, gradient colours, text colour */
export const MECHANICS: Record<string, [string, string, string, string, string]> = {
  wheel: ['Prize wheel', 'Spin the wheel', '#4f46e5', '#a855f7', '#fff'],
  scratch: ['Scratch card', 'Scratch the card', '#6b7280', '#d1d5db', '#111'],
  box: ['Mystery box', 'Open the box', '#92400e', '#f59e0b', '#fff'],
  advent: ["Today's door", "Open today's door", '#991b1b', '#15803d', '#fff'],
  plinko: ['Plinko', 'Drop the ball', '#0369a1', '#6366f1', '#fff'],
  slots: ['Slot machine', 'Pull the lever', '#be185d', '#f59e0b', '#fff'],
  egg: ['Golden egg', 'Crack the egg', '#b45309', '#fde68a', '#111'],
  claw: ['Claw machine', 'Grab a prize', '#0f766e', '#22d3ee', '#111'],
};
const FALLBACK: [string, string, string, string, string] = ['Mystery prize', 'Play', '#4f46e5', '#a855f7', '#fff'];

export const mechanicInfo = (mechanic: string | undefined) => MECHANICS[mechanic ?? ''] ?? FALLBACK;

export function createTile(mechanic: string | undefined): StageView {
  const [label, , a, b, ink] = mechanicInfo(mechanic);
  const tile = document.createElement('div');
  tile.className = 'tile';
  tile.setAttribute('part', 'tile');
  tile.setAttribute('role', 'img');
  const reset = () => {
    tile.style.setProperty('--iw-a', a);
    tile.style.setProperty('--iw-b', b);
    tile.style.setProperty('--iw-t', ink);
    tile.textContent = '?';
    tile.setAttribute('aria-label', `${label}, not yet revealed`);
  };
  reset();
  return {
    el: tile,
    async show(result: Tier, reducedMotion) {
      reset();
      tile.classList.remove('shown');
      if (!reducedMotion) {
        tile.classList.add('shake');
        await new Promise((r) => setTimeout(r, 900));
        tile.classList.remove('shake');
      }
      const color = result.color ? tierColor(result, 0) : null;
      if (color) {
        tile.style.setProperty('--iw-a', color);
        tile.style.setProperty('--iw-b', color);
        tile.style.setProperty('--iw-t', textColorOn(color) ?? '#fff');
      }
      tile.textContent = result.name;
      tile.setAttribute('aria-label', `${label}: ${result.name}`);
      tile.classList.add('shown');
    },
  };
}
