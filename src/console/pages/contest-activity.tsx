/** @jsxImportSource hono/jsx/dom */
/** A contest's activity over time, its bonus actions, and the completions waiting for review. */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { bucketLabel, type ChartRange, LineChart, RangeForm } from '../chart.js';
import { Action, ErrorLine, eachInTurn, Link, plural, submitWith, useLoad, useSelection, when } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

/** Entries, confirmations, referrals and bonus completions per hour or day over a chosen range (UTC). */
export function Activity(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [range, setRange] = useState<ChartRange>({ interval: 'day' });
  const data = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/series', {
          params: {
            path: { contestId: props.contestId },
            query: { interval: range.interval, from: range.from, to: range.to },
          },
        }),
      ),
    [props.contestId, range.interval, range.from, range.to],
  );
  const s = data.data?.data;
  return (
    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Activity</h2>
      <RangeForm id="act" range={range} onRange={setRange} />
      <ErrorLine error={data.error} />
      {s ? (
        <LineChart
          id="activity"
          title={`Per ${s.interval} (UTC), ${s.from.slice(0, 10)} to ${s.to.slice(0, 10)}`}
          labels={s.buckets.map((b) => bucketLabel(b.start, s.interval))}
          series={[
            { name: 'Entries', color: '#1d4ed8', values: s.buckets.map((b) => b.entries) },
            { name: 'Confirmations', color: '#15803d', values: s.buckets.map((b) => b.confirmations) },
            { name: 'Referrals', color: '#b45309', values: s.buckets.map((b) => b.referrals) },
            { name: 'Bonus completions submitted', color: '#7e22ce', values: s.buckets.map((b) => b.bonusCompletions) },
          ]}
        />
      ) : null}
    </section>
  );
}

export function BonusActions(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const list = useLoad(
    async () =>
      must(api.GET('/api/v1/contests/{contestId}/bonus-actions', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
  );
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="bonus-h">
      <h2 id="bonus-h">Bonus actions</h2>
      <form
        class="inline"
        onSubmit={submitWith(setError, async (v, form) => {
          await must(
            api.POST('/api/v1/contests/{contestId}/bonus-actions', {
              params: { path: { contestId: props.contestId } },
              body: {
                action: v.action ?? '',
                points: Number(v.points),
                confirmationType: (v.confirmationType as 'auto' | 'manual' | 'click') || 'auto',
                destinationUrl: v.destinationUrl || undefined,
              },
            }),
          );
          form.reset();
          list.reload();
        })}
      >
        <label for="ba-action">Action</label>
        <input id="ba-action" name="action" required maxlength={100} placeholder="Follow us on Instagram" />
        <label for="ba-points">Points</label>
        <input id="ba-points" name="points" type="number" min={0} value="5" required />
        <label for="ba-type">Completed</label>
        <select id="ba-type" name="confirmationType">
          <option value="auto">on the participant's word</option>
          <option value="click">on a click of the link</option>
          <option value="manual">after your review</option>
        </select>
        <label for="ba-url">Link</label>
        <input id="ba-url" name="destinationUrl" type="url" placeholder="https://…" />
        <button type="submit">Add bonus action</button>
        <ErrorLine error={error} />
      </form>
      <ErrorLine error={list.error} />
      {list.data && list.data.data.length > 0 ? (
        <table>
          <caption>{plural(list.data.data.length, 'bonus action')}, in display order</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Completed</th>
              <th scope="col">Points</th>
              <th scope="col">
                <span class="visually-hidden">Order and removal</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((a, i, all) => (
              <tr>
                <td>
                  <form
                    class="inline"
                    onSubmit={submitWith(setError, async (v) => {
                      await must(
                        api.PATCH('/api/v1/bonus-actions/{bonusActionId}', {
                          params: { path: { bonusActionId: a.id } },
                          body: { action: v.action ?? '' },
                        }),
                      );
                      list.reload();
                    })}
                  >
                    <label for={`ba-n-${a.id}`} class="visually-hidden">
                      Name of {a.action}
                    </label>
                    <input id={`ba-n-${a.id}`} name="action" value={a.action} required maxlength={100} />
                    <button type="submit">Rename</button>
                  </form>
                </td>
                <td>
                  {a.confirmationType === 'manual'
                    ? 'after review'
                    : a.confirmationType === 'click'
                      ? 'on click'
                      : 'on their word'}
                </td>
                <td>
                  <form
                    class="inline"
                    onSubmit={submitWith(setError, async (v) => {
                      await must(
                        api.PATCH('/api/v1/bonus-actions/{bonusActionId}', {
                          params: { path: { bonusActionId: a.id } },
                          body: { points: Number(v.points) },
                        }),
                      );
                      list.reload();
                    })}
                  >
                    <label for={`ba-p-${a.id}`} class="visually-hidden">
                      Points for {a.action}
                    </label>
                    <input id={`ba-p-${a.id}`} name="points" type="number" min={0} value={String(a.points)} required />
                    <button type="submit">Save</button>
                  </form>
                </td>
                <td class="buttons">
                  <Action
                    label="Move up"
                    disabled={i === 0}
                    run={async () => {
                      const prev = all[i - 1]!;
                      // the two swap places (an equal order: this one goes just before)
                      const mine = prev.order === a.order ? prev.order - 1 : prev.order;
                      for (const [id, order] of [
                        [a.id, mine],
                        [prev.id, a.order],
                      ] as const) {
                        await must(
                          api.PATCH('/api/v1/bonus-actions/{bonusActionId}', {
                            params: { path: { bonusActionId: id } },
                            body: { order },
                          }),
                        );
                      }
                      list.reload();
                    }}
                  />
                  <Action
                    label="Remove"
                    danger
                    confirm={`Remove ${a.action}? Nobody can complete it any more; the points it gave stay.`}
                    run={async () => {
                      await must(
                        api.DELETE('/api/v1/bonus-actions/{bonusActionId}', {
                          params: { path: { bonusActionId: a.id } },
                        }),
                      );
                      list.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : list.data ? (
        <p>No bonus action yet.</p>
      ) : null}
    </section>
  );
}

/** Manual completions waiting for review: approve or reject one, or every one selected. */
export function CompletionsQueue(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const list = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/bonus-completions', {
          params: { path: { contestId: props.contestId }, query: { limit: 50 } },
        }),
      ),
    [props.contestId],
  );
  const selected = useSelection();
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const decide = (entryId: string, bonusActionId: string, approve: boolean) =>
    must(
      api.POST('/api/v1/entries/{entryId}/bonus-actions/{bonusActionId}/verify', {
        params: { path: { entryId, bonusActionId } },
        body: { approve },
      }),
    );
  const items = list.data?.data ?? [];
  const many = async (approve: boolean) => {
    const chosen = items.filter((c) => selected.has(c.id));
    setError(null);
    const { done, failed } = await eachInTurn(chosen, (c, i) => {
      setProgress(`${approve ? 'Approving' : 'Rejecting'} ${i + 1} of ${chosen.length}…`);
      return decide(c.entryId, c.bonusActionId, approve);
    });
    setProgress(`${approve ? 'Approved' : 'Rejected'} ${plural(done, 'completion')}.`);
    if (failed.length) setError(`${plural(failed.length, 'completion')} not changed: ${failed[0]}`);
    selected.clear();
    list.reload();
  };
  return (
    <section aria-labelledby="completions-h">
      <h2 id="completions-h">Bonus completions to check</h2>
      <ErrorLine error={list.error} />
      {list.data ? (
        items.length === 0 ? (
          <p>Nothing waits for review.</p>
        ) : (
          <>
            <p class="buttons">
              <Action label="Approve selected" disabled={selected.ids.length === 0} run={() => many(true)} />
              <Action
                label="Reject selected"
                danger
                confirm={`Reject the ${selected.ids.length} selected completions?`}
                disabled={selected.ids.length === 0}
                run={() => many(false)}
              />
            </p>
            {progress ? (
              <p role="status" aria-live="polite">
                {progress}
              </p>
            ) : null}
            <ErrorLine error={error} />
            <table id="completions">
              <caption>{list.data.pagination.total} waiting, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Select</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Proof or answer</th>
                  <th scope="col">When</th>
                  <th scope="col">Decide</th>
                </tr>
              </thead>
              <tbody>
                {items.map((c) => (
                  <tr>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${c.email ?? c.entryId} for ${c.action}`}
                        checked={selected.has(c.id)}
                        onChange={(e: Event) => selected.set(c.id, (e.target as HTMLInputElement).checked)}
                      />
                    </td>
                    <td>
                      <Link href={`/console/entries/${c.entryId}`}>{c.email ?? c.name ?? c.entryId}</Link>
                    </td>
                    <td>{c.action}</td>
                    <td>{c.proof ?? c.answer ?? '—'}</td>
                    <td>{when(c.completedAt)}</td>
                    <td class="buttons">
                      <Action
                        label="Approve"
                        run={async () => {
                          await decide(c.entryId, c.bonusActionId, true);
                          list.reload();
                        }}
                      />
                      <Action
                        label="Reject"
                        danger
                        confirm="Reject this completion? The participant may complete it again."
                        run={async () => {
                          await decide(c.entryId, c.bonusActionId, false);
                          list.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )
      ) : null}
    </section>
  );
}
