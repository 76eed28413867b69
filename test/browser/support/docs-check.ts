/**
 * The /docs check shared by the Node and the `npm run dev` browser tests.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { watchedPage } from './chromium.js';

const ARTIFACTS = join(process.cwd(), 'test/artifacts');

export async function checkDocsPage(browser: Browser, origin: string, screenshot: string) {
  const doc = (await (await fetch(`${origin}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, summary: op.summary ?? '' })),
  );
  expect(operations.length).toBeGreaterThan(20);

  const { ctx, page, requests, problems } = await watchedPage(browser, origin);
  try {
    const loaded = page.waitForResponse((r) => r.url() === `${origin}/api/v1/openapi.json`);
    await page.goto(`${origin}/docs`);
    expect((await loaded).status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    await page.locator('.info .title').first().waitFor();

    // every operation is listed, with its method, path and summary as the document gives them
    const shown = await page.locator('.opblock').evaluateAll((els) =>
      els.map((el) => ({
        method: el.querySelector('.opblock-summary-method')?.textContent?.trim().toLowerCase() ?? '',
        path: el.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        summary: el.querySelector('.opblock-summary-description')?.textContent?.trim() ?? '',
      })),
    );
    const key = (o: { method: string; path: string; summary: string }) => `${o.method} ${o.path} ${o.summary}`;
    expect(shown.map(key).sort()).toEqual(operations.map(key).sort());
    expect(await page.locator('.info .title').first().textContent()).toContain('Contest Engine API');

    // open one operation: its details render too (parameters, responses)
    const one = page.locator('.opblock').filter({ hasText: '/api/v1/contests' }).first();
    await one.locator('.opblock-summary').first().click();
    await one.locator('.responses-wrapper').waitFor();

    // try one out: the request goes to the app (connect-src 'self') and the answer is shown
    const health = page.locator('.opblock').filter({ hasText: '/health' }).first();
    await health.locator('.opblock-summary').first().click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    const answered = page.waitForResponse((r) => r.url() === `${origin}/health`);
    await health.getByRole('button', { name: 'Execute' }).click();
    expect((await answered).status()).toBe(200);
    await expect
      .poll(() => health.locator('.live-responses-table tr.response .response-col_status').first().textContent())
      .toContain('200');
    await expect
      .poll(() =>
        health.locator('.live-responses-table tr.response .response-col_description pre').first().textContent(),
      )
      .toContain('"ok"');

    // the schemas section expands too
    const models = page.locator('section.models');
    if (await models.count()) {
      await models.locator('h4').first().click();
      await models.locator('.model-container').first().waitFor();
    }

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `${screenshot}.png`) });

    // nothing left the app's origin (data: images are not requests to a host)
    const elsewhere = requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(requests).toContain(`${origin}/docs/assets/swagger-ui-bundle.js`);
    expect(requests).toContain(`${origin}/docs/assets/swagger-ui.css`);
    expect(problems).toEqual([]);
  } finally {
    await ctx.close();
  }
}
