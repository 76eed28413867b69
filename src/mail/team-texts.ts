/**
 * The emails a team may write itself, per contest and kind (docs/emails.md): which placeholders
 * each kind takes, which it must contain, and its default text (what GET shows when the team has
 * written none). A team's text is plain text with `{{placeholders}}`; SQL fills them in one pass
 * and makes the HTML part from the text with everything escaped and the person's name never a link
 * (ce_email_fill and ce_email_html in
 * src/db/functions/email-rendering.sql), in the statement that queues the email.
 */
import { Errors } from '../errors.js';
import { admittedEmail, confirmationEmail, statusLinkEmail, winnerEmail } from './templates.js';

export const TEAM_EMAIL_KINDS = ['confirmation', 'status-link', 'reward', 'admitted', 'winner'] as const;
export type TeamEmailKind = (typeof TEAM_EMAIL_KINDS)[number];

export const PLACEHOLDERS = ['name', 'contest', 'link', 'code', 'reward', 'position'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

interface KindSpec {
  placeholders: readonly Placeholder[];
  /** a text without these is refused (a confirmation email without its link confirms nothing) */
  required: readonly Placeholder[];
  /** what each placeholder is, for the docs and the console */
  meaning: Partial<Record<Placeholder, string>>;
  /** the default as a text with placeholders; null: the database holds it (ce_reward_email_default) */
  defaultText: (() => { subject: string; text: string }) | null;
}

const NAME = 'the person\'s name, or "there" without one';
const CONTEST = "the contest's title";

/** `{{x}}` for each placeholder: the templates rendered with these give the defaults as texts. */
const p = (x: Placeholder) => `{{${x}}}`;

export const TEAM_EMAILS: Record<TeamEmailKind, KindSpec> = {
  confirmation: {
    placeholders: ['name', 'contest', 'link'],
    required: ['link'],
    meaning: { name: NAME, contest: CONTEST, link: 'the link that confirms the email' },
    defaultText: () => confirmationEmail({ contestTitle: p('contest'), link: p('link') }),
  },
  'status-link': {
    placeholders: ['name', 'contest', 'link', 'position'],
    required: ['link'],
    meaning: {
      name: NAME,
      contest: CONTEST,
      link: "the person's own page (the contest's landing page with their token)",
      position: 'their place in the contest (empty while the entry does not count)',
    },
    defaultText: () => statusLinkEmail({ contestTitle: p('contest'), name: p('name'), link: p('link') }),
  },
  reward: {
    placeholders: ['name', 'contest', 'reward', 'code'],
    required: [],
    meaning: { name: NAME, contest: CONTEST, reward: "the reward's name", code: 'the code it gives (empty: none)' },
    defaultText: null,
  },
  admitted: {
    placeholders: ['name', 'contest', 'link'],
    required: [],
    meaning: { name: NAME, contest: CONTEST, link: "the contest's landing page (empty without one)" },
    defaultText: () => admittedEmail({ contestTitle: p('contest'), name: p('name') }),
  },
  winner: {
    placeholders: ['name', 'contest', 'reward'],
    required: [],
    meaning: { name: NAME, contest: CONTEST, reward: "the draw's label (the contest's title without one)" },
    defaultText: () => winnerEmail({ contestTitle: p('contest'), name: p('name'), drawLabel: p('reward') }),
  },
};

/** The outbox's name of each kind (the outbox says status_link). */
export const OUTBOX_KIND_OF: Record<TeamEmailKind, string> = {
  confirmation: 'confirmation',
  'status-link': 'status_link',
  reward: 'reward',
  admitted: 'admitted',
  winner: 'winner',
};

export const SUBJECT_MAX = 200;
export const TEXT_MAX = 10_000;

const ANY_PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const list = (xs: readonly string[]) => xs.map((x) => `{{${x}}}`).join(', ');

function checkPlaceholders(kind: TeamEmailKind, field: 'subject' | 'text', value: string) {
  const spec = TEAM_EMAILS[kind];
  for (const m of value.matchAll(/\{\{([^{}]*)\}\}/g)) {
    const name = m[1]!;
    if (!(spec.placeholders as readonly string[]).includes(name)) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw Errors.validation(
        `Unknown placeholder {{${shown}}} in ${field}: ${kind} emails take ${list(spec.placeholders)}`,
      );
    }
  }
}

/** A team's subject as stored (`{{ name }}` written `{{name}}`); 400 naming what is wrong. */
export function parseTeamSubject(kind: TeamEmailKind, subject: string): string {
  const s = subject.trim().replace(ANY_PLACEHOLDER, (_m, x: string) => `{{${x}}}`);
  if (!s) throw Errors.validation('subject must not be empty');
  if (s.length > SUBJECT_MAX) throw Errors.validation(`subject must be at most ${SUBJECT_MAX} characters`);
  if (/[\u0000-\u001f\u007f]/.test(s)) throw Errors.validation('subject must be one line without control characters');
  checkPlaceholders(kind, 'subject', s);
  return s;
}

/** A team's text as stored (line ends as \n, `{{ name }}` written `{{name}}`); 400 naming what is wrong. */
export function parseTeamBody(kind: TeamEmailKind, text: string): string {
  const t = text
    .replace(/\r\n?/g, '\n')
    .replace(ANY_PLACEHOLDER, (_m, x: string) => `{{${x}}}`)
    .trim();
  if (!t) throw Errors.validation('text must not be empty');
  if (t.length > TEXT_MAX) throw Errors.validation(`text must be at most ${TEXT_MAX} characters`);
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(t)) throw Errors.validation('text must not contain control characters');
  checkPlaceholders(kind, 'text', t);
  for (const r of TEAM_EMAILS[kind].required) {
    if (!t.includes(`{{${r}}}`)) throw Errors.validation(`A ${kind} email's text must contain {{${r}}}`);
  }
  return t;
}

/**
 * A team's subject and text as stored. Refused with a 400 naming it: a placeholder the kind does
 * not take, a required one missing, a subject on more than one line, control characters.
 */
export function parseTeamText(kind: TeamEmailKind, subject: string, text: string): { subject: string; text: string } {
  return { subject: parseTeamSubject(kind, subject), text: parseTeamBody(kind, text) };
}
