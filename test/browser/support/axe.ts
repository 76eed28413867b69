/**
 * axe-core on a page at 320, 390 and 1280 px (a small phone, a common phone, a laptop): the serious and critical violations (the suites expect
 * none), a full-page screenshot of each width into test/artifacts (`<prefix>-<name>-<width>.png`),
 * and no sideways scroll.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export const ARTIFACTS = join(process.cwd(), 'test/artifacts');
const AXE = readFileSync(join(process.cwd(), 'node_modules/axe-core/axe.min.js'), 'utf8');

export async function axeAtWidths(page: Page, prefix: string, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const bad: string[] = [];
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(`${AXE}\n;0`);
    const violations = (await page.evaluate(async () => {
      const r = await (
        window as unknown as {
          axe: {
            run(
              d: Document,
              o: object,
            ): Promise<{
              violations: { id: string; impact: string; nodes: { target: unknown[]; failureSummary?: string }[] }[];
            }>;
          };
        }
      ).axe.run(document, { resultTypes: ['violations'] });
      // where, and why (the first node's own words): enough to find it
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        where: `${JSON.stringify(v.nodes[0]?.target)} ${(v.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200)}`,
      }));
    })) as { id: string; impact: string; where: string }[];
    bad.push(
      ...violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${width}px ${v.id}: ${v.where}`),
    );
    await page.screenshot({ path: join(ARTIFACTS, `${prefix}-${name}-${width}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(1);
  }
  console.log(`${prefix} ${name}: axe serious/critical ${bad.length}`);
  expect(bad, `${name}: axe serious/critical`).toEqual([]);
}
