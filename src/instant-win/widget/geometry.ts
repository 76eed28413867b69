/**
 * Wheel geometry, pure (unit-tested without a browser). Angles are degrees clockwise from
 * 12 o'clock, where the pointer sits. Segment i spans [i*360/n, (i+1)*360/n) on the wheel;
 * rotating the wheel by R degrees clockwise puts wheel angle (-R mod 360) under the pointer.
 */

export const RADIUS = 96;

/** Which segment is under the pointer for a wheel of n equal segments rotated by `rotation`. */
export function segmentUnderPointer(rotation: number, n: number): number {
  const a = ((-rotation % 360) + 360) % 360;
  return Math.min(n - 1, Math.floor(a / (360 / n)));
}

/**
 * The rotation at which the wheel stops: at least `turns` full turns past `current`, with segment
 * `index` under the pointer. `jitter` (0..1) only moves the stop inside the segment (kept to the
 * middle 70% so the pointer is never ambiguous); it never changes which segment. `index` null
 * (the server's "No prize" without a miss tier on the wheel) stops exactly on a dividing line.
 */
export function targetRotation(current: number, index: number | null, n: number, jitter: number, turns = 5): number {
  const seg = 360 / n;
  const j = Math.min(Math.max(jitter, 0), 1);
  const landAt = index === null ? Math.floor(j * n) * seg : index * seg + seg * (0.15 + 0.7 * j);
  const wanted = (((-landAt - current) % 360) + 360) % 360;
  return current + turns * 360 + wanted;
}

/** A point on the circle of radius r at `deg` (clockwise from 12 o'clock), SVG coordinates. */
export function polar(r: number, deg: number): [number, number] {
  const rad = (deg * Math.PI) / 180;
  return [round(r * Math.sin(rad)), round(-r * Math.cos(rad))];
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** SVG path of segment i of n (a pie slice from the centre). */
export function segmentPath(i: number, n: number, r = RADIUS): string {
  if (n === 1) return `M0 ${-r}A${r} ${r} 0 1 1 0 ${r}A${r} ${r} 0 1 1 0 ${-r}Z`;
  const seg = 360 / n;
  const [x1, y1] = polar(r, i * seg);
  const [x2, y2] = polar(r, (i + 1) * seg);
  return `M0 0L${x1} ${y1}A${r} ${r} 0 ${seg > 180 ? 1 : 0} 1 ${x2} ${y2}Z`;
}

/** Black or white text, whichever reads better on a #rgb / #rrggbb colour (null: unknown format). */
export function textColorOn(color: string): '#111' | '#fff' | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return null;
  let hex = m[1]!;
  if (hex.length === 3) hex = [...hex].map((ch) => ch + ch).join('');
  const [r, g, b] = [0, 2, 4].map((k) => {
    const c = parseInt(hex.slice(k, k + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // contrast against white vs against near-black
  return 1.05 / (lum + 0.05) >= (lum + 0.05) / 0.057 ? '#fff' : '#111';
}

/** A label that fits a segment: shortened with an ellipsis (the full name is in the prize list). */
export function shortLabel(name: string, n: number): string {
  const max = n <= 4 ? 16 : n <= 8 ? 13 : 10;
  const s = name.trim();
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}\u2026`;
}

export const PALETTE = ['#4f46e5', '#f59e0b', '#10b981', '#ef4444', '#0ea5e9', '#a855f7', '#84cc16', '#ec4899'];
