/**
 * A contest's hosted page (GET /c/:contestId, docs/signups.md, "The hosted page"): the page a
 * team without a website sends people to. Its title, description and image, the sign-up widget
 * without a key, and the Open Graph and Twitter card tags a shared link's preview is made from.
 * Only a contest that takes public sign-ups has one. The `?ref=` of a share link is read by the
 * widget in the browser, so every share link of a contest is the same cached page.
 */
import { sql } from 'drizzle-orm';
import { sqlBoardOrder, sqlBoardScore, sqlTopEntries } from '../analytics/analytics.js';
import { type Db, num, queryOne } from '../db/client.js';
import { isUuid, toBase64 } from '../lib/crypto.js';
import { escapeHtml, htmlDocument } from '../lib/html.js';
import { type Theme, themeVariables } from '../lib/share-channels.js';
import type { SignupField } from '../lib/signup-fields.js';
import { sqlPublicRewardJson, sqlRewardOrder } from '../rewards/rewards.js';

export interface HostedContest {
  id: string;
  title: string;
  description: string | null;
  imageUrl: string | null;
  /** the team's logo, the footer's links (rules, privacy) and the consent text it repeats */
  logoUrl: string | null;
  rulesUrl: string | null;
  privacyUrl: string | null;
  consentText: string | null;
  theme: Theme;
  botCheck: 'off' | 'turnstile';
  /** the form's own fields (the widget draws them; the page keeps their room) */
  signupFields: SignupField[];
  publicCacheSeconds: number;
  /** when sign-ups end (null: evergreen or no end date) */
  endDate: Date | null;
  /** the contest's status: an `ended` one shows the ended state whatever its date */
  status: string;
  /** people who have joined: confirmed entries, from the contest's kept counters */
  joined: number;
  /** the contest's live rewards, in the ladder's order */
  prizes: Prize[];
  /** the leaderboard's first `pageLeaderboard` rows, names masked (empty when the setting is 0) */
  board: { name: string | null; points: number }[];
}

export interface Prize {
  name: string;
  description: string | null;
  imageUrl: string | null;
  referralsRequired: number | null;
  pointsRequired: number | null;
}

/** The contest of a hosted page: null for an unknown id, a game, or a contest without public sign-ups. */
export async function hostedContest(db: Db, contestId: string): Promise<HostedContest | null> {
  if (!isUuid(contestId)) return null;
  const row = await queryOne<{
    id: string;
    title: string;
    description: string | null;
    image_url: string | null;
    logo_url: string | null;
    rules_url: string | null;
    privacy_url: string | null;
    consent_text: string | null;
    theme: Theme;
    bot_check: 'off' | 'turnstile';
    signup_fields: SignupField[];
    public_cache_seconds: number;
    end_date: Date | string | null;
    status: string;
    joined: number | string;
    prizes: Prize[];
    board: { name: string | null; points: number }[];
  }>(
    db,
    sql`select c.id, c.title, c.description, c.image_url, c.logo_url, c.rules_url, c.privacy_url, c.consent_text, c.theme, c.bot_check, c.signup_fields, c.public_cache_seconds,
          case when c.is_evergreen then null else c.end_date end as end_date, c.status,
          (select coalesce(sum(s.confirmed), 0) from contest_stats s where s.contest_id = c.id) as joined,
          (select coalesce(json_agg(${sqlPublicRewardJson('r')} order by ${sqlRewardOrder('r')}), '[]')
           from rewards r where r.contest_id = c.id and r.deleted_at is null) as prizes,
          (select coalesce(json_agg(json_build_object('name', ce_mask_name(t.name), 'points', ${sqlBoardScore('t', sql`c.campaign_type`)})
              order by ${sqlBoardOrder('t', sql`c.campaign_type`)}), '[]')
           from (${sqlTopEntries(sql`c.id`, sql`c.campaign_type`, sql`c.page_leaderboard`)}) t) as board
        from ce_page_contest(${contestId}) c`,
  );
  if (!row) return null;
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    imageUrl: row.image_url,
    logoUrl: row.logo_url,
    rulesUrl: row.rules_url,
    privacyUrl: row.privacy_url,
    consentText: row.consent_text,
    theme: row.theme,
    botCheck: row.bot_check,
    signupFields: row.signup_fields,
    publicCacheSeconds: row.public_cache_seconds,
    endDate: row.end_date === null ? null : new Date(row.end_date),
    status: row.status,
    joined: num(row.joined),
    prizes: typeof row.prizes === 'string' ? JSON.parse(row.prizes) : row.prizes,
    board: typeof row.board === 'string' ? JSON.parse(row.board) : row.board,
  };
}

const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

/** A description for previews: one line, at most 200 characters. */
function summary(c: HostedContest): string {
  const text = (c.description ?? `Join ${c.title}`).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * The page's own stylesheet: the contest's theme as the widget's CSS variables, over the whole page
 * (its background and text colour are the page's, its font the page's), and the layout.
 */
function pageCss(theme: Theme, formHeight: number): string {
  const vars = themeVariables(theme, '--cs-').map(([name, value]) => `${name}:${value}`);
  return `:root{${vars.join(';')}}
contest-signup{display:block;min-height:${formHeight}px}
*{box-sizing:border-box}
body{margin:0;padding:24px 12px 48px;background:var(--cs-bg,#f3f4f6);color:var(--cs-fg,#1f2937);font-family:var(--cs-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);line-height:1.5}
main{max-width:640px;margin:0 auto}
.hero{margin:0 auto 20px;max-width:440px}
.hero img{display:block;width:100%;height:auto;max-height:320px;object-fit:cover;border-radius:var(--cs-radius,16px)}
h1{font-size:1.6rem;line-height:1.25;margin:16px 0 8px}
.lead{margin:0;white-space:pre-line}
.facts{display:flex;flex-wrap:wrap;gap:8px 20px;margin:12px 0 0;padding:0;list-style:none;font-weight:600}
.facts li{margin:0}
.logo{display:block;max-height:56px;max-width:200px;width:auto;height:auto;margin:0 0 16px}
.ended{max-width:440px;margin:0 auto;padding:20px 16px;border-radius:var(--cs-radius,16px);border:2px solid currentColor;font-weight:700}
.prizes{max-width:440px;margin:28px auto 0}
.prizes h2{font-size:1.25rem;margin:0 0 12px}
.prizes ul{list-style:none;margin:0;padding:0;display:grid;gap:12px}
.prizes li{display:flex;gap:12px;align-items:flex-start;padding:12px;border-radius:var(--cs-radius,16px);border:1px solid rgba(127,127,127,.45)}
.prizes img{width:72px;height:72px;object-fit:cover;border-radius:8px;flex:none}
.prizes h3{font-size:1rem;margin:0}
.prizes p{margin:4px 0 0}
.unlock{font-weight:600}
.board{max-width:440px;margin:28px auto 0}
.board h2{font-size:1.25rem;margin:0 0 8px}
.board table{width:100%;border-collapse:collapse}
.board th,.board td{text-align:left;padding:6px 4px;border-bottom:1px solid rgba(127,127,127,.45)}
.board td:last-child,.board th:last-child{text-align:right}
footer{margin:32px auto 0;max-width:440px;font-size:.85rem}
footer p{margin:0 0 8px}
footer a{color:inherit;text-decoration:underline;margin-right:16px;display:inline-block;padding:4px 0}`;
}

/** The page's numbers, grouped ("2,341"): the page is one cached copy for every visitor, in English. */
const NUMBER = new Intl.NumberFormat('en');

/** What unlocks a prize: "Unlocks at 3 confirmed friends", "Unlocks at 100 points" */
export function unlockWords(p: Pick<Prize, 'referralsRequired' | 'pointsRequired'>): string {
  const n = p.referralsRequired ?? p.pointsRequired ?? 0;
  const what =
    p.referralsRequired !== null ? (n === 1 ? 'confirmed friend' : 'confirmed friends') : n === 1 ? 'point' : 'points';
  return `Unlocks at ${NUMBER.format(n)} ${what}`;
}

/** "2,341 people have joined" (grouped digits), "1 person has joined" */
export function joinedLine(n: number): string {
  return `${NUMBER.format(n)} ${n === 1 ? 'person has' : 'people have'} joined`;
}

/** An end date as the server says it (the browser says it again in the visitor's words): "12 December 2026, 18:00 UTC" */
export function endDateWords(d: Date): string {
  return `${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(d)}, ${d.toISOString().slice(11, 16)} UTC`;
}

/**
 * The height the widget's form takes at a phone's width (measured in Chromium: 356 px with a
 * one-line consent), kept for it before the widget draws, so that nothing below it moves when it
 * does (Lighthouse's layout shift). A little under what it takes: a few pixels of shift rather
 * than a gap under a shorter form.
 */
function formHeight(c: HostedContest): number {
  const fields = c.signupFields.reduce((h, f) => h + (f.type === 'checkbox' ? 40 : 78), 0);
  return 280 + fields + (c.consentText ? 60 : 0) + (c.botCheck === 'turnstile' ? 70 : 0);
}

export interface HostedPage {
  html: string;
  csp: string;
}

/**
 * The page's HTML and its Content-Security-Policy (the inline stylesheet allowed by its hash). After
 * its end date (or once its status is `ended`) the page says the contest ended instead of the form.
 */
export async function hostedPage(c: HostedContest, pageUrl: string, now: Date): Promise<HostedPage> {
  const css = pageCss(c.theme, formHeight(c));
  const cssHash = toBase64(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(css)));
  const turnstile = c.botCheck === 'turnstile';
  const csp = [
    "default-src 'none'",
    `script-src 'self'${turnstile ? ` ${TURNSTILE_ORIGIN}` : ''}`,
    "connect-src 'self'",
    `style-src 'sha256-${cssHash}'`,
    'img-src https: data:',
    turnstile ? `frame-src ${TURNSTILE_ORIGIN}` : '',
    "base-uri 'none'",
    "form-action 'none'",
    // only this service's own pages may frame it (the console's live preview)
    "frame-ancestors 'self'",
  ]
    .filter(Boolean)
    .join('; ');
  const e = escapeHtml;
  const ended = c.status === 'ended' || (c.endDate !== null && c.endDate <= now);
  const facts = [
    ...(c.joined > 0 ? [`<li>${e(joinedLine(c.joined))}</li>`] : []),
    ...(c.endDate && !ended
      ? [
          `<li>Ends <time datetime="${c.endDate.toISOString()}" data-ce-ends>${e(endDateWords(c.endDate))}</time><span data-ce-countdown aria-hidden="true"></span></li>`,
        ]
      : []),
  ];
  const links = [
    ...(c.rulesUrl ? [`<a href="${e(c.rulesUrl)}" rel="noopener">Official rules</a>`] : []),
    ...(c.privacyUrl ? [`<a href="${e(c.privacyUrl)}" rel="noopener">Privacy policy</a>`] : []),
  ];
  const footer =
    c.consentText || links.length
      ? `<footer>
${c.consentText ? `<p>${e(c.consentText)}</p>\n` : ''}${links.length ? `<nav aria-label="Rules and privacy">${links.join('')}</nav>\n` : ''}</footer>\n`
      : '';
  const prizes = c.prizes.length
    ? `<section class="prizes" aria-labelledby="prizes-h">
<h2 id="prizes-h">Prizes</h2>
<ul>${c.prizes.map((p) => `<li>${p.imageUrl ? `<img src="${e(p.imageUrl)}" alt="">` : ''}<div><h3>${e(p.name)}</h3>${p.description ? `<p>${e(p.description)}</p>` : ''}<p class="unlock">${e(unlockWords(p))}</p></div></li>`).join('')}</ul>
</section>
`
    : '';
  const board = c.board.length
    ? `<section class="board" aria-labelledby="board-h">
<h2 id="board-h">Leaderboard</h2>
<table><thead><tr><th scope="col">Rank</th><th scope="col">Name</th><th scope="col">Points</th></tr></thead>
<tbody>${c.board.map((r, i) => `<tr><td>${i + 1}</td><td>${e(r.name ?? 'Someone')}</td><td>${NUMBER.format(num(r.points))}</td></tr>`).join('')}</tbody></table>
</section>
`
    : '';
  const description = summary(c);
  const image = c.imageUrl;
  const meta = [
    `<meta name="description" content="${e(description)}">`,
    `<link rel="canonical" href="${e(pageUrl)}">`,
    '<meta property="og:type" content="website">',
    `<meta property="og:title" content="${e(c.title)}">`,
    `<meta property="og:description" content="${e(description)}">`,
    `<meta property="og:url" content="${e(pageUrl)}">`,
    ...(image ? [`<meta property="og:image" content="${e(image)}">`] : []),
    `<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">`,
    `<meta name="twitter:title" content="${e(c.title)}">`,
    `<meta name="twitter:description" content="${e(description)}">`,
    ...(image ? [`<meta name="twitter:image" content="${e(image)}">`] : []),
  ].join('\n');
  const html = htmlDocument({
    title: c.title,
    noindex: false,
    head: `${meta}
<style>${css}</style>
<script src="/signup.js" defer></script>`,
    body: `<main>
<header class="hero">
${c.logoUrl ? `<img class="logo" src="${e(c.logoUrl)}" alt="">\n` : ''}${image ? `<img src="${e(image)}" alt="">\n` : ''}<h1>${e(c.title)}</h1>
${c.description ? `<p class="lead">${e(c.description)}</p>\n` : ''}${facts.length ? `<ul class="facts">${facts.join('')}</ul>\n` : ''}</header>
${
  ended
    ? `<p class="ended" role="status">This contest has ended${c.endDate && c.endDate <= now ? ` (${e(endDateWords(c.endDate))})` : ''}. Thank you for taking part.</p>`
    : `<contest-signup contest="${e(c.id)}" no-header></contest-signup>
<noscript><p>This page needs JavaScript to sign you up.</p></noscript>`
}
${prizes}${board}</main>
${footer}`,
  });
  return { html, csp };
}

/** The 404 page: no contest, or one that takes no public sign-ups (the same answer: it says nothing more). */
export const NOT_FOUND_PAGE = htmlDocument({
  title: 'Contest not found',
  body: `<main>
<h1>Contest not found</h1>
<p>This page does not exist, or the contest no longer takes sign-ups here.</p>
</main>`,
});
