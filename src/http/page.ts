/**
 * The small HTML pages the app serves itself (the widget's demo page, a draw's verification
 * page): one shell, a strict CSP (scripts only from this origin), no referrer, not cached, not
 * indexed. Each page gives its title, its own CSS rules, its body and its script (or none).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { htmlDocument } from '../lib/html.js';
import type { AppEnv } from './context.js';

const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  // only the app's own pages may frame these (the console's live preview of the widget)
  "frame-ancestors 'self'",
].join('; ');

const BASE_CSS =
  'body{margin:0;padding:24px 12px;background:#f3f4f6;color:#1f2937;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;line-height:1.5}\nh1{font-size:1.25rem}';

export interface PageOptions {
  title: string;
  body: string;
  /** CSS rules added after the shared ones */
  css?: string;
  /** a same-origin script path, e.g. /widget.js */
  script?: string | null;
  /** the main column's width in px (default 560) */
  width?: number;
}

export function htmlPage(c: Context<AppEnv>, status: ContentfulStatusCode, p: PageOptions) {
  c.header('Content-Security-Policy', PAGE_CSP);
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'SAMEORIGIN');
  c.header('Cache-Control', 'no-store');
  return c.html(
    htmlDocument({
      title: p.title,
      head: `<style>
${BASE_CSS}
main{max-width:${p.width ?? 560}px;margin:0 auto}
${p.css ?? ''}
</style>${p.script ? `\n<script src="${p.script}" defer></script>` : ''}`,
      body: `<main>\n${p.body}\n</main>`,
    }),
    status,
  );
}
