/**
 * A share link's short form, `/r/{code}` (docs/signups.md, "Short links"): the referral code's
 * contest page (its landing page, else its hosted page) with `ref` and `via`, the visit counted
 * at the redirect. One statement, the same for any code: a code that no entry with a page has
 * writes its visit too (to no contest: the fold deletes it), so that a made-up code costs what a
 * real one does.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryOne } from '../db/client.js';
import type { ShareChannel } from '../lib/share-channels.js';
import { sqlLandingUrl } from '../sql/contests.js';
import { sqlNotErased } from '../sql/scope.js';

/** the shape of a referral code a short link may carry; anything else is answered as an unknown code */
export const SHORT_CODE = /^[A-Za-z0-9]{1,64}$/;
/** the contest of a visit whose code no entry has (no contest has this id) */
const NO_CONTEST = '00000000-0000-0000-0000-000000000000';

/**
 * The page of `code`'s contest, the visit written when `count` (the browser has not counted it
 * yet); null when no entry with a page has the code.
 */
export async function followShortLink(
  db: Db,
  link: { code: string; channel: ShareChannel | null; count: boolean },
  now: Date,
  publicUrl: string,
): Promise<string | null> {
  const row = await queryOne<{ page: string | null }>(
    db,
    sql`with p as (
          select e.id as entry_id, e.contest_id, ${sqlLandingUrl('c', publicUrl)} as page
          from entries e join contests c on c.id = e.contest_id
          where e.referral_code = ${link.code}::text and ${sqlNotErased('e')}
        ), ins as (
          insert into link_visits (contest_id, entry_id, channel, created_at)
          select coalesce((select contest_id from p where page is not null), ${NO_CONTEST}::uuid),
            (select entry_id from p where page is not null), ${link.channel}::text, ${now.toISOString()}::timestamptz
          where ${link.count}::boolean
          returning 1
        )
        select (select page from p) as page, (select count(*) from ins) as written`,
  );
  return row?.page ?? null;
}

/** Where a short link sends the browser: the page with `ref` and `via`, and `#ce-counted` (the widget counts no second visit). */
export function shortLinkTarget(page: string, code: string, channel: ShareChannel | null): string {
  const u = new URL(page);
  u.searchParams.set('ref', code);
  if (channel) u.searchParams.set('via', channel);
  u.hash = 'ce-counted';
  return u.href;
}
