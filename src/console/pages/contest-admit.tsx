/** @jsxImportSource hono/jsx/dom */
/**
 * A waitlist's admission in the console: the ones next in line are shown first (the leaderboard
 * of a waitlist is its queue), then *Let them in* admits that many and lists whom it let in.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { ErrorLine, Link, submitWith, useLoad } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

/** the preview shows at most this many (the leaderboard's largest page) */
const PREVIEW_MAX = 100;

export function Admission(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [count, setCount] = useState(10);
  const [admitted, setAdmitted] = useState<string[] | null>(null);
  const next = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/leaderboard', {
          params: { path: { contestId: props.contestId }, query: { limit: Math.min(Math.max(count, 1), PREVIEW_MAX) } },
        }),
      ),
    [props.contestId, count],
  );
  const waiting = next.data?.data ?? [];
  return (
    <section aria-labelledby="admit-h">
      <h2 id="admit-h">Let people in</h2>
      <p>
        The first ones still waiting, by position, get in: each is emailed "You're in" once and leaves the queue (those
        behind move up).
      </p>
      <form
        class="inline"
        onSubmit={submitWith(setError, async (v) => {
          const r = await must(
            api.POST('/api/v1/contests/{contestId}/admit', {
              params: { path: { contestId: props.contestId } },
              body: { count: Number(v.count) },
            }),
          );
          setAdmitted(r.data.entryIds);
          next.reload();
        })}
      >
        <label for="admit-count">How many</label>
        <input
          id="admit-count"
          name="count"
          type="number"
          min={1}
          max={10000}
          value={String(count)}
          required
          onInput={(e: Event) => {
            const n = Number((e.target as HTMLInputElement).value);
            if (Number.isInteger(n) && n >= 1) setCount(n);
          }}
        />
        <button type="submit">Let them in</button>
        <ErrorLine error={error} />
      </form>
      <ErrorLine error={next.error} />
      <h3 id="admit-next-h">{count > PREVIEW_MAX ? `Next in line (the first ${PREVIEW_MAX})` : 'Next in line'}</h3>
      {waiting.length === 0 ? (
        <p>Nobody is waiting.</p>
      ) : (
        <ol class="next-in-line" aria-labelledby="admit-next-h">
          {waiting.map((w) => (
            <li>
              <Link href={`/console/entries/${w.id}`}>{w.email ?? w.name ?? w.id}</Link> ({w.points} points)
            </li>
          ))}
        </ol>
      )}
      {admitted ? (
        <p role="status" id="admit-result">
          {admitted.length === 0 ? 'Nobody was waiting.' : `Let in: ${admitted.length}. `}
          {admitted.slice(0, 20).map((id, i) => (
            <>
              {i ? ', ' : ''}
              <Link href={`/console/entries/${id}`}>{id.slice(0, 8)}</Link>
            </>
          ))}
          {admitted.length > 20 ? ', …' : ''}
        </p>
      ) : null}
    </section>
  );
}
