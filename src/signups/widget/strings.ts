/** Every string the widget shows; a page replaces any of them with the `strings` attribute (JSON). */
export const DEFAULT_STRINGS = {
  email: 'Email',
  name: 'Name (optional)',
  submit: 'Join',
  joining: 'Joining…',
  checkInbox: 'Check your inbox: we sent you a link to confirm your email.',
  already: 'You are already in. We emailed you a link to your page.',
  position: 'You are #{position} of {total}',
  notCounted: 'Your place appears once your email is confirmed.',
  admitted: "You're in! Check your email for what comes next.",
  points: 'Points: {points}',
  referrals: 'Friends who joined: {referrals}',
  rewardsTitle: 'Your rewards',
  rewardCode: 'Your code: {code}',
  rewardWaiting: 'Your code is on its way.',
  nextReferrals: '{missing} more confirmed friends to unlock {reward}',
  nextPoints: '{missing} more points to unlock {reward}',
  shareTitle: 'Move up: share your link',
  copy: 'Copy link',
  copied: 'Link copied',
  share: 'Share',
  leave: 'Not you? Sign up with another email',
  closed: 'Sign-ups are closed for now.',
  error: 'Something went wrong. Please try again.',
  invalidEmail: 'Please enter a valid email address.',
  consentRequired: 'Please agree to continue.',
  botCheck: 'Please complete the check above and try again.',
  tooMany: 'Too many attempts. Please wait a minute and try again.',
  unavailable: 'We could not check that you are human right now. Please try again.',
  noKey: 'This form needs a public key (pk_…).',
} as const;

export type Strings = Record<keyof typeof DEFAULT_STRINGS, string>;

/** The defaults with the page's overrides (unknown keys and non-strings are ignored). */
export function stringsFrom(attr: string | null): Strings {
  const out: Strings = { ...DEFAULT_STRINGS };
  if (!attr) return out;
  try {
    const given = JSON.parse(attr) as Record<string, unknown>;
    for (const k of Object.keys(out) as (keyof Strings)[]) if (typeof given[k] === 'string') out[k] = given[k];
  } catch {
    /* a broken strings attribute keeps the defaults */
  }
  return out;
}

/** `{name}` placeholders filled: numbers formatted for the page's language, text as it is. */
export function fill(template: string, values: Record<string, number | string>, lang: string | undefined): string {
  let fmt: Intl.NumberFormat;
  try {
    fmt = new Intl.NumberFormat(lang || undefined);
  } catch {
    fmt = new Intl.NumberFormat();
  }
  return template.replace(/\{(\w+)\}/g, (m, k: string) => {
    const v = values[k];
    return v === undefined ? m : typeof v === 'number' ? fmt.format(v) : v;
  });
}
