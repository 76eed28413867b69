/**
 * Email content, in plain text and simple HTML. Every value that came from a user (names,
 * titles, codes) is escaped in the HTML part.
 */
import { escapeHtml } from '../lib/html.js';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * Subject lines: one line (each run of control characters, C0, DEL and C1, becomes one space:
 * no header injection), trimmed of spaces, at most 200 characters (code points). The twin of the
 * database's ce_email_subject, which every statement's subject calls (src/mail/subject.test.ts).
 */
export const emailSubject = (s: string): string =>
  [...s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/^ +| +$/g, '')].slice(0, 200).join('');

const layout = (body: string) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">${body}</body></html>`;

/**
 * The confirmation email greets nobody by name: it goes to an address not yet proven to be the
 * signer's, so nothing the signer typed (a name can be any text) is written in it.
 */
export function confirmationEmail(p: { contestTitle: string; link: string }): EmailContent {
  const hello = 'Hi,';
  return {
    subject: emailSubject(`Confirm your entry: ${p.contestTitle}`),
    text: `${hello}\n\nPlease confirm your email address to complete your entry in "${p.contestTitle}":\n\n${p.link}\n\nIf you did not sign up, ignore this email.\n`,
    html: layout(
      `<p>${escapeHtml(hello)}</p><p>Please confirm your email address to complete your entry in <strong>${escapeHtml(p.contestTitle)}</strong>.</p>` +
        `<p><a href="${escapeHtml(p.link)}">Confirm my entry</a></p><p style="color:#666">If you did not sign up, ignore this email.</p>`,
    ),
  };
}

export function prizeEmail(p: {
  gameTitle: string;
  prizeName: string;
  couponCode: string | null;
  redeemUrl: string | null;
}): EmailContent {
  const lines = [`Congratulations! You won "${p.prizeName}" in "${p.gameTitle}".`, ''];
  if (p.couponCode) lines.push(`Your code: ${p.couponCode}`);
  if (p.redeemUrl) lines.push(`Redeem it here: ${p.redeemUrl}`);
  let html = `<p>Congratulations! You won <strong>${escapeHtml(p.prizeName)}</strong> in <strong>${escapeHtml(p.gameTitle)}</strong>.</p>`;
  if (p.couponCode) html += `<p>Your code: <code style="font-size:1.2em">${escapeHtml(p.couponCode)}</code></p>`;
  if (p.redeemUrl) html += `<p><a href="${escapeHtml(p.redeemUrl)}">Redeem your prize</a></p>`;
  return { subject: emailSubject(`You won: ${p.prizeName}`), text: `${lines.join('\n')}\n`, html: layout(html) };
}

export function statusLinkEmail(p: { contestTitle: string; name: string | null; link: string }): EmailContent {
  const hello = p.name ? `Hi ${p.name},` : 'Hi,';
  return {
    subject: emailSubject(`Your entry: ${p.contestTitle}`),
    text: `${hello}\n\nYou are already entered in "${p.contestTitle}". Your own page, with your place and your share link:\n\n${p.link}\n\nIf you did not ask for this, ignore this email: nothing has changed.\n`,
    html: layout(
      `<p>${escapeHtml(hello)}</p><p>You are already entered in <strong>${escapeHtml(p.contestTitle)}</strong>.</p>` +
        `<p><a href="${escapeHtml(p.link)}">See my place and my share link</a></p><p style="color:#666">If you did not ask for this, ignore this email: nothing has changed.</p>`,
    ),
  };
}

export function winnerEmail(p: { contestTitle: string; name: string | null; drawLabel: string }): EmailContent {
  const hello = p.name ? `Hi ${p.name},` : 'Hi,';
  return {
    subject: emailSubject(`You won: ${p.contestTitle}`),
    text: `${hello}\n\nYou are a winner of "${p.drawLabel}" in "${p.contestTitle}". Congratulations!\n\nThe organisers will be in touch about your prize. The draw can be checked by anyone: it was committed before the winners existed.\n`,
    html: layout(
      `<p>${escapeHtml(hello)}</p><p>You are a winner of <strong>${escapeHtml(p.drawLabel)}</strong> in <strong>${escapeHtml(p.contestTitle)}</strong>. Congratulations!</p>` +
        `<p style="color:#666">The organisers will be in touch about your prize. The draw can be checked by anyone: it was committed before the winners existed.</p>`,
    ),
  };
}

export function admittedEmail(p: { contestTitle: string; name: string | null }): EmailContent {
  const hello = p.name ? `Hi ${p.name},` : 'Hi,';
  return {
    subject: emailSubject(`You're in: ${p.contestTitle}`),
    text: `${hello}\n\nGood news: your wait is over. You have been let in to "${p.contestTitle}".\n\nThe team will tell you what comes next.\n`,
    html: layout(
      `<p>${escapeHtml(hello)}</p><p>Good news: your wait is over. You have been let in to <strong>${escapeHtml(p.contestTitle)}</strong>.</p>` +
        `<p style="color:#666">The team will tell you what comes next.</p>`,
    ),
  };
}
