/**
 * The emails a team writes: the default shown when unset, a text with an unknown or missing
 * placeholder refused naming it, the team's text used by the next email of its kind (filled once,
 * the HTML part escaped), a reset, and the preview for a sample person.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';
import { runScheduledJobs } from '../jobs.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team();
});
afterAll(() => env.close());

const api = (method: string, path: string, body?: unknown) =>
  env.request(method, path, { key: t.privateKey, ...(body === undefined ? {} : { body }) });

describe('reading and writing', () => {
  it('shows the default until the team writes one; refuses unknown and missing placeholders, naming them', async () => {
    const c = await env.contest(t.teamId, { title: 'Spring' });
    const d = await api('GET', `/api/v1/contests/${c.id}/emails/confirmation`);
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({
      kind: 'confirmation',
      subject: 'Confirm your entry: {{contest}}',
      custom: false,
      updatedAt: null,
    });
    // the default greets nobody by name: the address is not yet proven to be the signer's
    expect(d.body.data.text).toMatch(/^Hi,\n/);
    expect(d.body.data.text).not.toContain('{{name}}');
    expect(d.body.data.text).toContain('{{link}}');
    expect(d.body.data.placeholders.map((p: { name: string }) => p.name)).toEqual(['name', 'contest', 'link']);
    const reward = await api('GET', `/api/v1/contests/${c.id}/emails/reward`);
    expect(reward.body.data.subject).toBe('You unlocked {{reward}}: {{contest}}');
    expect(reward.body.data.text).toContain('Your code: {{code}}');

    const bad: [string, unknown, string][] = [
      [
        'confirmation',
        { subject: 'Hi', text: 'Click {{link}} for {{prize}}' },
        'Unknown placeholder {{prize}} in text: confirmation emails take {{name}}, {{contest}}, {{link}}',
      ],
      [
        'reward',
        { subject: 'Your {{link}}', text: 'x' },
        'Unknown placeholder {{link}} in subject: reward emails take {{name}}, {{contest}}, {{reward}}, {{code}}',
      ],
      ['confirmation', { subject: 'Hi', text: 'No link here' }, "A confirmation email's text must contain {{link}}"],
      ['winner', { subject: 'two\nlines', text: 'x' }, 'subject must be one line without control characters'],
      ['winner', { subject: ' ', text: 'x' }, 'subject must not be empty'],
      ['winner', { subject: 'x' }, 'text is required'],
    ];
    for (const [kind, body, message] of bad) {
      const r = await api('PUT', `/api/v1/contests/${c.id}/emails/${kind}`, body);
      expect([r.status, r.body.error]).toEqual([400, message]);
    }
    expect(await queryOne(env.db, sql`select 1 from email_texts where contest_id = ${c.id}`)).toBeUndefined();
    const nope = await api('GET', `/api/v1/contests/${c.id}/emails/newsletter`);
    expect([nope.status, nope.body.error]).toEqual([404, 'Email kind not found']);

    const put = await api('PUT', `/api/v1/contests/${c.id}/emails/winner`, {
      subject: 'You won {{ reward }}!',
      text: 'Dear {{name}},\r\nyou won {{reward}} in {{contest}}.',
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({
      subject: 'You won {{reward}}!',
      text: 'Dear {{name}},\nyou won {{reward}} in {{contest}}.',
      custom: true,
    });
    const list = await api('GET', `/api/v1/contests/${c.id}/emails`);
    expect(list.body.data.map((k: { kind: string; custom: boolean }) => [k.kind, k.custom])).toEqual([
      ['confirmation', false],
      ['status-link', false],
      ['reward', false],
      ['admitted', false],
      ['winner', true],
    ]);
    const reset = await api('DELETE', `/api/v1/contests/${c.id}/emails/winner`);
    expect(reset.body.data).toMatchObject({ custom: false, subject: 'You won: {{contest}}' });
  });
});

describe('the emails sent', () => {
  it("a confirmation email with the team's text: filled once, the HTML escaped, a value that looks like a placeholder left alone", async () => {
    const c = await env.contest(t.teamId, { title: 'Fish & <Chips>', requireEmailConfirmation: true });
    await api('PUT', `/api/v1/contests/${c.id}/emails/confirmation`, {
      subject: 'Welcome {{name}}: {{contest}}',
      text: 'Hello {{name}}!\nConfirm here: {{link}}\nSee you at {{contest}}.',
    });
    const r = await api('POST', `/api/v1/contests/${c.id}/entries`, {
      email: 'tom@example.com',
      name: '{{link}} <Tom>',
    });
    expect(r.status, r.text).toBe(201);
    await env.settle();
    const mail = env.sent.find((m) => m.to === 'tom@example.com')!;
    expect(mail.subject).toBe('Welcome {{link}} <Tom>: Fish & <Chips>');
    expect(mail.text).toMatch(
      /^Hello \{\{link\}\} <Tom>!\nConfirm here: http:\/\/\S+\/api\/confirm\/[A-Za-z0-9]{32}\nSee you at Fish & <Chips>\.$/,
    );
    expect(mail.html).toContain('Hello {{link}} &lt;Tom&gt;!<br>Confirm here: <a href="http');
    expect(mail.html).toContain('See you at Fish &amp; &lt;Chips&gt;.');
    expect(mail.html).not.toContain('<Tom>');

    // back to the default: the next email is the default again
    await api('DELETE', `/api/v1/contests/${c.id}/emails/confirmation`);
    await api('POST', `/api/v1/contests/${c.id}/entries`, { email: 'ann@example.com', name: 'Ann' });
    await env.settle();
    expect(env.sent.find((m) => m.to === 'ann@example.com')!.subject).toBe('Confirm your entry: Fish & <Chips>');
  });

  it("a person's name is text, never a link, in a team's text; the team's own addresses, {{link}} and a {{code}} in an address are links", async () => {
    const c = await env.contest(t.teamId, { title: 'Links', requireEmailConfirmation: false });
    await api('PUT', `/api/v1/contests/${c.id}/emails/reward`, {
      subject: 'Yours',
      text: 'Hi {{name}}, read https://acme.example/rules then shop at https://shop.example/r?c={{code}}',
    });
    await api('POST', `/api/v1/contests/${c.id}/rewards`, { name: 'Ten', pointsRequired: 5, code: 'TEN5' });
    const e = await api('POST', `/api/v1/contests/${c.id}/entries`, {
      email: 'phish@example.com',
      name: 'http://evil.example/login now',
    });
    await api('POST', `/api/v1/entries/${e.body.data.entryId}/points`, { points: 5, reason: 'promo' });
    await env.settle();
    await runScheduledJobs(env.deps);
    const mail = env.sent.find((m) => m.to === 'phish@example.com' && m.subject === 'Yours')!;
    expect(mail.html).not.toContain('<a href="http://evil');
    expect(mail.html).toContain('Hi http://evil.example/login now, read');
    expect(mail.html).toContain('<a href="https://acme.example/rules">https://acme.example/rules</a>');
    expect(mail.html).toContain('<a href="https://shop.example/r?c=TEN5">https://shop.example/r?c=TEN5</a>');
    // the confirmation's {{link}} is a link; a name in a confirmation text is text
    const d = await env.contest(t.teamId, { title: 'Links 2' });
    await api('PUT', `/api/v1/contests/${d.id}/emails/confirmation`, {
      subject: 'Confirm',
      text: 'Hi {{name}}: {{link}}',
    });
    await api('POST', `/api/v1/contests/${d.id}/entries`, {
      email: 'phish2@example.com',
      name: 'https://evil.example',
    });
    await env.settle();
    const confirm = env.sent.find((m) => m.to === 'phish2@example.com')!;
    expect(confirm.html).toMatch(
      /Hi https:\/\/evil\.example: <a href="http:\/\/[^"]+\/api\/confirm\/[A-Za-z0-9]{32}">/,
    );
  });

  it('a reward email and an admission email with the team texts', async () => {
    const c = await env.contest(t.teamId, { title: 'Beta', mode: 'waitlist', requireEmailConfirmation: false });
    await api('PUT', `/api/v1/contests/${c.id}/emails/reward`, {
      subject: '{{reward}} is yours',
      text: 'Hi {{name}}, use {{code}} in the shop.',
    });
    await api('PUT', `/api/v1/contests/${c.id}/emails/admitted`, {
      subject: 'Come in, {{name}}',
      text: 'You are in {{contest}}. Start at {{link}}',
    });
    await api('POST', `/api/v1/contests/${c.id}/rewards`, {
      name: 'Launch discount',
      pointsRequired: 5,
      code: 'LAUNCH5',
    });
    const e = await api('POST', `/api/v1/contests/${c.id}/entries`, { email: 'rae@example.com' });
    await api('POST', `/api/v1/entries/${e.body.data.entryId}/points`, { points: 5, reason: 'promo' });
    expect((await api('POST', `/api/v1/contests/${c.id}/admit`, { count: 1 })).status).toBe(200);
    await env.settle();
    await runScheduledJobs(env.deps);
    const got = env.sent.filter((m) => m.to === 'rae@example.com').map((m) => [m.subject, m.text]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['Launch discount is yours', 'Hi there, use LAUNCH5 in the shop.'],
        ['Come in, there', 'You are in Beta. Start at '],
      ]),
    );
  });
});

describe('POST …/{kind}/preview', () => {
  it('renders the default, the saved text or the text given, for a sample person; a bad text is a 400', async () => {
    const c = await env.contest(t.teamId, { title: 'Spring' });
    const d = await api('POST', `/api/v1/contests/${c.id}/emails/reward/preview`, {});
    expect(d.status, d.text).toBe(200);
    expect(d.body.data).toMatchObject({
      to: 'alex@example.com',
      subject: 'You unlocked 20% off your next order: Spring',
    });
    expect(d.body.data.text).toContain('Your code: SAMPLE-CODE-42');
    const given = await api('POST', `/api/v1/contests/${c.id}/emails/status-link/preview`, {
      text: 'You are number {{position}}: {{link}}',
    });
    expect(given.body.data.text).toBe('You are number 42: https://example.com/contest#ce-entry=SAMPLE');
    expect(given.body.data.html).toContain('<a href="https://example.com/contest#ce-entry=SAMPLE">');
    const bad = await api('POST', `/api/v1/contests/${c.id}/emails/status-link/preview`, { text: '{{code}}' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Unknown placeholder \{\{code\}\} in text/);
  });
});
