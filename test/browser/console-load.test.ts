/**
 * The console's useLoad in Chromium: when what a page shows changes before the first load's
 * effect ran (hono/jsx/dom runs effects on the next animation frame), and the first answer
 * arrives after the second, the page shows the second. The console once showed the confirmation
 * email's subject after the operator had picked the reward email (a CI run on a loaded machine).
 * Skipped, loudly, without Chromium.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, warnIfNoChromium } from './support/chromium.js';

warnIfNoChromium('the console useLoad BROWSER test');

/** A page holding one useLoad whose answers the test gives, in the order it chooses. */
const PROBE = `
import { render, useState } from 'hono/jsx/dom';
import { useLoad } from './src/console/ui.tsx';
const waiting = {};
window.answer = (kind, value) => waiting[kind](value);
window.asked = () => Object.keys(waiting).sort().join(',');
function Probe() {
  const [kind, setKind] = useState('confirmation');
  const r = useLoad(() => new Promise((resolve) => { waiting[kind] = resolve; }), [kind]);
  return (
    <main>
      <button id="pick" onClick={() => setKind('reward')}>reward</button>
      <output id="shown">{r.data ?? ''}</output>
    </main>
  );
}
render(<Probe />, document.getElementById('root'));
// the person picks another email before the first frame: the first load's effect has not run yet
document.getElementById('pick').click();
`;

describe.skipIf(!CHROMIUM)('the console useLoad in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an answer for what the page no longer shows is dropped, whichever arrives last', async () => {
    const out = await build({
      stdin: { contents: PROBE, resolveDir: join(process.cwd()), loader: 'tsx' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      jsx: 'automatic',
      jsxImportSource: 'hono/jsx/dom',
      write: false,
      logLevel: 'silent',
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setContent('<div id="root"></div>');
    await page.addScriptTag({ content: out.outputFiles[0]!.text, type: 'module' });
    // both loads started: the first (its effect ran late) and the one for the picked email
    await expect
      .poll(() => page.evaluate(() => (window as never as { asked(): string }).asked()))
      .toBe('confirmation,reward');
    const answer = (kind: string, value: string) =>
      page.evaluate(([k, v]) => (window as never as { answer(k: string, v: string): void }).answer(k, v), [
        kind,
        value,
      ] as const);
    await answer('reward', 'You unlocked {{reward}}');
    await expect.poll(() => page.locator('#shown').textContent()).toBe('You unlocked {{reward}}');
    await answer('confirmation', 'Confirm your entry');
    // two frames later, the late answer has had every chance to land
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    expect(await page.locator('#shown').textContent()).toBe('You unlocked {{reward}}');
    expect(errors).toEqual([]);
    await page.close();
  });
});
