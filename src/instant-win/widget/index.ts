/**
 * Entry of /widget.js (bundled by scripts/build-widget.ts). Defines <instant-win-game>; the API
 * base defaults to where this script was loaded from, so the two-line embed needs no api-base.
 */
import { InstantWinGame, setDefaultApiBase } from './element.js';

function scriptBase(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  try {
    if (script?.src) {
      const u = new URL(script.src, location.href);
      const m = /^(.*)\/widget\.js$/.exec(u.pathname);
      return u.origin + (m ? m[1] : '');
    }
  } catch {
    /* fall through */
  }
  return location.origin;
}

setDefaultApiBase(scriptBase());
if (!customElements.get('instant-win-game')) customElements.define('instant-win-game', InstantWinGame);
