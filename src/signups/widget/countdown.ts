/**
 * The hosted page's end date, in the visitor's own words and counted down (src/signups/page.ts
 * renders it on the server in UTC): every `<time data-ce-ends>` gets the date as the browser says
 * it, and its `[data-ce-countdown]` sibling the time left, each second; at the end, "Ended". The
 * ticking text is hidden from screen readers (the date is what they read), and nothing moves when
 * the visitor prefers reduced motion beyond the minute.
 */
const pad = (n: number) => String(n).padStart(2, '0');

/** "2 days 03:04:05", "03:04:05" (under a day); "" at or past the end */
export function timeLeft(ms: number): string {
  if (ms <= 0) return '';
  const s = Math.floor(ms / 1000);
  const days = Math.floor(s / 86_400);
  const clock = `${pad(Math.floor((s % 86_400) / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return days > 0 ? `${days} ${days === 1 ? 'day' : 'days'} ${clock}` : clock;
}

export function startCountdowns(doc: Document = document): void {
  for (const time of doc.querySelectorAll<HTMLTimeElement>('time[data-ce-ends]')) {
    const end = Date.parse(time.dateTime);
    if (Number.isNaN(end)) continue;
    try {
      time.textContent = new Intl.DateTimeFormat(doc.documentElement.lang || undefined, {
        dateStyle: 'long',
        timeStyle: 'short',
      }).format(end);
    } catch {
      /* the server's words stay */
    }
    const left = time.parentElement?.querySelector<HTMLElement>('[data-ce-countdown]');
    if (!left) continue;
    const slow = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    const tick = () => {
      const rest = timeLeft(end - Date.now());
      left.textContent = rest ? ` (${slow ? rest.replace(/:\d\d$/, '') : rest} left)` : ' (ended)';
      if (rest) setTimeout(tick, slow ? 60_000 : 1000 - (Date.now() % 1000));
    };
    tick();
  }
}
