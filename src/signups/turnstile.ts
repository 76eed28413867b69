/**
 * Cloudflare Turnstile's siteverify, for contests whose sign-ups ask for it (`botCheck:
 * "turnstile"`). Called after the rate limit and before any write, with a 5 s limit; it fails
 * closed: a missing or refused token is `failed` (403), siteverify unreachable (or no secret
 * configured) is `unavailable` (503), and nothing is written in either case.
 */
export const TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
export const TURNSTILE_TIMEOUT_MS = 5_000;
/** Turnstile's tokens are at most 2048 characters */
export const TURNSTILE_TOKEN_MAX = 2048;

export type TurnstileOutcome = 'ok' | 'failed' | 'unavailable';

export async function verifyTurnstile(p: {
  secretKey: string | undefined;
  verifyUrl: string | undefined;
  token: string | undefined;
  remoteIp: string | null;
  fetch: typeof fetch;
  /** how long siteverify may take (TURNSTILE_TIMEOUT_MS; tests whose stand-in shares a busy process give it more) */
  timeoutMs?: number;
}): Promise<TurnstileOutcome> {
  if (!p.token) return 'failed';
  if (!p.secretKey) return 'unavailable';
  const body = new URLSearchParams({ secret: p.secretKey, response: p.token });
  if (p.remoteIp) body.set('remoteip', p.remoteIp);
  const signal = AbortSignal.timeout(p.timeoutMs ?? TURNSTILE_TIMEOUT_MS);
  const post = () =>
    p.fetch(p.verifyUrl ?? TURNSTILE_VERIFY_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal,
    });
  let res: Response;
  try {
    res = await post();
  } catch {
    // a kept-alive connection the other side had just closed fails at once: one more try, within
    // the same time limit (a timeout is not tried again)
    if (signal.aborted) return 'unavailable';
    try {
      res = await post();
    } catch {
      return 'unavailable';
    }
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    return 'unavailable';
  }
  const answer = (await res.json().catch(() => null)) as { success?: unknown } | null;
  if (answer === null || typeof answer.success !== 'boolean') return 'unavailable';
  return answer.success ? 'ok' : 'failed';
}
