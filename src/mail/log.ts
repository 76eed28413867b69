import type { Logger, Mailer } from '../deps.js';

/**
 * The default transport locally: prints each email (recipient, subject, plain-text body) to the
 * log instead of sending it. Nothing leaves the machine.
 */
export function logTransport(logger: Logger): Mailer {
  return {
    async send(email) {
      logger.info('email (log transport: not sent)', {
        id: email.id,
        to: email.to,
        subject: email.subject,
        text: email.text,
      });
    },
  };
}
