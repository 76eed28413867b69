/**
 * Resend's HTTP API (https://resend.com/docs/api-reference/emails/send-email): works from
 * Workers (fetch only). Every request carries `Idempotency-Key` = the outbox row's
 * idempotency_key, so a retry after a crash between "sent" and "marked sent" is answered by
 * Resend with the original response instead of a second email (within Resend's 24 h window).
 */
import type { Mailer } from '../deps.js';
import { MailError } from './errors.js';

export const RESEND_API_URL = 'https://api.resend.com';

export interface ResendOptions {
  apiKey: string;
  /** sender, e.g. `Contests <contests@example.com>` (a domain verified in Resend) */
  from: string;
  /** base URL, default https://api.resend.com (tests point it at a local fake) */
  apiUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Resend answers `{statusCode, name, message}` on errors. */
interface ResendErrorBody {
  name?: string;
  message?: string;
}

/** Refusals of this very message: retrying the same request cannot succeed. */
function isPermanent(status: number, name: string | undefined): boolean {
  if (status === 409) return name === 'invalid_idempotent_request';
  return status === 400 || status === 422;
}

export function resendTransport(opts: ResendOptions): Mailer {
  const base = (opts.apiUrl || RESEND_API_URL).replace(/\/+$/, '');
  const doFetch = opts.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = opts.timeoutMs ?? 15_000;
  return {
    async send(email) {
      const body: Record<string, unknown> = {
        from: opts.from,
        to: [email.to],
        subject: email.subject,
        text: email.text,
      };
      if (email.html) body.html = email.html;
      let res: Response;
      try {
        res = await doFetch(`${base}/emails`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${opts.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': email.idempotencyKey,
            'user-agent': 'contest-engine',
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        throw new MailError(`Resend request failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      const raw = await res.text().catch(() => '');
      if (res.ok) return;
      let parsed: ResendErrorBody = {};
      try {
        parsed = JSON.parse(raw) as ResendErrorBody;
      } catch {
        /* not JSON */
      }
      const detail = [parsed.name, parsed.message ?? raw.slice(0, 200)].filter(Boolean).join(': ');
      throw new MailError(`Resend ${res.status}${detail ? ` ${detail}` : ''}`, {
        permanent: isPermanent(res.status, parsed.name),
      });
    },
  };
}
