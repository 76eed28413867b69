/**
 * The wheel: an SVG drawn from the game's tiers (equal segments, each in the tier's colour with
 * its name), spun with the Web Animations API to the segment of the tier the SERVER returned.
 */
import type { Tier } from './api.js';
import { PALETTE, polar, RADIUS, segmentPath, shortLabel, targetRotation, textColorOn } from './geometry.js';

export interface StageView {
  el: Element;
  /** animates to `result` (already decided by the server); resolves when the player can see it */
  show(result: Tier, reducedMotion: boolean): Promise<void>;
}

const NS = 'http://www.w3.org/2000/svg';
const SPIN_MS = 4200;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A tier's colour if the browser understands it, else one from the palette. */
export function tierColor(tier: Tier, i: number): string {
  const c = typeof tier.color === 'string' ? tier.color.trim() : '';
  if (c && typeof CSS !== 'undefined' && CSS.supports('color', c)) return c;
  return PALETTE[i % PALETTE.length]!;
}

/** Index of the server's result on the wheel: by tier id, then by name; -1 when not on the wheel. */
export function resultIndex(tiers: Tier[], result: Tier): number {
  if (result.id != null) {
    const i = tiers.findIndex((t) => t.id === result.id);
    if (i >= 0) return i;
  }
  return result.id == null ? -1 : tiers.findIndex((t) => t.name === result.name);
}

export function createWheel(tiers: Tier[]): StageView {
  const n = Math.max(tiers.length, 1);
  const root = svg('svg', {
    viewBox: '-110 -110 220 220',
    role: 'img',
    part: 'wheel',
    'aria-label': `Prize wheel with ${tiers.length} segments: ${tiers.map((t) => t.name).join(', ')}`,
  });
  const rot = svg('g', { class: 'rot' });
  const fontSize = n <= 4 ? 11 : n <= 8 ? 9.5 : 8;
  tiers.forEach((tier, i) => {
    const fill = tierColor(tier, i);
    const path = svg('path', {
      class: 'seg',
      d: segmentPath(i, n),
      fill,
      stroke: '#fff',
      'stroke-width': 1.5,
      'data-index': i,
      'data-tier-id': tier.id ?? '',
    });
    const title = svg('title', {});
    title.textContent = tier.name;
    path.appendChild(title);
    rot.appendChild(path);

    const mid = (i + 0.5) * (360 / n);
    const right = mid <= 180;
    const label = shortLabel(tier.name, n);
    const ink = textColorOn(fill);
    const text = svg('text', {
      x: right ? 56 : -56,
      y: 0,
      transform: `rotate(${right ? mid - 90 : mid + 90})`,
      'text-anchor': 'middle',
      'dominant-baseline': 'central',
      'font-size': fontSize,
      'font-weight': 700,
      'font-family': 'system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif',
      fill: ink ?? '#fff',
      'aria-hidden': 'true',
    });
    if (!ink) {
      text.setAttribute('stroke', 'rgba(0,0,0,.6)');
      text.setAttribute('stroke-width', '2');
      text.setAttribute('paint-order', 'stroke');
    }
    if (label.length * fontSize * 0.62 > 72) {
      text.setAttribute('textLength', '72');
      text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
    text.textContent = label;
    rot.appendChild(text);
  });
  root.appendChild(rot);
  root.appendChild(svg('circle', { class: 'rim', r: RADIUS + 2, fill: 'none', stroke: '#1f2937', 'stroke-width': 4 }));
  root.appendChild(svg('circle', { class: 'hub', r: 13, fill: '#fff', stroke: '#1f2937', 'stroke-width': 3 }));
  const [tx, ty] = polar(RADIUS - 12, 0);
  root.appendChild(
    svg('path', {
      class: 'ptr',
      d: `M-11 -109L11 -109L${tx} ${ty}Z`,
      fill: '#1f2937',
      stroke: '#fff',
      'stroke-width': 2,
      'stroke-linejoin': 'round',
    }),
  );

  let rotation = 0;
  return {
    el: root,
    async show(result, reducedMotion) {
      const idx = resultIndex(tiers, result);
      const from = rotation % 360;
      const to = targetRotation(from, idx >= 0 ? idx : null, n, Math.random(), reducedMotion ? 1 : 6);
      rotation = to;
      rot.querySelector('.won')?.classList.remove('won');
      if (!reducedMotion && typeof rot.animate === 'function') {
        const anim = rot.animate([{ transform: `rotate(${from}deg)` }, { transform: `rotate(${to}deg)` }], {
          duration: SPIN_MS,
          easing: 'cubic-bezier(.12,.72,.16,1)',
          fill: 'forwards',
        });
        await anim.finished.catch(() => undefined);
        rot.style.transform = `rotate(${to}deg)`;
        anim.cancel();
      } else {
        rot.style.transform = `rotate(${to}deg)`;
      }
      if (idx >= 0) rot.querySelector(`[data-index="${idx}"]`)?.classList.add('won');
    },
  };
}
