/** @jsxImportSource hono/jsx/dom */
/**
 * A contest's overview: the funnel over a chosen range (page views, share-link visits, sign-ups, confirmed,
 * referred sign-ups, with the rate between each step and a CSV of its buckets,
 * the share channels,
 * the viral coefficient and its trend, where sign-ups came from, the top referrers), read again
 * while the page is visible.
 */
import { useState } from 'hono/jsx/dom';
import type { operations } from '../../lib/api.generated.js';
import { apiClient, type Credential, must } from '../api.js';
import { bucketLabel, type ChartRange, LineChart, RangeForm } from '../chart.js';
import { ErrorLine, Link, useLoad } from '../ui.js';
import { channelInWords, sourceInWords } from './words.js';

type Team = Extract<Credential, { kind: 'team' }>;

const pct = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '—');

/** one bucket of the funnel's answer (the API's own type) */
type Bucket =
  operations['getContestFunnel']['responses'][200]['content']['application/json']['data']['buckets'][number];
const CSV_COLUMNS = [
  'start',
  'views',
  'visits',
  'signups',
  'confirmed',
  'referredSignups',
  'referredConfirmed',
] as const;

/** The funnel's buckets as CSV (numbers and ISO times only: nothing to quote), as a data: address. */
export function funnelCsv(buckets: Bucket[]): string {
  return `${[CSV_COLUMNS.join(','), ...buckets.map((b) => CSV_COLUMNS.map((k) => b[k]).join(','))].join('\r\n')}\r\n`;
}
const csvHref = (buckets: Bucket[]) => `data:text/csv;charset=utf-8,${encodeURIComponent(funnelCsv(buckets))}`;

export function Funnel(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [range, setRange] = useState<ChartRange>({ interval: 'day' });
  const data = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/funnel', {
          params: {
            path: { contestId: props.contestId },
            query: { interval: range.interval, from: range.from, to: range.to },
          },
        }),
      ),
    [props.contestId, range.interval, range.from, range.to],
    { live: true },
  );
  const f = data.data?.data;
  const t = f?.totals;
  return (
    <section aria-labelledby="funnel-h">
      <h2 id="funnel-h">Funnel</h2>
      <RangeForm id="fun" range={range} onRange={setRange} />
      <ErrorLine error={data.error} />
      {f && t ? (
        <>
          <p>
            {f.from.slice(0, 10)} to {f.to.slice(0, 10)} (UTC)
          </p>
          <ol class="funnel" id="funnel-steps">
            <li>
              <span class="n">{t.views.toLocaleString()}</span> page {t.views === 1 ? 'view' : 'views'} (one per browser
              and day)
            </li>
            <li>
              <span class="n">{t.visits.toLocaleString()}</span> share-link {t.visits === 1 ? 'visit' : 'visits'} (
              {pct(t.visits, t.views)} of views)
            </li>
            <li>
              <span class="n">{t.signups.toLocaleString()}</span> sign-ups ({pct(t.signups, t.views)} of views)
            </li>
            <li>
              <span class="n">{t.confirmed.toLocaleString()}</span> confirmed ({pct(t.confirmed, t.signups)} of
              sign-ups)
            </li>
            <li>
              <span class="n">{t.referredSignups.toLocaleString()}</span> referred sign-ups (
              {pct(t.referredSignups, t.signups)} of sign-ups), {t.referredConfirmed.toLocaleString()} of them confirmed
            </li>
            <li>
              Viral coefficient{' '}
              <span class="n" id="viral-coefficient">
                {t.viralCoefficient === null ? '—' : t.viralCoefficient.toFixed(2)}
              </span>
              : confirmed referred entries per confirmed entry
            </li>
          </ol>
          <p>
            <a id="funnel-csv" download={`funnel-${props.contestId}.csv`} href={csvHref(f.buckets)}>
              Download the funnel as CSV
            </a>{' '}
            (one row per {f.interval})
          </p>
          <LineChart
            id="viral-trend"
            title={`Referred confirmations per 100 confirmations, per ${f.interval}`}
            labels={f.buckets.map((b) => bucketLabel(b.start, f.interval))}
            series={[
              {
                name: 'Per 100 confirmed',
                color: '#b45309',
                values: f.buckets.map((b) => Math.round((b.viralCoefficient ?? 0) * 100)),
              },
            ]}
          />
          <div class="two">
            <table id="funnel-sources">
              <caption>Where sign-ups came from</caption>
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Sign-ups</th>
                </tr>
              </thead>
              <tbody>
                {(
                  [
                    ['api', f.sources.api],
                    ['signup', f.sources.signup],
                    ['instant_win', f.sources.instantWin],
                    ['webhook', f.sources.webhook],
                  ] as const
                ).map(([s, n]) => (
                  <tr>
                    <td>{sourceInWords(s)}</td>
                    <td>{n.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div>
              <table id="funnel-channels">
                <caption>By share channel</caption>
                <thead>
                  <tr>
                    <th scope="col">Channel</th>
                    <th scope="col">Visits</th>
                    <th scope="col">Share clicks</th>
                    <th scope="col">Sign-ups</th>
                    <th scope="col">Confirmed</th>
                  </tr>
                </thead>
                <tbody>
                  {f.channels.map((c) => (
                    <tr>
                      <td>{channelInWords(c.channel)}</td>
                      <td>{c.visits.toLocaleString()}</td>
                      <td>{c.shares.toLocaleString()}</td>
                      <td>{c.signups.toLocaleString()}</td>
                      <td>{c.confirmed.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
          <div class="two">
            <div>
              <h3 id="top-referrers-h">Top referrers</h3>
              {f.topReferrers.length === 0 ? (
                <p>No referred sign-ups in this range.</p>
              ) : (
                <ol class="top" aria-labelledby="top-referrers-h">
                  {f.topReferrers.map((r) => (
                    <li>
                      <Link href={`/console/entries/${r.entryId}`}>{r.name ?? r.email ?? 'an erased entry'}</Link>:{' '}
                      {r.referredSignups.toLocaleString()} sign-up{r.referredSignups === 1 ? '' : 's'} from{' '}
                      {r.visits.toLocaleString()} visit{r.visits === 1 ? '' : 's'}
                    </li>
                  ))}
                </ol>
              )}
            </div>
          </div>
        </>
      ) : null}
    </section>
  );
}
