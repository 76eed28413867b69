/** @jsxImportSource hono/jsx/dom */
/**
 * A contest's entries (the table with its filters, one added by hand, the CSV of the current
 * filter) and its review queue (flagged entries approved or rejected in the list, one or many).
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, authHeaders, type Credential, messageOf, must } from '../api.js';
import { navigate, useLocation } from '../router.js';
import {
  Action,
  ErrorLine,
  eachInTurn,
  formValues,
  Link,
  Pager,
  plural,
  submitWith,
  useLoad,
  useSelection,
  when,
} from '../ui.js';
import { riskInWords } from './words.js';

type Team = Extract<Credential, { kind: 'team' }>;

/** An entry added by hand, as the team's server would (POST /contests/{id}/entries). */
export function AddEntry(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<{ id: string; email: string | null } | null>(null);
  return (
    <details class="add-entry">
      <summary>Add an entry</summary>
      <form
        onSubmit={submitWith(setError, async (v, form) => {
          const r = await must(
            api.POST('/api/v1/contests/{contestId}/entries', {
              params: { path: { contestId: props.contestId } },
              body: {
                email: v.email || undefined,
                name: v.name || undefined,
                phone: v.phone || undefined,
                referralCode: v.referralCode || undefined,
              },
            }),
          );
          setAdded({ id: r.data.entryId, email: r.data.email });
          form.reset();
        })}
      >
        <label for="add-email">Email</label>
        <input id="add-email" name="email" type="email" maxlength={254} />
        <label for="add-name">Name</label>
        <input id="add-name" name="name" maxlength={200} />
        <label for="add-phone">Phone</label>
        <input id="add-phone" name="phone" type="tel" maxlength={32} />
        <label for="add-code">Referral code of who referred them (optional)</label>
        <input id="add-code" name="referralCode" maxlength={100} />
        <button type="submit">Add entry</button>
        <ErrorLine error={error} />
        {added ? (
          <p role="status">
            Added: <Link href={`/console/entries/${added.id}`}>{added.email ?? 'the new entry'}</Link>.
          </p>
        ) : null}
      </form>
    </details>
  );
}

/**
 * The review queue: flagged entries not reviewed yet, oldest first, each approved or rejected in
 * the list, or many at once; the list follows changes while the page is visible.
 */
export function ReviewQueue(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [page, setPage] = useState(1);
  const selected = useSelection();
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/entries', {
          params: {
            path: { contestId: props.contestId },
            query: { review: 'pending', sort: 'oldest', page, limit: 25 },
          },
        }),
      ),
    [props.contestId, page],
    { live: true },
  );
  const decide = async (ids: string[], decision: 'approve' | 'reject') => {
    setError(null);
    setDone(null);
    const { done, failed } = await eachInTurn(ids, (id) =>
      must(api.POST('/api/v1/entries/{entryId}/review', { params: { path: { entryId: id } }, body: { decision } })),
    );
    selected.clear();
    setDone(`${decision === 'approve' ? 'Approved' : 'Rejected'} ${plural(done, 'entry', 'entries')}.`);
    if (failed.length) setError(`${plural(failed.length, 'entry', 'entries')} not changed: ${failed[0]}`);
    list.reload();
  };
  const rows = list.data?.data ?? [];
  const all = rows.length > 0 && rows.every((e) => selected.has(e.id));
  return (
    <section aria-labelledby="review-h">
      <h2 id="review-h">Flagged entries</h2>
      <p>
        Entries with risk signals, not reviewed yet. Approving releases referral points held for review; rejecting
        disqualifies the entry and takes back the referral points its sign-up gave.
      </p>
      <ErrorLine error={list.error} />
      {done ? (
        <p role="status" id="review-result">
          {done}
        </p>
      ) : null}
      <ErrorLine error={error} />
      {list.data && rows.length === 0 ? <p>Nothing waits for review.</p> : null}
      {rows.length > 0 ? (
        <>
          <p class="buttons">
            <Action
              label="Approve selected"
              disabled={selected.ids.length === 0}
              run={() => decide(selected.ids, 'approve')}
            />
            <Action
              label="Reject selected"
              danger
              disabled={selected.ids.length === 0}
              confirm={`Reject ${plural(selected.ids.length, 'entry', 'entries')}? They are disqualified.`}
              run={() => decide(selected.ids, 'reject')}
            />
          </p>
          <table>
            <caption>
              {plural(list.data?.pagination.total ?? rows.length, 'entry', 'entries')} waiting, oldest first
            </caption>
            <thead>
              <tr>
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select all on this page"
                    checked={all}
                    onChange={(e: Event) =>
                      selected.setAll((e.target as HTMLInputElement).checked ? rows.map((r) => r.id) : [])
                    }
                  />
                </th>
                <th scope="col">Entry</th>
                <th scope="col">Why</th>
                <th scope="col">Joined</th>
                <th scope="col">Decide</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => {
                const who = e.email ?? e.phone ?? e.id;
                return (
                  <tr>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${who}`}
                        checked={selected.has(e.id)}
                        onChange={(ev: Event) => selected.set(e.id, (ev.target as HTMLInputElement).checked)}
                      />
                    </td>
                    <td>
                      <Link href={`/console/entries/${e.id}`}>{who}</Link>
                      {e.name ? ` (${e.name})` : ''}
                    </td>
                    <td>{riskInWords(e.risk)}</td>
                    <td>{when(e.createdAt)}</td>
                    <td class="buttons">
                      <Action label="Approve" run={() => decide([e.id], 'approve')} />
                      <Action
                        label="Reject"
                        danger
                        confirm="Reject? It is disqualified."
                        run={() => decide([e.id], 'reject')}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.data?.pagination.totalPages ?? 1} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}

function YesNo(props: { name: string; label: string; value: '' | 'true' | 'false' }) {
  const id = `entry-${props.name}`;
  return (
    <>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        <option value="" selected={props.value === ''}>
          any
        </option>
        <option value="true" selected={props.value === 'true'}>
          yes
        </option>
        <option value="false" selected={props.value === 'false'}>
          no
        </option>
      </select>
    </>
  );
}

export function Entries(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const { query } = useLocation();
  const search = query.get('search') ?? '';
  const risk = (query.get('risk') ?? '') as '' | 'review' | 'high';
  const yesNo = (name: string) =>
    ['true', 'false'].includes(query.get(name) ?? '') ? (query.get(name) as 'true' | 'false') : '';
  const confirmed = yesNo('confirmed');
  const disqualified = yesNo('disqualified');
  const referred = yesNo('referred');
  const review = query.get('review') === 'pending' ? 'pending' : '';
  const referredBy = /^[0-9a-f-]{36}$/i.test(query.get('referredBy') ?? '') ? query.get('referredBy')! : '';
  const sort = (['oldest', 'points'].includes(query.get('sort') ?? '') ? query.get('sort') : '') as
    | ''
    | 'oldest'
    | 'points';
  const page = Number(query.get('page') ?? 1) || 1;
  const list = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/entries', {
          params: {
            path: { contestId: props.contestId },
            query: {
              page,
              limit: 25,
              search: search || undefined,
              risk: risk || undefined,
              confirmed: confirmed || undefined,
              disqualified: disqualified || undefined,
              referred: referred || undefined,
              review: review || undefined,
              referredBy: referredBy || undefined,
              sort: sort || undefined,
            },
          },
        }),
      ),
    [props.contestId, search, risk, confirmed, disqualified, referred, review, referredBy, sort, page],
    { live: true },
  );
  /** the search and filters in force (what the export takes) */
  const filter = new URLSearchParams(
    Object.entries({ search, risk, confirmed, disqualified, referred, review, referredBy }).filter(([, v]) => v),
  );
  const go = (next: Record<string, string | number>) => {
    const current = { search, risk, confirmed, disqualified, referred, review, referredBy, sort, page: String(page) };
    const q = new URLSearchParams({
      ...current,
      ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)])),
    });
    for (const [k, v] of [...q]) if (!v || (k === 'page' && v === '1')) q.delete(k);
    navigate(`/console/contests/${props.contestId}/entries${q.size ? `?${q}` : ''}`);
  };
  return (
    <section aria-labelledby="entries-h">
      <h2 id="entries-h">Entries</h2>
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is newer than the browsers operators use (Safari before 17) */}
      <form
        class="inline"
        role="search"
        onSubmit={(e: Event) => {
          const v = formValues(e);
          go({
            search: v.search ?? '',
            risk: v.risk ?? '',
            confirmed: v.confirmed ?? '',
            disqualified: v.disqualified ?? '',
            referred: v.referred ?? '',
            review: v.review ?? '',
            sort: v.sort ?? '',
            page: 1,
          });
        }}
      >
        <label for="entry-search">Search email, name or referral code</label>
        <input id="entry-search" name="search" type="search" value={search} maxlength={200} />
        <label for="entry-risk">Risk</label>
        <select id="entry-risk" name="risk">
          <option value="" selected={risk === ''}>
            any
          </option>
          <option value="review" selected={risk === 'review'}>
            review
          </option>
          <option value="high" selected={risk === 'high'}>
            high
          </option>
        </select>
        <YesNo name="confirmed" label="Confirmed" value={confirmed} />
        <YesNo name="disqualified" label="Disqualified" value={disqualified} />
        <YesNo name="referred" label="Referred" value={referred} />
        <label for="entry-review">Review</label>
        <select id="entry-review" name="review">
          <option value="" selected={review === ''}>
            any
          </option>
          <option value="pending" selected={review === 'pending'}>
            waiting for review
          </option>
        </select>
        <label for="entry-sort">Sort</label>
        <select id="entry-sort" name="sort">
          <option value="" selected={sort === ''}>
            newest first
          </option>
          <option value="oldest" selected={sort === 'oldest'}>
            oldest first
          </option>
          <option value="points" selected={sort === 'points'}>
            most points
          </option>
        </select>
        <button type="submit">Search</button>
      </form>
      {query.get('erased') ? (
        <p role="status" id="erased-notice">
          The entry was erased: its email, name, phone and custom fields are gone everywhere, and its points stay in the
          totals.
        </p>
      ) : null}
      {referredBy ? (
        <p role="status">
          Showing the entries referred by <Link href={`/console/entries/${referredBy}`}>one entry</Link>.{' '}
          <Link href={`/console/contests/${props.contestId}/entries`}>Show all</Link>
        </p>
      ) : null}
      <ErrorLine error={list.error} />
      {list.data ? (
        <>
          <table>
            <caption>
              {list.data.pagination.total} {filter.size > 0 ? 'matching ' : ''}
              entries, {sort === 'oldest' ? 'oldest first' : sort === 'points' ? 'most points first' : 'newest first'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Points</th>
                <th scope="col">Confirmed</th>
                <th scope="col">Risk</th>
                <th scope="col">Joined</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((e) => (
                <tr>
                  <td>
                    <Link href={`/console/entries/${e.id}`}>{e.email ?? e.phone ?? e.id}</Link>
                  </td>
                  <td>{e.name ?? '—'}</td>
                  <td>{e.points}</td>
                  <td>{e.emailConfirmed ? 'yes' : 'no'}</td>
                  <td>
                    {riskInWords(e.risk)}
                    {e.disqualified ? '; disqualified' : ''}
                  </td>
                  <td>{when(e.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.data.pagination.totalPages} onPage={(p) => go({ page: p })} />
        </>
      ) : null}
      <Export cred={props.cred} contestId={props.contestId} filter={filter} />
    </section>
  );
}

/**
 * The contest's CSV, read as a stream with progress: the page stays responsive however large it
 * is, then the browser saves the file.
 */
function Export(props: { cred: Team; contestId: string; filter: URLSearchParams }) {
  const filtered = props.filter.size > 0;
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [href, setHref] = useState<{ url: string; name: string } | null>(null);
  const run = async () => {
    setError(null);
    setHref(null);
    setProgress('Starting…');
    try {
      const res = await fetch(
        `/api/v1/contests/${props.contestId}/entries/export${filtered ? `?${props.filter}` : ''}`,
        {
          headers: authHeaders(props.cred),
        },
      );
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: string } | null;
        throw new Error(body?.error ?? `The server answered ${res.status}.`);
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'entries.csv';
      const reader = res.body.getReader();
      const parts: Uint8Array[] = [];
      let bytes = 0;
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        bytes += value.byteLength;
        for (const b of value) if (b === 10) lines++;
        setProgress(
          `${plural(Math.max(0, lines - 1), 'entry', 'entries')}, ${(bytes / 1024).toFixed(0)} KiB received…`,
        );
      }
      const blob = new Blob(parts as BlobPart[], { type: 'text/csv' });
      const url = URL.createObjectURL(blob);
      setHref({ url, name });
      setProgress(`${plural(Math.max(0, lines - 1), 'entry', 'entries')}, ${(bytes / 1024).toFixed(0)} KiB: ready.`);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
    } catch (e) {
      setProgress(null);
      setError(messageOf(e));
    }
  };
  return (
    <section aria-labelledby="export-h">
      <h2 id="export-h">Export</h2>
      <p>
        {filtered
          ? 'The entries matching the filter above, as CSV (spreadsheet-safe), oldest first.'
          : 'Every entry as CSV (spreadsheet-safe), oldest first.'}
      </p>
      <Action label={filtered ? 'Download matching CSV' : 'Download CSV'} run={run} id="export-csv" />
      {progress ? (
        <p role="status" aria-live="polite" id="export-progress">
          {progress}
        </p>
      ) : null}
      {href ? (
        <p>
          <a href={href.url} download={href.name}>
            Save {href.name} again
          </a>
        </p>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}
