/**
 * Entry of /signup.js (bundled by scripts/build-widget.ts). Defines <contest-signup>; the API base
 * defaults to where this script was loaded from, so the two-line embed needs no api-base. It also
 * counts down a hosted page's end date (countdown.ts).
 */
import { startCountdowns } from './countdown.js';
import { ContestSignup, setDefaultApiBase } from './element.js';

function scriptBase(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  try {
    if (script?.src) {
      const u = new URL(script.src, location.href);
      const m = /^(.*)\/signup\.js$/.exec(u.pathname);
      return u.origin + (m ? m[1] : '');
    }
  } catch {
    /* fall through */
  }
  return location.origin;
}

setDefaultApiBase(scriptBase());
if (!customElements.get('contest-signup')) customElements.define('contest-signup', ContestSignup);
// the hosted page's end date and time left (the script is deferred: the page is parsed)
startCountdowns();
