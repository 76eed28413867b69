/**
 * The widget's pure parts, without a browser: wheel geometry (the stop always shows the server's
 * tier) and the sentence shown for every API failure.
 */
import { describe, expect, it } from 'vitest';
import { segmentUnderPointer, shortLabel, targetRotation, textColorOn } from './geometry.js';
import { asSentence, failureSentence, statusSentence } from './messages.js';

describe('wheel geometry', () => {
  it('stops with the chosen segment under the pointer, after whole extra turns, whatever the jitter', () => {
    let checked = 0;
    for (let n = 2; n <= 12; n++) {
      for (let i = 0; i < n; i++) {
        for (const jitter of [0, 0.25, 0.5, 0.999, 1]) {
          for (const current of [0, 17.5, 359.9, 1234.5, -90]) {
            const to = targetRotation(current, i, n, jitter, 6);
            expect(segmentUnderPointer(to, n)).toBe(i);
            expect(to - current).toBeGreaterThanOrEqual(6 * 360);
            expect(to - current).toBeLessThan(7 * 360);
            // never near a dividing line: at least 15% of a segment away from both edges
            const a = (((-to % 360) + 360) % 360) - i * (360 / n);
            expect(a).toBeGreaterThanOrEqual(0.15 * (360 / n) - 1e-9);
            expect(a).toBeLessThanOrEqual(0.85 * (360 / n) + 1e-9);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(1925);
  });

  it('a result that is not on the wheel (id null) stops exactly on a dividing line', () => {
    for (let n = 2; n <= 8; n++) {
      const to = targetRotation(10, null, n, 0.4, 5);
      const a = ((-to % 360) + 360) % 360;
      const rem = a % (360 / n);
      expect(Math.min(rem, 360 / n - rem)).toBeLessThan(1e-6);
    }
  });

  it('labels fit and text contrasts with the segment colour', () => {
    expect(shortLabel('Free shipping', 4)).toBe('Free shipping');
    expect(shortLabel('A very long prize name indeed', 8)).toBe('A very long\u2026');
    expect(textColorOn('#ffffff')).toBe('#111');
    expect(textColorOn('#fde68a')).toBe('#111');
    expect(textColorOn('#4f46e5')).toBe('#fff');
    expect(textColorOn('#000')).toBe('#fff');
    expect(textColorOn('rebeccapurple')).toBeNull();
  });
});

describe('failure sentences', () => {
  const f = (status: number, apiMessage = '', retryAfter: number | null = null) => ({ status, apiMessage, retryAfter });

  it('says each API error the player can meet as a clear sentence', () => {
    expect(failureSentence(f(403, 'You have already played'), 'play')).toBe(
      'You have already played this game. Thanks for taking part!',
    );
    expect(failureSentence(f(403, 'You have already played today'), 'play')).toBe(
      'You have already played today. Come back tomorrow for another try!',
    );
    expect(failureSentence(f(409, 'Game is not active'), 'play')).toBe(
      'This game is not open right now. Please come back later.',
    );
    expect(failureSentence(f(410, 'This prize reservation has expired'), 'claim')).toBe(
      'This prize reservation has expired: prizes must be claimed within 24 hours of playing.',
    );
    expect(failureSentence(f(429, 'Too many requests', 42), 'play')).toBe(
      'Too many attempts in a short time. Please wait 42 seconds and try again.',
    );
    expect(failureSentence(f(429, 'Too many requests', 1), 'play')).toBe(
      'Too many attempts in a short time. Please wait 1 second and try again.',
    );
    expect(failureSentence(f(429, 'Too many requests'), 'play')).toBe(
      'Too many attempts in a short time. Please wait a minute and try again.',
    );
    expect(failureSentence(f(400, 'Invalid email'), 'claim')).toBe('Please enter a valid email address.');
    expect(failureSentence(f(403, 'This play belongs to another device'), 'claim')).toBe(
      'This prize was won on another device. Please claim it on the device you played on.',
    );
    expect(failureSentence(f(409, 'This prize has already been claimed'), 'claim')).toBe(
      'This prize has already been claimed with another email address.',
    );
    expect(failureSentence(f(404, 'Game not found'), 'load')).toBe(
      'This game could not be found. It may have been removed.',
    );
    expect(failureSentence(f(404, 'Play not found'), 'claim')).toBe(
      'We could not find this prize. It may have been removed.',
    );
    expect(failureSentence(f(401, 'Missing or invalid API key'), 'load')).toBe(
      'This game cannot be shown: the API key on this page is not valid.',
    );
    expect(failureSentence(f(0), 'play')).toBe('We could not reach the game. Check your connection and try again.');
    expect(failureSentence(f(500, 'Internal server error'), 'play')).toBe(
      'Something went wrong on our side. Please try again in a moment.',
    );
    expect(failureSentence(f(502), 'load')).toBe('Something went wrong on our side. Please try again in a moment.');
  });

  it('an unknown message still reads as a sentence', () => {
    expect(failureSentence(f(400, 'something odd'), 'play')).toBe('Something odd.');
    expect(failureSentence(f(418, ''), 'play')).toBe('Something went wrong on our side. Please try again in a moment.');
    expect(asSentence('Done!')).toBe('Done!');
  });

  it('a game that is not active says so before anyone plays', () => {
    expect(statusSentence('active')).toBeNull();
    expect(statusSentence(undefined)).toBeNull();
    expect(statusSentence('paused')).toBe('This game is not open right now. Please come back later.');
    expect(statusSentence('draft')).toBe('This game is not open right now. Please come back later.');
    expect(statusSentence('ended')).toBe('This game has ended. Thanks for your interest!');
  });
});
