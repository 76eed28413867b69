import { type PluralForms, pluralForm } from '../../lib/plural.js';

/** Every string the widget shows; a page replaces any of them with the `strings` attribute (JSON). */
export const DEFAULT_STRINGS = {
  email: 'Email',
  name: 'Name (optional)',
  submit: 'Join',
  joining: 'Joining…',
  checkInbox: 'Check your inbox: we sent you a link to confirm your email.',
  already: 'You are already in. We emailed you a link to your page.',
  alreadyRecent: 'You are already in. A link to your page was emailed to you a few minutes ago: check your inbox.',
  alreadyNoLink: 'You are already in with this email.',
  position: 'You are #{position} of {total}',
  notCounted: 'Your place appears once your email is confirmed.',
  admitted: "You're in! Check your email for what comes next.",
  behind: { one: '{behind} person behind you', other: '{behind} people behind you' },
  points: 'Points',
  referrals: 'Confirmed friends',
  pendingFriends: {
    one: '{pending} more friend signed up and has not confirmed yet',
    other: '{pending} more friends signed up and have not confirmed yet',
  },
  rewardsTitle: 'Your rewards',
  rewardCode: 'Your code: {code}',
  rewardWaiting: 'Your code is on its way.',
  nextReferrals: {
    one: '{missing} more confirmed friend to unlock {reward}',
    other: '{missing} more confirmed friends to unlock {reward}',
  },
  nextPoints: { one: '{missing} more point to unlock {reward}', other: '{missing} more points to unlock {reward}' },
  shareTitle: 'Move up: share your link',
  copy: 'Copy link',
  copied: 'Link copied',
  share: 'Share',
  shareVia: 'Share on',
  shareX: 'X',
  shareFacebook: 'Facebook',
  shareLinkedin: 'LinkedIn',
  shareWhatsapp: 'WhatsApp',
  shareTelegram: 'Telegram',
  shareReddit: 'Reddit',
  shareEmail: 'Email',
  shareSms: 'Text message',
  qrTitle: 'QR code',
  qrLabel: 'QR code of your link',
  qrDownload: 'Download the QR code',
  friendsNote: 'A friend counts once both of your emails are confirmed.',
  actionsTitle: 'More ways to earn',
  actionPoints: { one: '+{points} point', other: '+{points} points' },
  actionDo: 'Do it',
  actionVisit: 'Go',
  actionAnswer: 'Your answer or a link',
  actionSend: 'Send',
  actionDone: 'Done',
  actionWaiting: 'Waiting for review',
  ladderTitle: 'Rewards',
  ladderReferrals: { one: '{count} confirmed friend', other: '{count} confirmed friends' },
  ladderPoints: { one: '{count} point', other: '{count} points' },
  ladderUnlocked: 'Unlocked',
  copyCode: 'Copy code',
  codeCopied: 'Code copied',
  ladderProgress: 'Progress to {reward}',
  boardTitle: 'Leaderboard',
  boardRank: 'Rank',
  boardName: 'Name',
  boardPoints: 'Points',
  boardReferrals: 'Friends',
  boardYou: 'You',
  leave: 'Not you? Sign up with another email',
  closed: 'Sign-ups are closed for now.',
  error: 'Something went wrong. Please try again.',
  invalidEmail: 'Please enter a valid email address.',
  consentRequired: 'Please agree to continue.',
  optionalField: '{label} (optional)',
  choose: 'Choose…',
  fieldRequired: 'Please fill in “{label}”.',
  fieldInvalid: 'Please check “{label}”.',
  fieldTick: 'Please tick “{label}” to continue.',
  botCheck: 'Please complete the check above and try again.',
  tooMany: 'Too many attempts. Please wait a minute and try again.',
  unavailable: 'We could not check that you are human right now. Please try again.',
  noKey: 'This form needs a public key (pk_…).',
  ended:
    'Your link to this page has ended (the email was confirmed, or the page was signed out). Enter your email to be sent a new one.',
  switchPrompt: 'This link opens the entry of {email}. Switch to it?',
  switchYes: 'Switch',
  switchNo: 'Keep my entry',
} as const;

/** A string, or its plural forms (`one`, `other`, and any other of the language's), chosen by a count */
export type Text = string | PluralForms;
export type Strings = Record<keyof typeof DEFAULT_STRINGS, Text>;

const isForms = (x: unknown): x is PluralForms =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as PluralForms).one === 'string' &&
  typeof (x as PluralForms).other === 'string' &&
  Object.values(x).every((v) => typeof v === 'string');

/** The defaults with the page's overrides (unknown keys, and values neither a string nor plural forms, are ignored). */
export function stringsFrom(attr: string | null): Strings {
  const out: Strings = { ...DEFAULT_STRINGS };
  if (!attr) return out;
  try {
    const given = JSON.parse(attr) as Record<string, unknown>;
    for (const k of Object.keys(out) as (keyof Strings)[]) {
      const g = given[k];
      if (typeof g === 'string' || isForms(g)) out[k] = g;
    }
  } catch {
    /* a broken strings attribute keeps the defaults */
  }
  return out;
}

/**
 * `{name}` placeholders filled: numbers formatted for the page's language, text as it is. Plural
 * forms are chosen by the value named `count` (Intl.PluralRules of the language).
 */
export function fill(
  template: Text,
  values: Record<string, number | string>,
  lang: string | undefined,
  count?: string,
): string {
  const n = count === undefined ? undefined : values[count];
  const text =
    typeof template === 'string' ? template : pluralForm(typeof n === 'number' ? n : 0, template, lang || undefined);
  let fmt: Intl.NumberFormat;
  try {
    fmt = new Intl.NumberFormat(lang || undefined);
  } catch {
    fmt = new Intl.NumberFormat();
  }
  return text.replace(/\{(\w+)\}/g, (m, k: string) => {
    const v = values[k];
    return v === undefined ? m : typeof v === 'number' ? fmt.format(v) : v;
  });
}
