/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser), for the browser
 * suites. Without it they are skipped, loudly.
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(
  (p): p is string => !!p && existsSync(p),
);

export function warnIfNoChromium(what: string) {
  if (CHROMIUM) return;
  console.warn(
    `\n*** No Chromium found (/usr/lib/chromium/chromium, /usr/bin/chromium or CHROMIUM_PATH): ${what} are SKIPPED. ` +
      'Install it with: apt-get update && apt-get install -y chromium ***\n',
  );
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export interface WatchedPage {
  ctx: BrowserContext;
  page: Page;
  /** every request the page made (URL), in order, whether it was let through or not */
  requests: string[];
  /** page errors, console errors and Content-Security-Policy violations */
  problems: string[];
}

/**
 * A fresh context whose every request is recorded; requests to any origin other than `origin`
 * are aborted (the page must work as if the network let nothing else through).
 */
export async function watchedPage(
  browser: Browser,
  origin: string,
  opts: { reducedMotion?: boolean } = {},
): Promise<WatchedPage> {
  const ctx = await browser.newContext({
    viewport: { width: 1200, height: 900 },
    reducedMotion: opts.reducedMotion ? 'reduce' : 'no-preference',
  });
  const requests: string[] = [];
  const problems: string[] = [];
  ctx.on('request', (r) => requests.push(r.url()));
  await ctx.route('**/*', (route) =>
    new URL(route.request().url()).origin === origin ? route.continue() : route.abort('blockedbyclient'),
  );
  const page = await ctx.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return { ctx, page, requests, problems };
}
