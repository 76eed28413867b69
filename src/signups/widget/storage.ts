/**
 * What the widget keeps in this browser (localStorage, per contest): the visitor's entry token,
 * the share links already counted as visits, the rewards already shown unlocked. Storage may be
 * refused (private mode): the widget then lasts the visit.
 */

const tokenKey = (contest: string) => `ce-entry:${contest}`;

/** whether a storage event is about this contest's token */
export const isTokenKey = (key: string | null, contest: string) => key === tokenKey(contest);

export function storedToken(contest: string): string | null {
  try {
    return localStorage.getItem(tokenKey(contest));
  } catch {
    return null;
  }
}

export function rememberToken(contest: string, token: string | null) {
  try {
    if (token) localStorage.setItem(tokenKey(contest), token);
    else localStorage.removeItem(tokenKey(contest));
  } catch {
    /* storage refused (private mode): the visitor's page lasts this visit */
  }
}

/**
 * Whether `key` is seen for the first time in this browser (then remembered). Without storage,
 * never: a visit is then not counted on every load, a reward not highlighted on every load.
 */
export function firstTime(key: string): boolean {
  try {
    if (localStorage.getItem(key)) return false;
    localStorage.setItem(key, '1');
    return true;
  } catch {
    return false;
  }
}

/** the `#ce-entry=et_…` of a link from an email, once (the fragment is then taken off the address bar) */
export function tokenFromLink(): string | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('ce-entry');
  if (!token) return null;
  params.delete('ce-entry');
  const rest = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return /^et_[A-Za-z0-9]{40}$/.test(token) ? token : null;
}

/**
 * Whether `key` is seen for the first time today (UTC) in this browser (then remembered: one key
 * per contest, holding the day). Without storage, never (a view is then not counted).
 */
export function firstToday(key: string): boolean {
  const today = new Date().toISOString().slice(0, 10);
  try {
    if (localStorage.getItem(key) === today) return false;
    localStorage.setItem(key, today);
    return true;
  } catch {
    return false;
  }
}
