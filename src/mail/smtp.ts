/**
 * SMTP through nodemailer, for the Node runner only (src/node.ts imports this file dynamically;
 * it never reaches the Worker bundle).
 *
 * SMTP has no idempotency: delivery is at least once. If the process dies after the server
 * accepted a message and before the outbox row was marked sent, the lease expires and the email
 * is sent again. Every copy carries the same Message-ID (derived from the row's idempotency key),
 * so mail systems that dedupe by Message-ID show it once.
 */
import nodemailer from 'nodemailer';
import type { Mailer } from '../deps.js';
import { MailError } from './errors.js';

export interface SmtpOptions {
  /** smtp://user:pass@host:587 or smtps://user:pass@host:465 */
  url: string;
  from: string;
  /** ms to wait for connection, greeting and socket inactivity (default 15 s) */
  timeoutMs?: number;
}

export interface SmtpMailer extends Mailer {
  close(): void;
}

/** `<key@domain-of-from>`: stable per outbox row, so duplicates share one Message-ID */
export function messageIdFor(idempotencyKey: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'contest-engine.local';
  return `<${idempotencyKey}@${domain}>`;
}

export function smtpTransport(opts: SmtpOptions): SmtpMailer {
  const timeout = opts.timeoutMs ?? 15_000;
  const transport = nodemailer.createTransport(opts.url, {});
  const o = transport.options as Record<string, unknown>;
  o.connectionTimeout ??= timeout;
  o.greetingTimeout ??= timeout;
  o.socketTimeout ??= timeout;
  return {
    async send(email) {
      try {
        await transport.sendMail({
          from: opts.from,
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html ?? undefined,
          messageId: messageIdFor(email.idempotencyKey, opts.from),
        });
      } catch (e) {
        const err = e as { message?: string; responseCode?: number; permanent?: boolean };
        // 5xx refusals of the message are permanent; authentication (530/534/535) is a
        // configuration problem the operator can fix, so it is retried.
        const authProblem = err.responseCode === 530 || err.responseCode === 534 || err.responseCode === 535;
        throw new MailError(`SMTP ${err.responseCode ?? 'error'}: ${err.message ?? String(e)}`, {
          permanent: err.permanent === true && !authProblem,
          cause: e,
        });
      }
    },
    close: () => transport.close(),
  };
}
