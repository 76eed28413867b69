/**
 * Every failure the widget can meet, as one clear sentence for the player (never a blank widget,
 * never a raw status code). Pure: unit-tested without a browser.
 */
import { pluralForm } from '../../lib/plural.js';

export interface FailureLike {
  status: number;
  apiMessage: string;
  retryAfter: number | null;
}

export type Stage = 'load' | 'play' | 'claim';

const SERVER_TROUBLE = 'Something went wrong on our side. Please try again in a moment.';

/** Capitalised and ending with a full stop, so any unknown API message still reads as a sentence. */
export function asSentence(text: string): string {
  const t = text.trim();
  if (!t) return SERVER_TROUBLE;
  const s = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

export function failureSentence(f: FailureLike, stage: Stage): string {
  const m = f.apiMessage;
  switch (f.status) {
    case 0:
      return 'We could not reach the game. Check your connection and try again.';
    case 401:
      return 'This game cannot be shown: the API key on this page is not valid.';
    case 403:
      if (m === 'You have already played today')
        return 'You have already played today. Come back tomorrow for another try!';
      if (m === 'You have already played') return 'You have already played this game. Thanks for taking part!';
      if (m === 'This play belongs to another device')
        return 'This prize was won on another device. Please claim it on the device you played on.';
      return 'Sorry, you are not allowed to do that.';
    case 404:
      if (stage === 'claim' || m === 'Play not found') return 'We could not find this prize. It may have been removed.';
      return 'This game could not be found. It may have been removed.';
    case 409:
      if (m === 'Game is not active') return 'This game is not open right now. Please come back later.';
      if (m === 'This prize has already been claimed')
        return 'This prize has already been claimed with another email address.';
      return asSentence(m);
    case 410:
      return 'This prize reservation has expired: prizes must be claimed within 24 hours of playing.';
    case 429: {
      const s = f.retryAfter;
      const wait = s
        ? `Please wait ${s} ${pluralForm(s, { one: 'second', other: 'seconds' })} and try again.`
        : 'Please wait a minute and try again.';
      return `Too many attempts in a short time. ${wait}`;
    }
    case 400:
      if (m === 'Invalid email') return 'Please enter a valid email address.';
      if (m === 'This play did not win a prize') return 'This play did not win a prize, so there is nothing to claim.';
      return asSentence(m);
    case 413:
      return 'That request was too large. Please try again.';
  }
  if (f.status >= 500) return SERVER_TROUBLE;
  return asSentence(m);
}

/** What the page says when the game is loaded but not open (status from the get-game response). */
export function statusSentence(status: string | undefined): string | null {
  if (!status || status === 'active') return null;
  if (status === 'ended') return 'This game has ended. Thanks for your interest!';
  return 'This game is not open right now. Please come back later.';
}
