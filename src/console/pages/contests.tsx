/** @jsxImportSource hono/jsx/dom */
/**
 * Contests (private key): the list, and one contest in sections, each with its own URL
 * (/console/contests/:id/:section): overview (totals, the funnel, activity), entries, review,
 * bonus actions, rewards, waitlist (waitlists), draws, emails, embed, settings.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { ErrorLine, Link, Pager, plural, useLoad, when } from '../ui.js';
import { Activity, BonusActions, CompletionsQueue } from './contest-activity.js';
import { Admission } from './contest-admit.js';
import { Draws } from './contest-draws.js';
import { AddEntry, Entries, ReviewQueue } from './contest-entries.js';
import { Funnel } from './contest-overview.js';
import { EmailTexts, Rewards } from './contest-rewards.js';
import { ContestSettings, NewContest } from './contest-settings.js';
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
            <dt>Bonus completions done</dt>
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

/** A contest's sections: [path segment, name]; the waitlist's only on a waitlist. */
export const SECTIONS = [
  ['', 'Overview'],
  ['entries', 'Entries'],
  ['review', 'Review'],
  ['bonus-actions', 'Bonus actions'],
  ['rewards', 'Rewards'],
  ['waitlist', 'Waitlist'],
  ['draws', 'Draws'],
  ['emails', 'Emails'],
  ['embed', 'Embed'],
  ['settings', 'Settings'],
] as const;
export type Section = (typeof SECTIONS)[number][0];

export function ContestPage(props: { cred: Team; contestId: string; section: string }) {
  const api = apiClient(props.cred);
  const contest = useLoad(
    async () => must(api.GET('/api/v1/contests/{contestId}', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
  );
  const c = contest.data?.data;
  const sections = SECTIONS.filter(([s]) => s !== 'waitlist' || c?.mode === 'waitlist');
  const known = sections.some(([s]) => s === props.section);
  const base = `/console/contests/${props.contestId}`;
  const cred = props.cred;
  const id = props.contestId;
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
          <nav aria-label="Contest sections" class="sections">
            <ul>
              {sections.map(([s, name]) => (
                <li>
                  <Link href={s ? `${base}/${s}` : base} current={s === props.section}>
                    {name}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {!known ? (
            <p role="alert">
              This contest has no section called “{props.section}”. <Link href={base}>Go to its overview</Link>.
            </p>
          ) : props.section === '' ? (
            <>
              <Totals cred={cred} contestId={id} />
              <Funnel cred={cred} contestId={id} />
              <Activity cred={cred} contestId={id} />
            </>
          ) : props.section === 'entries' ? (
            <>
              <AddEntry cred={cred} contestId={id} />
              <Entries cred={cred} contestId={id} />
            </>
          ) : props.section === 'review' ? (
            <>
              <ReviewQueue cred={cred} contestId={id} />
              <CompletionsQueue cred={cred} contestId={id} />
            </>
          ) : props.section === 'bonus-actions' ? (
            <BonusActions cred={cred} contestId={id} />
          ) : props.section === 'rewards' ? (
            <Rewards cred={cred} contestId={id} />
          ) : props.section === 'waitlist' ? (
            <Admission cred={cred} contestId={id} />
          ) : props.section === 'draws' ? (
            <Draws cred={cred} contestId={id} />
          ) : props.section === 'emails' ? (
            <EmailTexts cred={cred} contestId={id} />
          ) : props.section === 'embed' ? (
            <SignupEmbed cred={cred} contestId={id} />
          ) : (
            <ContestSettings cred={cred} contestId={id} onSaved={contest.reload} />
          )}
        </>
      ) : null}
    </>
  );
}
