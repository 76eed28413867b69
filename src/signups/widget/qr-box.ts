/**
 * The visitor's link as a QR code (for a poster, a slide, a phone held up to another): its short
 * form (`/r/{code}`), drawn in the browser when the visitor opens "QR code" (src/lib/qr.ts, no
 * request anywhere), with a download of the SVG.
 */
import { qrSvg } from '../../lib/qr.js';
import { el } from './dom.js';
import type { View } from './view.js';

export function qrSection(v: View, referralCode: string): HTMLElement {
  const link = `${v.apiBase}/r/${encodeURIComponent(referralCode)}`;
  const box = el('div', { class: 'qr-img' });
  const download = el('a', { class: 'btn', download: 'qr-code.svg' }, v.t('qrDownload'));
  const details = el(
    'details',
    { class: 'qr' },
    el('summary', {}, v.t('qrTitle')),
    box,
    el('p', {}, el('code', {}, link)),
    download,
  );
  details.addEventListener('toggle', () => {
    if (!(details as HTMLDetailsElement).open || box.firstChild) return;
    const svg = qrSvg(link, v.t('qrLabel'));
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    box.appendChild(document.importNode(doc.documentElement, true));
    download.setAttribute('href', `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
  });
  return details;
}
