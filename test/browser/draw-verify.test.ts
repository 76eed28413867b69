/**
 * The draw verification page (GET /draws/:drawId/verify?key=pk_...) in a real headless Chromium
 * (Debian's package, driven by playwright-core) against the real app: it recomputes a real
 * draw with WebCrypto and says so, and says MISMATCH for a tampered one; its strict CSP holds
 * (no inline script ran, nothing was blocked), and text from the API is shown as text.
 *
 * Without Chromium the suite is skipped, loudly.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/client.js';
import { createTestEnv, type TeamFixture, type TestEnv } from '../support/harness.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(
  (p): p is string => !!p && existsSync(p),
);
if (!CHROMIUM) {
  console.warn(
    '\n*** No Chromium found: the draw verification page BROWSER tests are SKIPPED. Install it with: apt-get install -y chromium ***\n',
  );
}

describe.skipIf(!CHROMIUM)('the draw verification page in a real browser', () => {
  let env: TestEnv;
  let team: TeamFixture;
  let browser: Browser;
  let server: ReturnType<typeof serve>;
  let origin = '';

  beforeAll(async () => {
    env = await createTestEnv();
    team = await env.team('Verify');
    server = serve({ fetch: env.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-dev-shm-usage',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
    await env?.close();
  });

  async function makeDraw() {
    const c = await env.contest(team.teamId);
    for (let i = 0; i < 30; i++) {
      const r = await env.request('POST', `/api/v1/contests/${c.id}/entries`, {
        key: team.privateKey,
        body: { email: `p${i}@example.com`, name: i === 3 ? '<img src=x onerror=alert(1)>' : `P ${i}` },
      });
      expect(r.status).toBe(201);
    }
    await query(
      env.db,
      sql`update entries set email_confirmed = true, points = 1 + (ascii(email) % 5) where contest_id = ${c.id}`,
    );
    const d = await env.request('POST', `/api/v1/contests/${c.id}/draws`, {
      key: team.privateKey,
      body: { winners: 5, weighting: 'points' },
    });
    expect(d.status).toBe(201);
    await env.request('POST', `/api/v1/draws/${d.body.data.id}/reveal`, {
      key: team.privateKey,
      body: { publicRandomness: 'drand 4242 <b>' },
    });
    const got = await env.request('GET', `/api/v1/draws/${d.body.data.id}`, { key: team.publicKey });
    await env.request('POST', `/api/v1/draws/${d.body.data.id}/results/${got.body.data.results[2].entryId}/replace`, {
      key: team.privateKey,
      body: { reason: '<script>x</script>' },
    });
    return d.body.data.id as string;
  }

  async function open(drawId: string) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('dialog', (d) => {
      problems.push(`dialog ${d.message()}`);
      void d.dismiss();
    });
    const res = await page.goto(`${origin}/draws/${drawId}/verify?key=${team.publicKey}`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('body[data-verdict]', { timeout: 20_000 });
    return { page, problems };
  }

  it('recomputes a real draw step by step and says verified', async () => {
    const drawId = await makeDraw();
    const { page, problems } = await open(drawId);
    expect(await page.getAttribute('body', 'data-verdict')).toBe('ok');
    expect(await page.textContent('#verdict')).toBe(
      'Verified: every winner and replacement follows from the committed seed and snapshot.',
    );
    const steps = await page.$$eval('#steps li', (lis) => lis.map((li) => li.textContent ?? ''));
    expect(steps.some((s) => s.startsWith('SHA-256 of the snapshot') && s.endsWith('OK'))).toBe(true);
    expect(steps.some((s) => s.startsWith('SHA-256 of the revealed seed') && s.endsWith('OK'))).toBe(true);
    expect(steps.at(-1)).toBe('Every winner recomputed from the seed and the snapshot. OK');
    const rows = await page.$$eval('#winners tbody tr', (trs) => trs.map((tr) => tr.lastElementChild?.textContent));
    expect(rows).toEqual(['OK', 'OK', 'OK', 'OK', 'OK', 'OK']);
    // the replacement reason is shown as text, not markup
    expect(
      await page.$$eval('#winners tbody tr td', (tds) =>
        tds.some((td) => td.textContent === 'yes: <script>x</script>'),
      ),
    ).toBe(true);
    expect(await page.$('#winners script')).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says MISMATCH for a tampered draw', async () => {
    const drawId = await makeDraw();
    await query(
      env.db,
      sql`update draw_results set entry_id = (select e.id from entries e join draws d on d.contest_id = e.contest_id
            where d.id = ${drawId} and e.id not in (select entry_id from draw_results where draw_id = ${drawId}) limit 1)
          where draw_id = ${drawId} and position = 4`,
    );
    const { page } = await open(drawId);
    expect(await page.getAttribute('body', 'data-verdict')).toBe('failed');
    expect(await page.textContent('#verdict')).toBe('A winner does not follow from the seed and snapshot.');
    const last = await page.$$eval('#winners tbody tr', (trs) => trs.at(-1)?.lastElementChild?.textContent ?? '');
    expect(last).toMatch(/^MISMATCH: [0-9a-f-]{36}$/);
    await page.close();
  });

  it('refuses a private key and a malformed draw id', async () => {
    const page = await browser.newPage();
    const sk = await page.goto(`${origin}/draws/00000000-0000-4000-8000-000000000000/verify?key=${team.privateKey}`);
    expect(sk!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('Private key refused');
    const bad = await page.goto(`${origin}/draws/nope/verify?key=${team.publicKey}`);
    expect(bad!.status()).toBe(404);
    await page.close();
  });
});
