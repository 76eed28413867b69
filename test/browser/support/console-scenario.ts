/**
 * The operator console's scenario in a real Chromium (test/browser/console-node.test.ts runs it
 * against `npm start`, console-worker.test.ts against `npm run dev`; two files, so the two runs go
 * side by side): sign in with the admin token, create a team and its keys, sign in with the
 * private key, see entries made through the API appear, find one by search, approve a flagged one,
 * adjust points, run a draw from commit to reveal, retry a failed delivery, download the CSV, see
 * the Integrations section say how to turn it on.
 * axe-core runs on every page (0 serious or critical violations), at 1280 and 390 px, and each
 * page's screenshot is written to test/artifacts/console/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { watchedPage } from './chromium.js';
import { DEV_ADMIN_TOKEN as ADMIN } from './dev-server.js';
import { freePort } from './net.js';

const root = process.cwd();
const ARTIFACTS = join(root, 'test/artifacts/console');
const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** What a user would see checked on every page: axe (serious/critical), both widths, a screenshot. */
export async function checkPage(page: Page, runtime: string, name: string, results: Record<string, number>) {
  await page.waitForLoadState('networkidle');
  const bad: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // the console marks a table that scrolls at this width as a tab stop on the next frame
    // (main.tsx, on resize): let that frame pass before axe looks
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // evaluated by the driver (not an inline script, which the page's CSP rightly refuses)
    await page.evaluate(`${AXE}\n;0`);
    const violations = (await page.evaluate(async () => {
      const r = await (
        window as unknown as {
          axe: {
            run(
              ctx: Document,
              o: object,
            ): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }>;
          };
        }
      ).axe.run(document, {
        resultTypes: ['violations'],
      });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, n: v.nodes.length }));
    })) as Array<{ id: string; impact: string; n: number }>;
    bad.push(
      ...violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${width}px ${v.id} (${v.impact}, ${v.n})`),
    );
    await page.screenshot({ path: join(ARTIFACTS, `${runtime}-${name}-${width}.png`), fullPage: true });
    // nothing wider than the window at 390 px but the tables, which scroll on their own
    if (width === 390) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      // the elements that stick out, to name them when this fails
      const wide =
        overflow > 1
          ? await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && (e.tagName === 'TABLE' || !e.closest('table')))
        .slice(-3).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + [...e.classList].join('.'))`)
          : [];
      expect(overflow, `${name} at 390 px scrolls sideways: ${JSON.stringify(wide)}`).toBeLessThanOrEqual(1);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  results[name] = bad.length;
  expect(bad, `${runtime} ${name}: axe serious/critical`).toEqual([]);
}

export async function api<T = any>(
  origin: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = opts.key ? { 'x-api-key': opts.key } : { authorization: `Bearer ${ADMIN}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${origin}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

export async function scenario(browser: Browser, origin: string, runtime: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const axeResults: Record<string, number> = {};
  const { ctx, page, requests, problems } = await watchedPage(browser, origin);
  try {
    // ---- sign in: a public key is refused in a sentence, the admin token opens teams and keys
    await page.goto(`${origin}/console`);
    await page.getByLabel('Private key or admin token').fill(`pk_${'A'.repeat(40)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That is a public key');
    await checkPage(page, runtime, 'sign-in', axeResults);
    await page.getByLabel('Private key or admin token').fill('not-the-token');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('neither a valid private key nor the admin token');
    await page.getByLabel('Private key or admin token').fill(ADMIN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Teams' }).waitFor();
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);

    // ---- a team and its keys
    await page.getByLabel('New team').fill(`Console ${runtime}`);
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('heading', { name: `API keys of Console ${runtime}` }).waitFor();
    const teamId = page.url().split('/').pop()!;
    await page.getByLabel('Type').selectOption('private');
    await page.getByLabel('Name').fill('console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const privateKey = (await page.locator('#new-key').textContent())!.trim();
    expect(privateKey).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    await page.getByLabel('Type').selectOption('public');
    await page.getByLabel('Personal data (public keys)').selectOption('masked');
    await page.getByLabel('Name').fill('shop page');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(async () => (await page.locator('#new-key').textContent())!.trim()).toMatch(/^pk_/);
    const publicKey = (await page.locator('#new-key').textContent())!.trim();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    // revoke asks first
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => page.getByText(/^revoked /).count()).toBe(1);
    await checkPage(page, runtime, 'team-keys', axeResults);
    // the revoked key was the newest: the public one
    expect((await api(origin, 'GET', '/api/v1/key', { key: publicKey })).status).toBe(401);
    await page.goBack();
    await page.getByRole('heading', { name: 'Teams' }).waitFor();
    await checkPage(page, runtime, 'teams', axeResults);

    // ---- sign out, then in with the private key
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.getByLabel('Private key or admin token').fill(privateKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Contests' }).waitFor();
    await expect.poll(() => page.locator('header .who').textContent()).toBe(`Console ${runtime}`);

    // ---- a contest, created and set up in the console
    await page.getByLabel('New contest').fill('Console giveaway');
    // referral points proposed by mode, so that a waitlist's referrals move people up
    const proposed = async () => [
      await page.getByLabel('Referrer gets (points)').inputValue(),
      await page.getByLabel('Friend gets (points)').inputValue(),
    ];
    expect(await proposed()).toEqual(['5', '1']);
    await page.getByLabel('Mode').selectOption('waitlist');
    await expect.poll(proposed).toEqual(['10', '0']);
    await page.getByLabel('Mode').selectOption('giveaway');
    await expect.poll(proposed).toEqual(['5', '1']);
    await page.getByRole('button', { name: 'Create contest' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    // a new contest opens on its settings section: /console/contests/:id/settings
    expect(page.url()).toMatch(/\/console\/contests\/[0-9a-f-]{36}\/settings$/);
    const contestId = page.url().split('/').at(-2)!;
    await page.getByLabel('Status').selectOption('active');
    await page.getByLabel('Entries confirm their email').uncheck();
    await page.getByLabel('Points to the referrer').fill('10');
    await page.getByLabel('Points to the new entry').fill('5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    const settings = await api(origin, 'GET', `/api/v1/contests/${contestId}/settings`, { key: privateKey });
    expect(settings.body.data).toMatchObject({
      title: 'Console giveaway',
      status: 'active',
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
    });
    // a bad value is refused with the API's sentence next to the form
    await page.getByLabel('Starts').fill('2031-02-01T10:00');
    await page.getByLabel('Ends').fill('2031-01-01T10:00');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="settings-h"] [role="alert"]').textContent())
      .toBe('endDate must be after startDate');
    await page.getByLabel('Starts').fill('');
    await page.getByLabel('Ends').fill('');

    // ---- entries made through the API appear
    const ann = await api(origin, 'POST', `/api/v1/contests/${contestId}/entries`, {
      key: privateKey,
      body: { email: 'ann@example.com', name: 'Ann' },
    });
    expect(ann.status).toBe(201);
    await api(origin, 'POST', `/api/v1/contests/${contestId}/entries`, {
      key: privateKey,
      body: { email: 'bob@example.com', name: 'Bob', referralCode: ann.body.data.referralCode },
    });
    // an alias of Ann referred by Ann: flagged high (email_alias, self_referral)
    const alias = await api(origin, 'POST', `/api/v1/contests/${contestId}/entries`, {
      key: privateKey,
      body: {
        email: 'ann+2@example.com',
        name: 'Ann Two',
        referralCode: ann.body.data.referralCode,
        customFieldData: { company: 'Acme', newsletter: true },
      },
    });
    expect(alias.status).toBe(201);
    // someone opened Ann's link shared on X
    const visit = await api(origin, 'POST', `/api/v1/contests/${contestId}/visits`, {
      key: privateKey,
      body: { referralCode: ann.body.data.referralCode, channel: 'x' },
    });
    expect(visit.status).toBe(202);
    await page.getByRole('link', { name: 'Contests', exact: true }).click();
    await page.getByRole('heading', { name: 'Contests' }).waitFor();
    await checkPage(page, runtime, 'contests', axeResults);
    await page.getByRole('link', { name: 'Console giveaway' }).click();
    // the overview: totals and the funnel (3 sign-ups, 2 referred by Ann, Ann the top referrer)
    await page.getByRole('heading', { name: 'Funnel' }).waitFor();
    await expect.poll(() => page.locator('#funnel-steps').textContent()).toContain('3 sign-ups');
    await expect.poll(() => page.locator('#funnel-steps').textContent()).toContain('2 referred sign-ups');
    expect(await page.locator('#viral-coefficient').textContent()).toBe('0.67');
    expect(await page.locator('ol.top').last().textContent()).toBe('Ann: 2 sign-ups from 1 visit');
    expect(await page.locator('#funnel-steps').textContent()).toContain('1 share-link visit');
    expect(await page.locator('#funnel-channels tbody tr').first().textContent()).toBe('X1000');
    expect(await page.locator('#funnel-sources tbody tr').first().textContent()).toContain('3');
    await checkPage(page, runtime, 'contest', axeResults);
    // each section has its own URL: the nav marks the one shown
    const sections = page.getByRole('navigation', { name: 'Contest sections' });
    await sections.getByRole('link', { name: 'Entries' }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/console/contests/${contestId}/entries`);
    expect(await sections.getByRole('link', { name: 'Entries' }).getAttribute('aria-current')).toBe('page');
    await expect.poll(() => page.locator('section[aria-labelledby="entries-h"] tbody tr').count()).toBe(3);
    // the sign-up widget's two lines, with this contest's id, in the embed section
    await page.goto(`${origin}/console/contests/${contestId}/embed`);
    expect(await page.locator('#signup-snippet').textContent()).toMatch(
      /<script src="http:\/\/[^"]+\/signup\.js" defer><\/script>\n<contest-signup contest="[0-9a-f-]{36}"><\/contest-signup>/,
    );
    // the site it is pasted on: visitors who sign up there come back to it
    await page.getByLabel('Site address (https://…)').fill('https://Shop.Example.com/join?x=1');
    await page.getByRole('button', { name: 'Add this site' }).click();
    await expect
      .poll(() => page.locator('#allowed-sites li code').allTextContents())
      .toEqual(['https://shop.example.com']);
    const sites = await api(origin, 'GET', `/api/v1/contests/${contestId}/settings`, { key: privateKey });
    expect(sites.body.data.allowedOrigins).toEqual(['https://shop.example.com']);
    await page.getByLabel('Site address (https://…)').fill('http://plain.example');
    await page.getByRole('button', { name: 'Add this site' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="signup-embed-h"] [role="alert"]').textContent())
      .toContain('allowedOrigins must be origins like https://shop.example.com');
    await page.getByRole('button', { name: 'Remove https://shop.example.com' }).click();
    await expect.poll(() => page.locator('#allowed-sites').count()).toBe(0);
    const none = await api(origin, 'GET', `/api/v1/contests/${contestId}/settings`, { key: privateKey });
    expect(none.body.data.allowedOrigins).toEqual([]);
    // a question of the contest's own on the form: a choice from a list, required
    await page.getByLabel('Question', { exact: true }).fill('Team size');
    await page.getByLabel('Answer', { exact: true }).selectOption('select');
    await page.getByLabel('Choices, one per line').fill('1-10\n11-50\n51+');
    await page.getByRole('checkbox', { name: 'Required' }).check();
    await page.getByRole('button', { name: 'Add this question' }).click();
    await expect
      .poll(() => page.locator('#signup-fields li').allTextContents())
      .toEqual(['Team size (choice from a list, required: 1-10, 11-50, 51+) teamSize Remove Team size']);
    const asked = await api(origin, 'GET', `/api/v1/contests/${contestId}/settings`, { key: privateKey });
    expect(asked.body.data.signupFields).toEqual([
      { key: 'teamSize', label: 'Team size', type: 'select', required: true, options: ['1-10', '11-50', '51+'] },
    ]);
    await page.getByRole('button', { name: 'Remove Team size' }).click();
    await expect.poll(() => page.locator('#signup-fields').count()).toBe(0);

    await page.goBack();
    await expect.poll(() => page.locator('section[aria-labelledby="entries-h"] tbody tr').count()).toBe(3);
    // ---- find one by search (the URL keeps it: deep link, back button)
    await page.getByLabel('Search email, name or referral code').fill('bob');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('section[aria-labelledby="entries-h"] tbody tr').count()).toBe(1);
    expect(page.url()).toContain('search=bob');
    await expect
      .poll(() => page.locator('section[aria-labelledby="entries-h"] tbody').textContent())
      .toContain('bob@example.com');

    // ---- the review queue holds the flagged one, its reasons in words: approved from the list
    await sections.getByRole('link', { name: 'Review' }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/console/contests/${contestId}/review`);
    const queue = page.locator('section[aria-labelledby="review-h"]');
    await expect.poll(() => queue.locator('tbody tr').count()).toBe(1);
    expect(await queue.locator('tbody').textContent()).toContain(
      'High risk: the same email as another entry, written differently',
    );
    await queue.getByRole('checkbox', { name: 'Select ann+2@example.com' }).check();
    await queue.getByRole('button', { name: 'Approve selected' }).click();
    await expect.poll(() => page.locator('#review-result').textContent()).toBe('Approved 1 entry.');
    await expect.poll(() => queue.textContent()).toContain('Nothing waits for review.');
    expect(
      (await api(origin, 'GET', `/api/v1/entries/${alias.body.data.entryId}`, { key: privateKey })).body.data.risk,
    ).toMatchObject({ review: 'approved' });
    // ---- its page: risk in words, who referred it, how it came; points adjusted
    await page.goto(`${origin}/console/entries/${alias.body.data.entryId}`);
    await expect.poll(() => page.locator('#entry-risk').textContent()).toContain('Approved');
    await expect.poll(() => page.locator('#entry-referrer').textContent()).toBe('Ann');
    expect(await page.locator('#entry-source').textContent()).toBe('your server (the API)');
    // what it answered to the contest's own fields
    expect(await page.locator('#entry-answers').textContent()).toBe('companyAcmenewsletteryes');
    await checkPage(page, runtime, 'entry', axeResults);
    const before = Number(await page.locator('#entry-points').textContent());
    await page.getByLabel('Adjust points by').fill('7');
    await page.getByLabel('Reason').fill('goodwill');
    await page.getByRole('button', { name: 'Adjust points' }).click();
    await expect.poll(() => page.locator('#entry-points').textContent()).toBe(String(before + 7));
    await expect
      .poll(() => page.locator('section[aria-labelledby="ledger-h"] tbody').textContent())
      .toContain('goodwill');
    const detail = await api(origin, 'GET', `/api/v1/entries/${alias.body.data.entryId}`, { key: privateKey });
    expect(detail.body.data).toMatchObject({ points: before + 7, risk: { review: 'approved' } });
    // a failed action shows the API's message next to it
    await page.getByLabel('Adjust points by').fill('0');
    await page.getByLabel('Reason').fill('nothing');
    await page.getByRole('button', { name: 'Adjust points' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toContain('points must be a non-zero integer');
    // ---- disqualified with a reason: kept in the points history
    await page.getByLabel('Why disqualify (kept in the history)').fill('Same person as Ann');
    await page.getByRole('button', { name: 'Disqualify' }).click();
    await page.getByRole('button', { name: 'Yes, disqualify' }).click();
    await expect.poll(() => page.locator('#entry-disqualified').textContent()).toBe('yes');
    await expect
      .poll(() => page.locator('section[aria-labelledby="ledger-h"] tbody').textContent())
      .toContain('Disqualified: Same person as Ann');
    await page.getByRole('button', { name: 'Requalify' }).click();
    await expect.poll(() => page.locator('#entry-disqualified').textContent()).toBe('no');
    // ---- edited in place
    await page.getByText('Edit name, email or phone').click();
    await page.getByLabel('Name', { exact: true }).fill('Ann Second');
    await page.getByRole('button', { name: 'Save entry' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(
      (await api(origin, 'GET', `/api/v1/entries/${alias.body.data.entryId}`, { key: privateKey })).body.data.name,
    ).toBe('Ann Second');
    // ---- the risk filter and the sort, through the form
    await page.goto(`${origin}/console/contests/${contestId}/entries`);
    await page.getByLabel('Risk', { exact: true }).selectOption('high');
    await page.getByLabel('Sort').selectOption('points');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.url()).toContain('sort=points');
    await expect.poll(() => page.locator('section[aria-labelledby="entries-h"] tbody tr').count()).toBe(1);

    // ---- the CSV of the current filter (the high-risk one), then of everything
    const filtered = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download matching CSV' }).click();
    const filteredCsv = readFileSync((await (await filtered).path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(filteredCsv).toHaveLength(2);
    expect(filteredCsv[1]).toContain('ann+2@example.com');
    await page.goto(`${origin}/console/contests/${contestId}/entries`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    const csv = readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'id,email,name,phone,points,emailConfirmed,disqualified,referralCode,referredBy,referralsCount,riskLevel,createdAt,consentedAt,consentTextSha256,admittedAt',
    );
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(4);
    expect(csv).toContain('bob@example.com');
    await expect.poll(() => page.locator('#export-progress').textContent()).toContain('3 entries');

    // ---- a draw from commit to reveal
    await sections.getByRole('link', { name: 'Draws' }).click();
    await page.getByRole('heading', { name: 'Draws' }).waitFor();
    await page.getByLabel('Label').fill('Main prize');
    await page.getByLabel('confirmed entries only').uncheck();
    await page.getByRole('button', { name: 'Commit a draw' }).click();
    await page.getByRole('button', { name: 'Reveal winners' }).waitFor();
    await expect.poll(() => page.locator('article.draw').textContent()).toContain('3 eligible entries');
    await page.getByLabel(/Public randomness/).fill('drand round 1234');
    await page.getByRole('button', { name: 'Reveal winners' }).click();
    await expect
      .poll(() => page.locator('article.draw').textContent())
      .toContain('Public randomness: drand round 1234');
    const draws = await api(origin, 'GET', `/api/v1/contests/${contestId}/draws`, { key: privateKey });
    expect(draws.body.data[0]).toMatchObject({
      status: 'revealed',
      eligibleCount: 3,
      publicRandomness: 'drand round 1234',
    });
    await checkPage(page, runtime, 'contest-draw', axeResults);

    // ---- events: an endpoint nobody answers, its test event fails, retry from the log
    const closed = await freePort();
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${closed}/hook`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(async () => (await page.locator('#new-secret').textContent()) ?? '').toMatch(/^whsec_/);
    await checkPage(page, runtime, 'events', axeResults);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Sent:' }).textContent())
      .toBe('Sent: see its delivery');
    await page.getByRole('link', { name: `http://127.0.0.1:${closed}/hook` }).click();
    await page.getByRole('heading', { name: `Deliveries to http://127.0.0.1:${closed}/hook` }).waitFor();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('tbody tr td:nth-child(3)').first().textContent();
        },
        { timeout: 20_000 },
      )
      .toBe('1');
    await page.getByRole('button', { name: 'Retry now' }).first().click();
    await expect
      .poll(() => page.locator('tbody tr td:nth-child(3)').first().textContent(), { timeout: 20_000 })
      .toBe('2');
    await checkPage(page, runtime, 'deliveries', axeResults);

    // ---- the contest's activity chart, a bonus action made in the console, its review queue
    const shopKey = (
      await api(origin, 'POST', `/api/admin/teams/${teamId}/api-keys`, { body: { type: 'public', name: 'shop' } })
    ).body.data.key as string;
    await page.goto(`${origin}/console/contests/${contestId}`);
    await expect.poll(() => page.locator('#activity-cap').textContent()).toMatch(/^Per day \(UTC\)/);
    await expect
      .poll(() => page.locator('section[aria-labelledby="activity-h"] .legend').textContent())
      .toContain('Entries: 3');
    // the revealed draw, verified inside the console by the public verification page
    await page.goto(`${origin}/console/contests/${contestId}/draws`);
    await page.getByLabel('Public key', { exact: true }).fill(shopKey);
    await page.getByRole('button', { name: 'Verify here' }).click();
    await expect
      .poll(() => page.frameLocator('iframe.verify-frame').locator('#verdict').textContent(), { timeout: 20_000 })
      .toBe('Verified: every winner and replacement follows from the committed seed and snapshot.');
    expect(await page.getByRole('link', { name: 'Open the verification page' }).getAttribute('href')).toBe(
      `/draws/${draws.body.data[0].id}/verify?key=${shopKey}`,
    );
    await page.goto(`${origin}/console/contests/${contestId}/bonus-actions`);
    await page.getByLabel('Action', { exact: true }).fill('Photo of the product');
    await page.getByLabel('Points', { exact: true }).fill('20');
    await page.getByLabel('Completed').selectOption('manual');
    await page.getByRole('button', { name: 'Add bonus action' }).click();
    await expect.poll(() => page.getByLabel('Name of Photo of the product').inputValue()).toBe('Photo of the product');
    const photo = (await api(origin, 'GET', `/api/v1/contests/${contestId}/bonus-actions`, { key: shopKey })).body
      .data[0];
    expect(photo).toMatchObject({ action: 'Photo of the product', points: 20, confirmationType: 'manual' });
    const done = await api(
      origin,
      'POST',
      `/api/v1/entries/${ann.body.data.entryId}/bonus-actions/${photo.id}/complete`,
      { key: shopKey, body: { proof: 'https://photos.example/ann.jpg' } },
    );
    expect(done.status).toBe(200);
    await page.goto(`${origin}/console/contests/${contestId}/review`);
    await expect
      .poll(() => page.locator('#completions tbody').textContent())
      .toContain('https://photos.example/ann.jpg');
    await page.getByRole('checkbox', { name: /Select ann@example.com for Photo of the product/ }).check();
    await page
      .locator('section[aria-labelledby="completions-h"]')
      .getByRole('button', { name: 'Approve selected' })
      .click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="completions-h"]').textContent())
      .toContain('Nothing waits for review.');
    const annAfter = await api(origin, 'GET', `/api/v1/entries/${ann.body.data.entryId}/bonus-actions`, {
      key: privateKey,
    });
    expect(annAfter.body.data.actions[0]).toMatchObject({ completed: true });

    // ---- bonus actions renamed, reordered and removed where they are listed
    await page.goto(`${origin}/console/contests/${contestId}/bonus-actions`);
    const bonus = page.locator('section[aria-labelledby="bonus-h"]');
    const names = async () =>
      (await api(origin, 'GET', `/api/v1/contests/${contestId}/bonus-actions`, { key: shopKey })).body.data.map(
        (a: { action: string }) => a.action,
      );
    await page.getByLabel('Action', { exact: true }).fill('Tell a friend');
    await page.getByLabel('Points', { exact: true }).fill('3');
    await page.getByLabel('Completed').selectOption('auto');
    await page.getByRole('button', { name: 'Add bonus action' }).click();
    await expect.poll(() => bonus.locator('tbody tr').count()).toBe(2);
    await page.getByLabel('Name of Tell a friend').fill('Tell two friends');
    await bonus.getByRole('button', { name: 'Rename' }).nth(1).click();
    await expect.poll(names).toEqual(['Photo of the product', 'Tell two friends']);
    await bonus.getByRole('button', { name: 'Move up' }).nth(1).click();
    await expect.poll(names).toEqual(['Tell two friends', 'Photo of the product']);
    await bonus.getByRole('button', { name: 'Remove' }).first().click();
    await bonus.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(names).toEqual(['Photo of the product']);
    await expect.poll(() => bonus.locator('tbody tr').count()).toBe(1);
    await checkPage(page, runtime, 'contest-activity', axeResults);

    // ---- live figures: an entry added through the API appears without a reload (the page reads
    // again every 5 s while visible), the totals follow, and what the operator types stays
    const liveContest = await api(origin, 'POST', '/api/v1/contests', {
      key: privateKey,
      body: { title: 'Console live', status: 'active', requireEmailConfirmation: false },
    });
    expect(liveContest.status).toBe(201);
    const liveId = liveContest.body.data.id;
    await page.goto(`${origin}/console/contests/${liveId}/entries`);
    await page.getByRole('heading', { name: 'Entries' }).waitFor();
    await page.getByLabel('Search email, name or referral code').fill('typed, not sent');
    const late = await api(origin, 'POST', `/api/v1/contests/${liveId}/entries`, {
      key: privateKey,
      body: { email: 'late@example.com', name: 'Late Comer' },
    });
    expect(late.status).toBe(201);
    await expect
      .poll(() => page.locator('section[aria-labelledby="entries-h"] tbody').textContent(), { timeout: 10_000 })
      .toContain('late@example.com');
    expect(await page.getByLabel('Search email, name or referral code').inputValue()).toBe('typed, not sent');
    // the overview's totals and funnel follow too
    await page.goto(`${origin}/console/contests/${liveId}`);
    await expect.poll(() => page.locator('dl.totals dd').first().textContent()).toBe('1');
    await api(origin, 'POST', `/api/v1/contests/${liveId}/entries`, {
      key: privateKey,
      body: { email: 'later@example.com', referralCode: late.body.data.referralCode },
    });
    await expect.poll(() => page.locator('dl.totals dd').first().textContent(), { timeout: 10_000 }).toBe('2');
    await expect
      .poll(() => page.locator('#funnel-steps').textContent(), { timeout: 10_000 })
      .toContain('1 referred sign-ups');
    // ---- an entry added in the console; erased, with a notice
    await page.goto(`${origin}/console/contests/${liveId}/entries`);
    await page.getByText('Add an entry').click();
    await page.getByLabel('Email', { exact: true }).fill('by-hand@example.com');
    await page.getByLabel('Name', { exact: true }).fill('By Hand');
    await page.getByRole('button', { name: 'Add entry' }).click();
    await page.getByRole('link', { name: 'by-hand@example.com' }).first().click();
    await page.getByRole('heading', { name: 'by-hand@example.com' }).waitFor();
    await page.getByLabel(/Erase this person/).fill('by-hand@example.com');
    await page.getByRole('button', { name: 'Erase' }).click();
    await expect.poll(() => page.locator('#erased-notice').textContent()).toContain('The entry was erased');

    // ---- realistic data: 60 entries with long names and emails, flagged ones, pending completions;
    // every section of the contest checked (axe 0 serious or critical, nothing wider than 390 px)
    const big = await api(origin, 'POST', '/api/v1/contests', {
      key: privateKey,
      body: {
        title: 'Console realistic contest with a rather long title for a small screen',
        status: 'active',
        requireEmailConfirmation: false,
        referral: { advocatePoints: 10, friendPoints: 5 },
      },
    });
    const bigId = big.body.data.id as string;
    const proofAction = await api(origin, 'POST', `/api/v1/contests/${bigId}/bonus-actions`, {
      key: privateKey,
      body: {
        action: 'Upload a photo of your receipt from the flagship store',
        points: 15,
        confirmationType: 'manual',
      },
    });
    expect(proofAction.status, JSON.stringify(proofAction.body)).toBe(201);
    let firstCode = '';
    let firstId = '';
    // the aliases of the first entry, +10 to +50 (+20 to +50 wait for review)
    const aliasIds: string[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await api(origin, 'POST', `/api/v1/contests/${bigId}/entries`, {
        key: privateKey,
        body: {
          // every 10th an alias of the first (flagged high), the others referred by the first now and then
          email:
            i > 0 && i % 10 === 0
              ? `maximiliana.featherstonehaugh+${i}@extraordinarily-long-domain.example.com`
              : `maximiliana.featherstonehaugh.${i}@extraordinarily-long-domain.example.com`,
          name: `Maximiliana Bartholomew-Featherstonehaugh-Wolfeschlegelsteinhausen ${i}`,
          referralCode: i > 0 && i % 3 === 0 ? firstCode : undefined,
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      if (i === 0) {
        firstCode = r.body.data.referralCode;
        firstId = r.body.data.entryId;
      }
      if (i > 0 && i % 10 === 0) aliasIds.push(r.body.data.entryId);
      if (i % 4 === 0) {
        const done = await api(
          origin,
          'POST',
          `/api/v1/entries/${r.body.data.entryId}/bonus-actions/${proofAction.body.data.id}/complete`,
          {
            key: shopKey,
            body: { proof: `https://photos.example/receipts/2026/11/${'very-long-path-segment-'.repeat(3)}${i}.jpg` },
          },
        );
        expect(done.status, JSON.stringify(done.body)).toBe(200);
      }
    }
    for (const section of [
      '',
      'entries',
      'review',
      'bonus-actions',
      'rewards',
      'draws',
      'emails',
      'embed',
      'settings',
    ]) {
      await page.goto(`${origin}/console/contests/${bigId}${section ? `/${section}` : ''}`);
      await page.getByRole('navigation', { name: 'Contest sections' }).waitFor();
      if (section === 'review') await expect.poll(() => page.locator('#completions tbody tr').count()).toBe(15);
      if (section === 'entries')
        await expect.poll(() => page.locator('section[aria-labelledby="entries-h"] tbody tr').count()).toBe(25);
      await checkPage(page, runtime, `realistic-${section || 'overview'}`, axeResults);
      // the first screenful, for docs/console.md
      if (section === 'review')
        await page.screenshot({ path: join(ARTIFACTS, `${runtime}-realistic-review-top-1280.png`) });
    }
    // ---- many at once, one of them decided elsewhere meanwhile: the other still goes, and the
    // answer says how many changed and why the one did not
    await page.goto(`${origin}/console/contests/${bigId}/review`);
    const bigQueue = page.locator('section[aria-labelledby="review-h"]');
    const aliasEmail = (n: number) => `maximiliana.featherstonehaugh+${n}@extraordinarily-long-domain.example.com`;
    await bigQueue.getByRole('checkbox', { name: `Select ${aliasEmail(20)}` }).check();
    await bigQueue.getByRole('checkbox', { name: `Select ${aliasEmail(30)}` }).check();
    const elsewhere = await api(origin, 'POST', `/api/v1/entries/${aliasIds[1]}/review`, {
      key: privateKey,
      body: { decision: 'approve' },
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    await bigQueue.getByRole('button', { name: 'Approve selected' }).click();
    await expect.poll(() => page.locator('#review-result').textContent()).toBe('Approved 1 entry.');
    expect(await bigQueue.locator('p.error').textContent()).toBe('1 entry not changed: Entry already reviewed');
    await expect.poll(async () => (await bigQueue.locator('tbody').textContent()) ?? '').not.toContain(aliasEmail(30));
    expect(await bigQueue.locator('tbody').textContent()).not.toContain(aliasEmail(20));
    for (const id of aliasIds.slice(1, 3))
      expect((await api(origin, 'GET', `/api/v1/entries/${id}`, { key: privateKey })).body.data.risk).toMatchObject({
        review: 'approved',
      });

    await page.goto(`${origin}/console/entries/${firstId}`);
    await expect.poll(() => page.locator('ul.completions li').first().textContent()).toContain('waiting for review');
    await checkPage(page, runtime, 'realistic-entry', axeResults);

    // ---- a waitlist lets its first one in from the console
    const wl = await api(origin, 'POST', '/api/v1/contests', {
      key: privateKey,
      body: { title: 'Console waitlist', mode: 'waitlist', status: 'active', requireEmailConfirmation: false },
    });
    expect(wl.status, JSON.stringify(wl.body)).toBe(201);
    const waiting: string[] = [];
    for (const email of ['first@example.com', 'second@example.com']) {
      const w = await api(origin, 'POST', `/api/v1/contests/${wl.body.data.id}/entries`, {
        key: privateKey,
        body: { email },
      });
      expect(w.status).toBe(201);
      waiting.push(w.body.data.entryId);
    }
    await page.goto(`${origin}/console/contests/${wl.body.data.id}/waitlist`);
    // the ones next in line are shown first: both, then (how many: 1) the first only
    await expect
      .poll(() => page.locator('ol.next-in-line li').allTextContents())
      .toEqual(['first@example.com (0 points)', 'second@example.com (0 points)']);
    await page.getByLabel('How many').fill('1');
    await expect.poll(() => page.locator('ol.next-in-line li').count()).toBe(1);
    await page.getByRole('button', { name: 'Let them in' }).click();
    await expect.poll(() => page.locator('#admit-result').textContent()).toContain('Let in: 1.');
    await expect
      .poll(() => page.locator('ol.next-in-line li').allTextContents())
      .toEqual(['second@example.com (0 points)']);
    await checkPage(page, runtime, 'contest-admit', axeResults);
    // the next admission through the API takes the second: the first is in already
    const next = await api(origin, 'POST', `/api/v1/contests/${wl.body.data.id}/admit`, {
      key: privateKey,
      body: { count: 5 },
    });
    expect(next.body.data).toEqual({ entryIds: [waiting[1]], count: 1 });

    // ---- rewards: a pool made in the console, reached through the API, codes added where the operator is
    await page.goto(`${origin}/console/contests/${wl.body.data.id}/rewards`);
    await page.getByLabel('Name', { exact: true }).fill('Early bird coupon');
    await page.getByLabel('Unlocks at').fill('5');
    await page.getByLabel('Counted in').selectOption('points');
    await page.getByLabel('Codes, one per line (more can be added later)').fill('EB-1');
    await page.getByRole('button', { name: 'Create reward' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="rewards-h"] tbody').textContent())
      .toContain('Early bird coupon');
    for (const id of waiting) {
      const adj = await api(origin, 'POST', `/api/v1/entries/${id}/points`, {
        key: privateKey,
        body: { points: 5, reason: 'early' },
      });
      expect(adj.status).toBe(200);
    }
    await page.reload();
    await expect
      .poll(() => page.locator('section[aria-labelledby="rewards-h"] tbody td').allTextContents())
      .toEqual(['Early bird coupon', '5 points', 'a code from the pool', '0 of 1', '2', '1', expect.any(String)]);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByLabel('Add codes, one per line').fill('EB-2\nEB-3');
    await page.getByRole('button', { name: 'Add codes' }).click();
    await expect
      .poll(() => page.locator('#codes-result').textContent())
      .toBe('Added 2; 1 given at once to people waiting. 1 left.');
    await expect
      .poll(() => page.locator('ul.unlocks li').allTextContents())
      .toEqual([
        expect.stringMatching(/^(first|second)@example\.com EB-[12] /),
        expect.stringMatching(/^(first|second)@example\.com EB-[12] /),
      ]);
    await checkPage(page, runtime, 'contest-rewards', axeResults);

    // ---- the reward email in the team's words, previewed before it is saved
    await page.goto(`${origin}/console/contests/${wl.body.data.id}/emails`);
    await page.getByLabel('Which email').selectOption('reward');
    await expect.poll(() => page.getByLabel('Subject').inputValue()).toBe('You unlocked {{reward}}: {{contest}}');
    await page.getByLabel('Subject').fill('{{reward}} is yours');
    await page.getByLabel('Text', { exact: true }).fill('Hi {{name}}, use {{code}} at checkout.');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => page.locator('#email-preview').textContent())
      .toContain('Hi Alex, use SAMPLE-CODE-42 at checkout.');
    await page.getByLabel('Text', { exact: true }).fill('Hi {{name}}, use {{coupon}} at checkout.');
    await page.getByRole('button', { name: 'Save email' }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="emails-h"] [role="alert"]').textContent())
      .toContain('Unknown placeholder {{coupon}} in text');
    await page.getByLabel('Text', { exact: true }).fill('Hi {{name}}, use {{code}} at checkout.');
    await page.getByRole('button', { name: 'Save email' }).click();
    await expect.poll(() => page.getByText('Saved: the next email uses it.').count()).toBe(1);
    const savedText = await api(origin, 'GET', `/api/v1/contests/${wl.body.data.id}/emails/reward`, {
      key: privateKey,
    });
    expect(savedText.body.data).toMatchObject({ custom: true, subject: '{{reward}} is yours' });
    await checkPage(page, runtime, 'contest-emails', axeResults);

    // ---- a game created in the console, played through the API: its realised odds and chi-square
    await page.getByRole('link', { name: 'Games' }).click();
    await page.getByRole('heading', { name: 'Instant-win games' }).waitFor();
    await page.getByText('New game').click();
    await checkPage(page, runtime, 'games-new', axeResults);
    await page.getByLabel('Title').fill('Console wheel');
    await page.getByRole('button', { name: 'Create game' }).click();

    await page.getByRole('heading', { name: 'Console wheel' }).waitFor();
    const gameId = page.url().split('/').pop()!;
    for (let i = 0; i < 25; i++) {
      // 25: under the play limit of 30 a minute per address
      const p = await api(origin, 'POST', `/api/v1/instant-win-games/${gameId}/play`, { key: shopKey, body: {} });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
    }
    await page.reload();
    await expect.poll(() => page.locator('#realised-odds caption').textContent()).toContain('25 plays');
    await expect
      .poll(() => page.locator('#chi-square').textContent())
      .toMatch(/^Chi-square \d+\.\d\d with 1 degree of freedom: p = /);
    const drawnCells = await page.locator('#realised-odds tbody tr td:nth-child(3)').allTextContents();
    expect(drawnCells.map(Number).reduce((a, b) => a + b, 0)).toBe(25);
    await page.getByRole('button', { name: 'Rotate the seed' }).click();
    await page.getByRole('button', { name: 'Yes, rotate the seed' }).click();
    await expect.poll(() => page.locator('#seeds tbody tr').count()).toBe(2);
    await expect.poll(() => page.locator('#seeds tbody tr').nth(1).textContent()).not.toContain('current');
    // the tiers changed in place: odds of one, a new prize tier (a name too long for 390 px: its
    // tables scroll, and must then be reachable by keyboard); the plays keep their tiers
    await page.getByLabel('Odds of 10% off').fill('40');
    await page.getByLabel('New tier name').fill('Free-gift-for-the-first-hundred-players-of-the-summer-wheel');
    await page.getByLabel('New tier odds').fill('10');
    await page.getByLabel('New tier code').fill('GIFT');
    await page.getByRole('button', { name: 'Save the game' }).click();
    await expect.poll(() => page.locator('#tiers tbody tr').count()).toBe(3);
    const edited = (await api(origin, 'GET', `/api/v1/instant-win-games/${gameId}`, { key: privateKey })).body.data;
    expect(edited.tiers.map((x: { name: string; oddsPercent: number }) => [x.name, x.oddsPercent])).toEqual([
      ['10% off', 40],
      ['Try again', 50],
      ['Free-gift-for-the-first-hundred-players-of-the-summer-wheel', 10],
    ]);
    expect(edited.tiers[0].redeemCode).toBe('SAVE10');
    expect(edited.stats.plays).toBe(25);
    await page.getByLabel('Public key for the preview').fill(shopKey);
    await page.getByRole('button', { name: 'Show the preview' }).click();
    await expect.poll(() => page.locator('#embed-snippet').textContent()).toContain(`api-key="${shopKey}"`);
    await page.frameLocator('iframe.preview').locator('instant-win-game').waitFor();
    await checkPage(page, runtime, 'game', axeResults);
    // the games list with a played game: its table scrolls at 390 px, and is then a tab stop
    await page.getByRole('link', { name: 'All games' }).click();
    await page.getByRole('heading', { name: 'Instant-win games' }).waitFor();
    await page.getByRole('link', { name: 'Console wheel' }).waitFor();
    await checkPage(page, runtime, 'games', axeResults);

    // ---- Integrations on a deployment without INTEGRATIONS_KEY: the section says how to set it
    await page.getByRole('link', { name: 'Integrations' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Integrations are off on this deployment: set INTEGRATIONS_KEY');
    expect(await page.locator('main').textContent()).toContain('wrangler secret put INTEGRATIONS_KEY');
    expect(await page.getByRole('button', { name: 'Connect and test' }).count()).toBe(0);
    await checkPage(page, runtime, 'integrations-off', axeResults);

    // ---- sign out forgets everything the console kept in the tab, the preview's public key too
    expect(await page.evaluate(() => Object.keys(sessionStorage).sort())).toEqual([
      'contest-engine-console',
      'contest-engine-console-public-key',
    ]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Private key or admin token').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    // nothing but the app's own origin, no page error, no CSP violation
    expect(requests.filter((u) => new URL(u).origin !== origin && !u.startsWith('blob:'))).toEqual([]);
    expect(
      // (503: the integrations' answer on a deployment without INTEGRATIONS_KEY)
      problems.filter(
        (p) => !/Failed to load resource: the server responded with a status of (401|400|409|503)/.test(p),
      ),
    ).toEqual([]);
    console.log(`console ${runtime}: axe serious/critical per page ${JSON.stringify(axeResults)}`);
  } finally {
    await ctx.close();
  }
}
