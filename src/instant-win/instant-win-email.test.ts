/**
 * The prize email a claim queues is put together in SQL (one statement per claim) from
 * templates that prizeEmail() renders: for every shape and for hostile values it must be exactly
 * what prizeEmail() makes in TypeScript (HTML escaped, subject on one line).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';
import { cryptoRandom } from '../deps.js';
import { prizeEmail } from '../mail/templates.js';
import { sqlPrizeEmail } from './claim.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const titles = ['Summer wheel', '<script>alert("x")</script> & \'quotes\'', 'Line\nbreak\ttab', 'x'.repeat(300)];
const prizes = ['10% off', '<b>Free</b> & "gift"', 'Prize\r\nBcc: evil@example.com'];
const codes = [null, 'SAVE10', '<img src=x onerror=alert(1)>'];
const urls = [null, 'https://shop.example/redeem?a=1&b="2"'];

describe('prize email rendered in SQL', () => {
  it('equals prizeEmail() for every shape and hostile values', async () => {
    let n = 0;
    for (const title of titles)
      for (const prize of prizes)
        for (const code of codes)
          for (const url of urls) {
            const m = sqlPrizeEmail(cryptoRandom, {
              title: sql`${title}::text`,
              prize: sql`${prize}::text`,
              code: sql`${code}::text`,
              url: sql`${url}::text`,
            });
            const row = await queryOne<{ subject: string; text: string; html: string }>(
              env.db,
              sql`select ${m.subject} as subject, ${m.text} as text, ${m.html} as html`,
            );
            const js = prizeEmail({ gameTitle: title, prizeName: prize, couponCode: code, redeemUrl: url });
            expect(row).toEqual({ subject: js.subject, text: js.text, html: js.html });
            n++;
          }
    expect(n).toBe(72);
  });
});
