/**
 * What a transport throws when a send did not go through. `permanent` means retrying the same
 * email cannot succeed (the provider refused this message: bad address, rejected content); the
 * outbox marks it `failed` at once. Anything else (network, timeouts, 429, 5xx, a key or sender
 * not configured yet) is retried with backoff.
 */
export class MailError extends Error {
  readonly permanent: boolean;
  constructor(message: string, opts: { permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'MailError';
    this.permanent = opts.permanent ?? false;
  }
}

export const isPermanentMailError = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { permanent?: unknown }).permanent === true;

/** One line, bounded, for `email_outbox.last_error` and logs. */
export function mailErrorMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s+/g, ' ').trim().slice(0, 500) || 'unknown error';
}
