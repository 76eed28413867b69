/** escapeHtml and the database's ce_escape_html (what every statement escapes with) answer alike. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TestEnv } from '../../test/support/harness.js';
import { escapeHtml } from './html.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

describe('HTML escaping, one rule in two languages', () => {
  it('escapeHtml and ce_escape_html give the same text for every special character and around it', async () => {
    const samples = [
      '',
      'plain',
      `<script>alert("x")</script>`,
      `Tom & Jerry's "show" <b>`,
      '&amp; already escaped',
      `'''"""<<<>>>&&&`,
      'émoji 🎉 and ünïcode',
    ];
    for (const s of samples) {
      const [row] = await query<{ e: string }>(env.db, sql`select ce_escape_html(${s}::text) as e`);
      expect(row!.e, s).toBe(escapeHtml(s));
    }
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
