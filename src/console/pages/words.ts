/** What the API says in codes, in the operator's words. */
import { counted } from '../../lib/plural.js';

const REASONS: Record<string, string> = {
  disposable_email: 'a throwaway email address',
  email_alias: 'the same email as another entry, written differently',
  self_referral: 'referred by itself (the same email or address as its referrer)',
  ip_velocity: 'too many sign-ups from one address within the hour',
  referral_velocity: 'its referrer brought too many sign-ups within the hour',
};

/** "High risk: a throwaway email address; approved" */
export function riskInWords(risk: { level: string; reasons: string[]; review: string | null }): string {
  if (risk.level === 'none') return 'No risk signals';
  const why = risk.reasons.map((r) => REASONS[r] ?? r.replace(/_/g, ' ')).join('; ');
  const level = risk.level === 'high' ? 'High risk' : 'Worth a look';
  return `${level}: ${why}${risk.review ? `. ${risk.review === 'approved' ? 'Approved' : 'Rejected'}` : ''}`;
}

const STATUS: Record<string, string> = {
  verified: 'done',
  approved: 'approved',
  pending: 'waiting for review',
  rejected: 'rejected',
};

/** "Follow us: approved, 5 points, 3 May 10:00, proof https://…" */
export function completionInWords(b: Record<string, unknown>, when: (iso: string | null) => string): string {
  const parts = [
    STATUS[String(b.status)] ?? String(b.status ?? ''),
    counted(Number(b.pointsAwarded ?? 0), 'point', 'points'),
    when((b.completedAt as string | null) ?? null),
  ];
  if (b.proof) parts.push(`proof: ${String(b.proof)}`);
  if (b.answer) parts.push(`answer: ${String(b.answer)}`);
  return `${String(b.action ?? 'Bonus action')}: ${parts.join(', ')}`;
}

const SOURCES: Record<string, string> = {
  api: 'your server (the API)',
  signup: 'a sign-up on a page',
  instant_win: 'an instant-win prize claim',
  webhook: 'an inbound webhook',
};
export const sourceInWords = (s: string) => SOURCES[s] ?? s;

const CHANNELS: Record<string, string> = {
  x: 'X',
  facebook: 'Facebook',
  linkedin: 'LinkedIn',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  reddit: 'Reddit',
  email: 'Email',
  sms: 'SMS',
  copy: 'Copied link',
  native: "The device's share sheet",
};
/** A share channel as the console says it. */
export const channelInWords = (c: string) => CHANNELS[c] ?? c;
