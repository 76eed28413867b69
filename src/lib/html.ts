/**
 * HTML's five special characters escaped, for every page and email this service renders in
 * JavaScript. Statements escape with the database's twin, ce_escape_html
 * (src/db/functions/email-rendering.sql, called by sqlEscapeHtml); src/lib/html.test.ts holds
 * the two to the same answers.
 */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface HtmlDocument {
  title: string;
  /** what the head holds after the title: meta tags, styles, scripts */
  head?: string;
  body: string;
  /** `noindex` for pages that are nobody's landing page (the default); false for a public page */
  noindex?: boolean;
}

/**
 * Every HTML page this service serves is this one document: the language, the character set,
 * the viewport, the title (escaped here), no favicon request, and whatever head and body the page
 * gives. The HTTP headers (CSP, caching) are each page's own, set by src/http/page.ts.
 */
export function htmlDocument(d: HtmlDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${d.noindex === false ? '' : '<meta name="robots" content="noindex">\n'}<title>${escapeHtml(d.title)}</title>
<link rel="icon" href="data:,">
${d.head ? `${d.head}\n` : ''}</head>
<body>
${d.body}
</body>
</html>
`;
}
