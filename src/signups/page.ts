/**
 * A contest's hosted page (GET /c/:contestId, docs/signups.md, "The hosted page"): the page a
 * team without a website sends people to. Its title, description and image, the sign-up widget
 * without a key, and the Open Graph and Twitter card tags a shared link's preview is made from.
 * Only a contest that takes public sign-ups has one. The `?ref=` of a share link is read by the
 * widget in the browser, so every share link of a contest is the same cached page.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import { isUuid, toBase64 } from '../lib/crypto.js';
import { escapeHtml } from '../lib/html.js';
import { type Theme, themeVariables } from '../lib/share-channels.js';

export interface HostedContest {
  id: string;
  title: string;
  description: string | null;
  imageUrl: string | null;
  theme: Theme;
  botCheck: 'off' | 'turnstile';
  publicCacheSeconds: number;
}

/** The contest of a hosted page: null for an unknown id, a game, or a contest without public sign-ups. */
export async function hostedContest(db: Db, contestId: string): Promise<HostedContest | null> {
  if (!isUuid(contestId)) return null;
  const row = await queryOne<{
    id: string;
    title: string;
    description: string | null;
    image_url: string | null;
    theme: Theme;
    bot_check: 'off' | 'turnstile';
    public_cache_seconds: number;
  }>(
    db,
    sql`select c.id, c.title, c.description, c.image_url, c.theme, c.bot_check, c.public_cache_seconds
        from ce_page_contest(${contestId}) c`,
  );
  if (!row) return null;
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    imageUrl: row.image_url,
    theme: row.theme,
    botCheck: row.bot_check,
    publicCacheSeconds: row.public_cache_seconds,
  };
}

const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

/** A description for previews: one line, at most 200 characters. */
function summary(c: HostedContest): string {
  const text = (c.description ?? `Join ${c.title}`).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The page's own stylesheet: the contest's theme as the widget's CSS variables, the layout. */
function pageCss(theme: Theme): string {
  const vars = themeVariables(theme, '--cs-').map(([name, value]) => `${name}:${value}`);
  return `:root{${vars.join(';')}}
*{box-sizing:border-box}
body{margin:0;padding:24px 12px 48px;background:#f3f4f6;color:#1f2937;font-family:var(--cs-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);line-height:1.5}
main{max-width:640px;margin:0 auto}
.hero{margin:0 auto 20px;max-width:440px}
.hero img{display:block;width:100%;height:auto;max-height:320px;object-fit:cover;border-radius:var(--cs-radius,16px)}
h1{font-size:1.6rem;line-height:1.25;margin:16px 0 8px}
.lead{margin:0;color:#374151;white-space:pre-line}
footer{margin:32px auto 0;max-width:440px;font-size:.85rem;color:#4b5563}`;
}

export interface HostedPage {
  html: string;
  csp: string;
}

/** The page's HTML and its Content-Security-Policy (the inline stylesheet allowed by its hash). */
export async function hostedPage(c: HostedContest, pageUrl: string): Promise<HostedPage> {
  const css = pageCss(c.theme);
  const cssHash = toBase64(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(css)));
  const turnstile = c.botCheck === 'turnstile';
  const csp = [
    "default-src 'none'",
    `script-src 'self'${turnstile ? ` ${TURNSTILE_ORIGIN}` : ''}`,
    "connect-src 'self'",
    `style-src 'sha256-${cssHash}'`,
    'img-src https: data:',
    turnstile ? `frame-src ${TURNSTILE_ORIGIN}` : '',
    "base-uri 'none'",
    "form-action 'none'",
    // only this service's own pages may frame it (the console's live preview)
    "frame-ancestors 'self'",
  ]
    .filter(Boolean)
    .join('; ');
  const e = escapeHtml;
  const description = summary(c);
  const image = c.imageUrl;
  const meta = [
    `<meta name="description" content="${e(description)}">`,
    `<link rel="canonical" href="${e(pageUrl)}">`,
    '<meta property="og:type" content="website">',
    `<meta property="og:title" content="${e(c.title)}">`,
    `<meta property="og:description" content="${e(description)}">`,
    `<meta property="og:url" content="${e(pageUrl)}">`,
    ...(image ? [`<meta property="og:image" content="${e(image)}">`] : []),
    `<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">`,
    `<meta name="twitter:title" content="${e(c.title)}">`,
    `<meta name="twitter:description" content="${e(description)}">`,
    ...(image ? [`<meta name="twitter:image" content="${e(image)}">`] : []),
  ].join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(c.title)}</title>
${meta}
<link rel="icon" href="data:,">
<style>${css}</style>
<script src="/signup.js" defer></script>
</head>
<body>
<main>
<header class="hero">
${image ? `<img src="${e(image)}" alt="">\n` : ''}<h1>${e(c.title)}</h1>
${c.description ? `<p class="lead">${e(c.description)}</p>\n` : ''}</header>
<contest-signup contest="${e(c.id)}" no-header></contest-signup>
<noscript><p>This page needs JavaScript to sign you up.</p></noscript>
</main>
</body>
</html>
`;
  return { html, csp };
}

/** The 404 page: no contest, or one that takes no public sign-ups (the same answer: it says nothing more). */
export const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Contest not found</title>
</head>
<body>
<main>
<h1>Contest not found</h1>
<p>This page does not exist, or the contest no longer takes sign-ups here.</p>
</main>
</body>
</html>
`;
