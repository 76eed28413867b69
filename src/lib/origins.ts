/**
 * The sites that embed a contest (its `allowedOrigins`) and the page a visitor signed up on (a
 * sign-up's `returnUrl`): the confirmation and the "your link" email bring the visitor back to
 * that page when its origin is one of the contest's, and never to any other origin.
 */

/** How many sites a contest may name. */
export const ALLOWED_ORIGINS_MAX = 20;

export const ALLOWED_ORIGIN_MESSAGE =
  'allowedOrigins must be origins like https://shop.example.com (or http://localhost:port, http://127.0.0.1:port)';

/** an https origin, or http on this machine's own names (a developer's page) */
const ORIGIN_FORM = /^(https:\/\/[^/?#@\s]+|http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?)$/i;

/** `s` as the origin the browser would send (lowercase host, no default port), or null when it is not one. */
export function normalOrigin(s: string): string | null {
  const trimmed = s.trim().replace(/\/$/, '');
  if (!ORIGIN_FORM.test(trimmed)) return null;
  try {
    const u = new URL(trimmed);
    return u.origin === 'null' ? null : u.origin;
  } catch {
    return null;
  }
}

/** A page's address without its fragment, and its origin; null when it is not an http(s) URL. */
export function returnPage(s: string): { href: string; origin: string } | null {
  try {
    const u = new URL(s);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    if (u.username || u.password) return null;
    u.hash = '';
    return { href: u.href, origin: u.origin };
  } catch {
    return null;
  }
}
