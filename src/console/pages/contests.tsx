/** @jsxImportSource hono/jsx/dom */
/** Contests (private key): the list, and one contest: totals, top referrers, entries, admission (waitlists), draws, export. */
import { useState } from 'hono/jsx/dom';
import { type Credential, apiClient, authHeaders, messageOf, must } from '../api.js';
import { navigate, useLocation } from '../router.js';
import { Action, ErrorLine, formValues, Link, Pager, plural, useLoad, when } from '../ui.js';
import { ContestSettings, NewContest } from './contest-settings.js';
import { Activity, BonusActions, CompletionsQueue } from './contest-activity.js';
import { Admission } from './contest-admit.js';
import { EmailTexts, Rewards } from './contest-rewards.js';
import { Draws } from './contest-draws.js';
import { SignupEmbed } from './contest-signup.js';

type Team = Extract<Credential, { kind: 'team' }>;

export function ContestsPage(props: { cred: Team }) {
  const api = apiClient(props.cred);
  const [page, setPage] = useState(1);
  const list = useLoad(
    async () => must(api.GET('/api/v1/contests', { params: { query: { page, limit: 20 } } })),
    [page],
  );
  return (
    <>
      <h1>Contests</h1>
      <NewContest cred={props.cred} />
      <ErrorLine error={list.error} />
      {list.data ? (
        list.data.data.length === 0 ? (
          <p>This team has no contest yet: create one above.</p>
        ) : (
          <>
            <table>
              <caption>{plural(list.data.pagination?.total ?? list.data.data.length, 'contest')}</caption>
              <thead>
                <tr>
                  <th scope="col">Contest</th>
                  <th scope="col">Status</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Entries</th>
                  <th scope="col">Ends</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((c) => (
                  <tr>
                    <td>
                      <Link href={`/console/contests/${c.id}`}>{c.title}</Link>
                    </td>
                    <td>
                      <span class={`badge ${c.status}`}>{c.status}</span>
                    </td>
                    <td>{c.mode}</td>
                    <td>{c.entriesCount}</td>
                    <td>{c.isEvergreen ? 'never' : when(c.endDate)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} totalPages={list.data.pagination?.totalPages ?? 1} onPage={setPage} />
          </>
        )
      ) : null}
    </>
  );
}

function Totals(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const stats = useLoad(
    async () =>
      must(api.GET('/api/v1/contests/{contestId}/analytics', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
    { live: true },
  );
  const top = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/leaderboard', {
          params: { path: { contestId: props.contestId }, query: { limit: 5 } },
        }),
      ),
    [props.contestId],
    { live: true },
  );
  const s = stats.data?.data;
  return (
    <section aria-labelledby="totals-h">
      <h2 id="totals-h">Totals</h2>
      <ErrorLine error={stats.error} />
      {s ? (
        <dl class="totals">
          <div>
            <dt>Entries</dt>
            <dd>{s.totalEntries}</dd>
          </div>
          <div>
            <dt>Confirmed</dt>
            <dd>{s.confirmedEntries}</dd>
          </div>
          <div>
            <dt>Disqualified</dt>
            <dd>{s.disqualifiedEntries}</dd>
          </div>
          <div>
            <dt>Views</dt>
            <dd>{s.totalViews}</dd>
          </div>
          <div>
            <dt>Bonus completions</dt>
            <dd>{s.totalBonusCompletions}</dd>
          </div>
          <div>
            <dt>Points (total)</dt>
            <dd>{s.points.total}</dd>
          </div>
        </dl>
      ) : null}
      <h3>Leaderboard</h3>
      <ErrorLine error={top.error} />
      {top.data ? (
        <ol class="top">
          {top.data.data.map((r) => (
            <li>
              <Link href={`/console/entries/${r.id}`}>{r.name ?? r.email}</Link>: {r.points} points, {r.referralsCount}{' '}
              referrals
            </li>
          ))}
        </ol>
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

function Entries(props: { cred: Team; contestId: string }) {
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
  const go = (next: Record<string, string | number>) => {
    const current = { search, risk, confirmed, disqualified, referred, review, referredBy, sort, page: String(page) };
    const q = new URLSearchParams({
      ...current,
      ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)])),
    });
    for (const [k, v] of [...q]) if (!v || (k === 'page' && v === '1')) q.delete(k);
    navigate(`/console/contests/${props.contestId}${q.size ? `?${q}` : ''}`);
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
      <p>
        <Link href={`/console/contests/${props.contestId}?review=pending`}>Review queue</Link>: flagged entries not
        reviewed yet.
      </p>
      {referredBy ? (
        <p role="status">
          Showing the entries referred by <Link href={`/console/entries/${referredBy}`}>one entry</Link>.{' '}
          <Link href={`/console/contests/${props.contestId}`}>Show all</Link>
        </p>
      ) : null}
      <ErrorLine error={list.error} />
      {list.data ? (
        <>
          <table>
            <caption>
              {list.data.pagination.total}{' '}
              {search || risk || confirmed || disqualified || referred || review || referredBy ? 'matching ' : ''}
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
                    {e.risk.level === 'none'
                      ? 'none'
                      : `${e.risk.level} (${e.risk.reasons.join(', ')})${e.risk.review ? `, ${e.risk.review}` : ''}`}
                    {e.disqualified ? ', disqualified' : ''}
                  </td>
                  <td>{when(e.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.data.pagination.totalPages} onPage={(p) => go({ page: p })} />
        </>
      ) : null}
    </section>
  );
}

/**
 * The contest's CSV, read as a stream with progress: the page stays responsive however large it
 * is, then the browser saves the file.
 */
function Export(props: { cred: Team; contestId: string }) {
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [href, setHref] = useState<{ url: string; name: string } | null>(null);
  const run = async () => {
    setError(null);
    setHref(null);
    setProgress('Starting…');
    try {
      const res = await fetch(`/api/v1/contests/${props.contestId}/entries/export`, {
        headers: authHeaders(props.cred),
      });
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
        setProgress(`${Math.max(0, lines - 1).toLocaleString()} entries, ${(bytes / 1024).toFixed(0)} KiB received…`);
      }
      const blob = new Blob(parts as BlobPart[], { type: 'text/csv' });
      const url = URL.createObjectURL(blob);
      setHref({ url, name });
      setProgress(`${Math.max(0, lines - 1).toLocaleString()} entries, ${(bytes / 1024).toFixed(0)} KiB: ready.`);
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
      <p>Every entry as CSV (spreadsheet-safe), oldest first.</p>
      <Action label="Download CSV" run={run} id="export-csv" />
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

export function ContestPage(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const contest = useLoad(
    async () => must(api.GET('/api/v1/contests/{contestId}', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
  );
  const c = contest.data?.data;
  return (
    <>
      <p>
        <Link href="/console/contests">All contests</Link>
      </p>
      <ErrorLine error={contest.error} />
      {c ? (
        <>
          <h1>{c.title}</h1>
          <p>
            <span class={`badge ${c.status}`}>{c.status}</span> {c.mode}, slug <code>{c.slug}</code>
          </p>
          <Totals cred={props.cred} contestId={props.contestId} />
          <Activity cred={props.cred} contestId={props.contestId} />
          <Entries cred={props.cred} contestId={props.contestId} />
          <CompletionsQueue cred={props.cred} contestId={props.contestId} />
          <BonusActions cred={props.cred} contestId={props.contestId} />
          <Rewards cred={props.cred} contestId={props.contestId} />
          {c.mode === 'waitlist' ? <Admission cred={props.cred} contestId={props.contestId} /> : null}
          <Draws cred={props.cred} contestId={props.contestId} />
          <EmailTexts cred={props.cred} contestId={props.contestId} />
          <Export cred={props.cred} contestId={props.contestId} />
          <SignupEmbed contestId={props.contestId} />
          <ContestSettings cred={props.cred} contestId={props.contestId} onSaved={contest.reload} />
        </>
      ) : null}
    </>
  );
}
