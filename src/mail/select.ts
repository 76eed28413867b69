/**
 * Which transport the environment asks for. `MAIL_TRANSPORT` (log | smtp | resend) wins;
 * otherwise SMTP_URL means smtp, RESEND_API_KEY means resend, nothing means log.
 */
import type { Logger, Mailer } from '../deps.js';
import { MailError } from './errors.js';
import { logTransport } from './log.js';
import { resendTransport } from './resend.js';

export interface MailEnv {
  MAIL_TRANSPORT?: string;
  MAIL_FROM?: string;
  SMTP_URL?: string;
  RESEND_API_KEY?: string;
  RESEND_API_URL?: string;
}

export type TransportKind = 'log' | 'smtp' | 'resend';

export function transportKind(env: MailEnv): TransportKind {
  const explicit = env.MAIL_TRANSPORT?.trim().toLowerCase();
  if (explicit) {
    if (explicit === 'log' || explicit === 'smtp' || explicit === 'resend') return explicit;
    throw new Error(`MAIL_TRANSPORT must be log, smtp or resend (got "${env.MAIL_TRANSPORT}")`);
  }
  if (env.SMTP_URL) return 'smtp';
  if (env.RESEND_API_KEY) return 'resend';
  return 'log';
}

/** Problems with the mail settings, in words (empty when fine). */
export function mailConfigProblem(env: MailEnv, kind: TransportKind): string | null {
  if (kind === 'log') return null;
  if (kind === 'smtp' && !env.SMTP_URL) return 'MAIL_TRANSPORT=smtp needs SMTP_URL';
  if (kind === 'resend' && !env.RESEND_API_KEY) return 'MAIL_TRANSPORT=resend needs RESEND_API_KEY';
  if (!env.MAIL_FROM)
    return `the ${kind} transport needs MAIL_FROM (the sender, e.g. "Contests <contests@example.com>")`;
  return null;
}

/** A mailer that refuses every send with `reason` (kept pending and retried; the reason is logged and stored). */
export function misconfiguredMailer(reason: string): Mailer {
  return {
    async send() {
      throw new MailError(`mail not configured: ${reason}`);
    },
  };
}

/**
 * The mailer for the Worker: log or Resend (SMTP needs TCP sockets and nodemailer, which stay
 * out of the Worker bundle). A bad setting does not take the API down: sends fail with the reason,
 * stay pending and are retried once the setting is fixed.
 */
export function workerMailer(env: MailEnv, logger: Logger, fetchImpl?: typeof fetch): Mailer {
  let kind: TransportKind;
  try {
    kind = transportKind(env);
  } catch (e) {
    return misconfiguredMailer((e as Error).message);
  }
  if (kind === 'smtp') return misconfiguredMailer('SMTP is not available on Workers; use RESEND_API_KEY');
  const problem = mailConfigProblem(env, kind);
  if (problem) return misconfiguredMailer(problem);
  if (kind === 'resend') {
    return resendTransport({
      apiKey: env.RESEND_API_KEY!,
      from: env.MAIL_FROM!,
      apiUrl: env.RESEND_API_URL,
      fetch: fetchImpl,
    });
  }
  return logTransport(logger);
}
