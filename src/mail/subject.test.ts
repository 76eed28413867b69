/** emailSubject and the database's ce_email_subject (what every statement's subject calls) answer alike. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TestEnv } from '../../test/support/harness.js';
import { emailSubject } from './templates.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

describe('the subject line, one rule in two languages', () => {
  it('emailSubject and ce_email_subject give the same line for control characters, spaces and length', async () => {
    const samples = [
      '',
      'Confirm your entry: Spring giveaway',
      'Bcc: x@example.com\r\nInjected: yes',
      'tab\there, bell\u0007, escape\u001b[31m, delete\u007f, next line\u0085, C1\u009f end',
      '   leading and trailing spaces   ',
      '\n\n\nonly controls around\t\t',
      '\u00a0no-break spaces stay\u00a0',
      '\u2028line separator stays\u2029',
      'x'.repeat(250),
      `${'é'.repeat(199)}🎉🎉 (astral characters count once)`,
      `${'a '.repeat(100)}  trailing after the cut`,
    ];
    for (const s of samples) {
      const [row] = await query<{ s: string }>(env.db, sql`select ce_email_subject(${s}::text) as s`);
      expect(row!.s, JSON.stringify(s)).toBe(emailSubject(s));
    }
    expect(emailSubject('Bcc: x@example.com\r\nInjected: yes')).toBe('Bcc: x@example.com Injected: yes');
    expect([...emailSubject('🎉'.repeat(300))]).toHaveLength(200);
  });
});
