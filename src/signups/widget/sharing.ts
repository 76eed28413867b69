/**
 * The visitor's share link and the buttons of the contest's `shareChannels`, in that order: plain
 * links to each network's share address (nothing is loaded from a network until the visitor
 * clicks), Copy (`copy`), the browser's share sheet (`native`, where the browser has one). A
 * channel not in the list has no button. Each click is counted (POST /api/v1/me/shares). And the
 * share link a page was opened with (`?ref=<code>&via=<channel>`).
 */
import { SHARE_CHANNELS, type ShareChannel, textOnAccent } from '../../lib/share-channels.js';
import type { Me } from './api.js';
import { copyText, el } from './dom.js';
import { CHANNEL_LOOKS, iconOf } from './icons.js';
import { qrSection } from './qr-box.js';
import type { Strings } from './strings.js';
import type { View } from './view.js';

export function shareSection(v: View, me: Me, token: string): HTMLElement[] {
  const c = v.config;
  const count = (channel: string) =>
    void v.api('POST', '/api/v1/me/shares', { token, body: { channel } }).catch(() => {});
  const link = shareLink(me.referralCode, 'copy');
  const linkInput = el('input', { id: 'cs-link', type: 'text', readonly: '', value: link }) as HTMLInputElement;
  const copied = el('p', { class: 'msg', role: 'status', 'aria-live': 'polite' });
  const buttons: HTMLElement[] = [];
  const phone = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  for (const channel of c.shareChannels ?? []) {
    if (channel === 'copy') {
      const copy = el('button', { type: 'button', 'data-channel': 'copy' }, v.t('copy'));
      copy.addEventListener('click', () => {
        count('copy');
        void copyText(link, copied, v.t('copied'), linkInput);
      });
      buttons.push(copy);
      continue;
    }
    if (channel === 'native') {
      if (typeof navigator.share !== 'function') continue;
      const native = el('button', { type: 'button', 'data-channel': 'native' }, v.t('share'));
      native.addEventListener('click', () => {
        count('native');
        const url = shareLink(me.referralCode, 'native');
        void navigator.share({ url, text: message(c.shareMessage, url), title: c.title }).catch(() => {});
      });
      buttons.push(native);
      continue;
    }
    if (channel === 'sms' && !phone) continue;
    const key = `share${channel[0]!.toUpperCase()}${channel.slice(1)}` as keyof Strings;
    if (!(key in v.strings)) continue;
    const url = shareUrl(channel, shareLink(me.referralCode, channel), c.shareMessage, c.title);
    const a = el(
      'a',
      { class: 'btn', href: url, target: '_blank', rel: 'noopener noreferrer', 'data-channel': channel },
      v.t(key),
    );
    // the network's icon and colour, its text white or black, whichever reads on it
    const look = CHANNEL_LOOKS[channel as ShareChannel];
    if (look) {
      a.insertBefore(iconOf(look), a.firstChild);
      a.style.setProperty('--cs-ch', look.colour);
      a.style.setProperty('--cs-ch-text', textOnAccent(look.colour));
    }
    a.addEventListener('click', () => count(channel));
    buttons.push(a);
  }
  return [
    el('label', { for: 'cs-link' }, v.t('shareTitle')),
    el('div', { class: 'share' }, linkInput),
    el('div', { class: 'share', role: 'group', 'aria-label': v.t('shareVia') }, ...buttons),
    copied,
    qrSection(v, me.referralCode),
  ];
}

/** the contest's share message with the visitor's link for one channel */
const message = (template: string, link: string) => template.split('{{link}}').join(link);

/** a network's share address for the link (`template`: the team's words around it) */
function shareUrl(channel: string, link: string, template: string, title: string): string {
  const e = encodeURIComponent;
  const text = message(template, link);
  const words = message(template, '').trim() || title;
  switch (channel) {
    case 'x':
      return `https://x.com/intent/post?text=${e(text)}`;
    case 'facebook':
      return `https://www.facebook.com/sharer/sharer.php?u=${e(link)}`;
    case 'linkedin':
      return `https://www.linkedin.com/sharing/share-offsite/?url=${e(link)}`;
    case 'whatsapp':
      return `https://wa.me/?text=${e(text)}`;
    case 'telegram':
      return `https://t.me/share/url?url=${e(link)}&text=${e(words)}`;
    case 'reddit':
      return `https://www.reddit.com/submit?url=${e(link)}&title=${e(words)}`;
    case 'email':
      return `mailto:?subject=${e(title)}&body=${e(text)}`;
    default:
      return `sms:?&body=${e(text)}`;
  }
}

/** this page's address as the visitor's share link for `channel` */
function shareLink(code: string, channel: string): string {
  const url = new URL(location.href);
  url.hash = '';
  url.searchParams.set('ref', code);
  url.searchParams.set('via', channel);
  return url.toString();
}

/** the referral code of a share link this page was opened with (`?ref=`) */
export function refOfPage(): string | null {
  const ref = new URLSearchParams(location.search).get('ref')?.trim();
  return ref && ref.length <= 100 ? ref : null;
}

/** its channel (`&via=`), when it is one the service knows */
export function viaOfPage(): string | null {
  const via = new URLSearchParams(location.search).get('via');
  return via && (SHARE_CHANNELS as readonly string[]).includes(via) ? via : null;
}

/**
 * This page's address for the emails to lead back to (the sign-up's `returnUrl`): without its
 * fragment and the share link's `ref` and `via`; null on a page that is not http(s) or too long.
 */
export function returnUrlOfPage(): string | null {
  const url = new URL(location.href);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hash = '';
  url.searchParams.delete('ref');
  url.searchParams.delete('via');
  const href = url.toString();
  return href.length <= 2000 ? href : null;
}
