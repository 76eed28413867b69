/** @jsxImportSource hono/jsx/dom */
/** A waitlist's admission in the console: let the first N still waiting in, and see whom. */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { ErrorLine, Link, submitWith } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

export function Admission(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [admitted, setAdmitted] = useState<string[] | null>(null);
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
        })}
      >
        <label for="admit-count">How many</label>
        <input id="admit-count" name="count" type="number" min={1} max={10000} value="10" required />
        <button type="submit">Let them in</button>
        <ErrorLine error={error} />
      </form>
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
