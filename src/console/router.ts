/** A small router over the History API: every page has its own URL, back and forward work. */
import { useEffect, useState } from 'hono/jsx/dom';

const NAV = 'ce-console-nav';

export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new Event(NAV));
}

/** The current path and query; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [href, setHref] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => setHref(location.pathname + location.search);
    addEventListener('popstate', update);
    addEventListener(NAV, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(NAV, update);
    };
  }, []);
  const u = new URL(href, location.origin);
  return { path: u.pathname.replace(/\/+$/, '') || '/', query: u.searchParams };
}

/** `pattern` like /console/contests/:id matched against `path`: the params, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) out[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
    else if (a[i] !== b[i]) return null;
  }
  return out;
}
