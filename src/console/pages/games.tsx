/** @jsxImportSource hono/jsx/dom */
/**
 * Instant-win games (private key): the list, a new game with its prize tiers, and one game: tiers
 * with stock, realised against configured odds with a chi-square p-value, plays over time, the
 * provably fair seeds (rotate: reveal the current one, commit a new one), the embed snippet and a
 * live preview of the widget.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must, pagesKey } from '../api.js';
import { bucketLabel, LineChart } from '../chart.js';
import { navigate } from '../router.js';
import { chiSquare } from '../stats.js';
import { Action, ErrorLine, Link, PublicKeyForm, plural, submitWith, useLoad, when } from '../ui.js';
import { EditTiers } from './game-tiers.js';

type Team = Extract<Credential, { kind: 'team' }>;

const MECHANICS: [string, string][] = [
  ['spin-to-win', 'wheel'],
  ['scratch-and-win', 'scratch'],
  ['mystery-box', 'box'],
  ['advent-calendar', 'advent'],
  ['plinko', 'plinko'],
  ['slot-machine', 'slots'],
  ['golden-egg', 'egg'],
  ['claw-machine', 'claw'],
];

const TIER_ROWS = 4;

export function GamesPage(props: { cred: Team }) {
  const api = apiClient(props.cred);
  const list = useLoad(
    async () => must(api.GET('/api/v1/instant-win-games', { params: { query: { limit: 100 } } })),
    [],
  );
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <h1>Instant-win games</h1>
      <details>
        <summary>New game</summary>
        <form
          class="new-game"
          onSubmit={submitWith(setError, async (v) => {
            const tiers = Array.from({ length: TIER_ROWS }, (_, i) => i)
              .filter((i) => (v[`tier${i}name`] ?? '').trim() !== '')
              .map((i) => ({
                name: v[`tier${i}name`]!.trim(),
                oddsPercent: Number(v[`tier${i}odds`]),
                isMiss: v[`tier${i}miss`] === 'on',
                ...(v[`tier${i}miss`] === 'on'
                  ? {}
                  : {
                      redeemCode: v[`tier${i}code`] || undefined,
                      quantity: v[`tier${i}stock`] ? Number(v[`tier${i}stock`]) : undefined,
                    }),
              }));
            const [slug, mechanic] = MECHANICS.find(([s]) => s === v.preset) ?? MECHANICS[0]!;
            const g = (
              await must(
                api.POST('/api/v1/instant-win-games', {
                  body: {
                    title: v.title ?? '',
                    slug: slug as never,
                    mechanic: mechanic as never,
                    layout: 'default',
                    entryLimit: (v.entryLimit as never) || 'none',
                    publishAs: 'landing',
                    tiers,
                  } as never,
                }),
              )
            ).data;
            navigate(`/console/games/${g.id}`);
          })}
        >
          <label for="g-title">Title</label>
          <input id="g-title" name="title" required maxlength={200} />
          <label for="g-preset">Game</label>
          <select id="g-preset" name="preset">
            {MECHANICS.map(([s]) => (
              <option value={s}>{s}</option>
            ))}
          </select>
          <label for="g-limit">Plays per person</label>
          <select id="g-limit" name="entryLimit">
            <option value="none">unlimited</option>
            <option value="daily">one a day</option>
            <option value="device">one per device</option>
          </select>
          <table>
            <caption>Prize tiers (odds add up to 100; leave a row empty to skip it)</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Odds %</th>
                <th scope="col">No prize</th>
                <th scope="col">Code</th>
                <th scope="col">Stock</th>
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: TIER_ROWS }, (_, i) => (
                <tr>
                  <td>
                    <input
                      aria-label={`Tier ${i + 1} name`}
                      name={`tier${i}name`}
                      maxlength={100}
                      value={i === 0 ? '10% off' : i === 1 ? 'Try again' : ''}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Tier ${i + 1} odds`}
                      name={`tier${i}odds`}
                      type="number"
                      step="any"
                      min={0}
                      max={100}
                      value={i < 2 ? '50' : ''}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Tier ${i + 1} is no prize`}
                      name={`tier${i}miss`}
                      type="checkbox"
                      checked={i === 1}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Tier ${i + 1} code`}
                      name={`tier${i}code`}
                      maxlength={100}
                      value={i === 0 ? 'SAVE10' : ''}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Tier ${i + 1} stock`}
                      name={`tier${i}stock`}
                      type="number"
                      min={0}
                      placeholder="unlimited"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="submit">Create game</button>
          <ErrorLine error={error} />
        </form>
      </details>
      <ErrorLine error={list.error} />
      {list.data ? (
        list.data.data.length === 0 ? (
          <p>No game yet.</p>
        ) : (
          <table>
            <caption>{plural(list.data.data.length, 'game')}</caption>
            <thead>
              <tr>
                <th scope="col">Game</th>
                <th scope="col">Status</th>
                <th scope="col">Plays</th>
                <th scope="col">Wins</th>
                <th scope="col">Claims</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((g) => (
                <tr>
                  <td>
                    <Link href={`/console/games/${g.id}`}>{g.title}</Link> <span class="help">{g.slug}</span>
                  </td>
                  <td>
                    <span class={`badge ${g.status}`}>{g.status}</span>
                  </td>
                  <td>{g.stats.plays}</td>
                  <td>{g.stats.wins}</td>
                  <td>{g.stats.claims}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </>
  );
}

const fmtP = (p: number) => (p < 0.0001 ? '< 0.0001' : p.toFixed(4));

/** What the numbers drew per tier (all time) against the configured odds. */
function RealisedOdds(props: {
  cred: Team;
  game: {
    id: string;
    createdAt: string | null;
    tiers: { id: string; name: string; oddsPercent: number; remaining: number | null; quantity: number | null }[];
  };
}) {
  const api = apiClient(props.cred);
  const created = props.game.createdAt ? new Date(props.game.createdAt) : new Date();
  // whole days since the game began (at most 1000 buckets: older plays count in the oldest shown)
  const days = Math.min(999, Math.floor((Date.now() - created.getTime()) / 86_400_000));
  const from = new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const data = useLoad(
    async () =>
      must(
        api.GET('/api/v1/instant-win-games/{gameId}/series', {
          params: { path: { gameId: props.game.id }, query: { interval: 'day', from } },
        }),
      ),
    [props.game.id],
  );
  const s = data.data?.data;
  const drawn: Record<string, number> = {};
  const won: Record<string, number> = {};
  let plays = 0;
  for (const b of s?.buckets ?? []) {
    plays += b.plays;
    for (const [k, n] of Object.entries(b.drawn)) drawn[k] = (drawn[k] ?? 0) + n;
    for (const [k, n] of Object.entries(b.wins)) won[k] = (won[k] ?? 0) + n;
  }
  const configured = props.game.tiers.map((t) => ({ id: t.id, name: t.name, odds: t.oddsPercent }));
  const rest = Math.max(0, 100 - configured.reduce((a, t) => a + t.odds, 0));
  const rows = rest > 1e-9 ? [...configured, { id: 'none', name: 'No prize (the rest)', odds: rest }] : configured;
  const test = chiSquare(
    rows.map((r) => drawn[r.id] ?? 0),
    rows.map((r) => r.odds / 100),
  );
  return (
    <section aria-labelledby="odds-h">
      <h2 id="odds-h">Realised odds</h2>
      <ErrorLine error={data.error} />
      {s ? (
        <>
          <table id="realised-odds">
            <caption>
              {plural(plays, 'play')} since {from}: what the random number drew per tier, against the configured odds
            </caption>
            <thead>
              <tr>
                <th scope="col">Tier</th>
                <th scope="col">Configured</th>
                <th scope="col">Drawn</th>
                <th scope="col">Realised</th>
                <th scope="col">Prizes given</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const n = drawn[r.id] ?? 0;
                const pct = plays ? (100 * n) / plays : 0;
                return (
                  <tr>
                    <th scope="row">{r.name}</th>
                    <td>{r.odds}%</td>
                    <td>{n}</td>
                    <td>
                      <span class="bar" style={`width:${Math.min(100, pct).toFixed(1)}%`} aria-hidden="true" />{' '}
                      {pct.toFixed(1)}%
                    </td>
                    <td>{r.id === 'none' ? '—' : (won[r.id] ?? 0)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p id="chi-square">
            {test
              ? `Chi-square ${Number.isFinite(test.statistic) ? test.statistic.toFixed(2) : '∞'} with ${test.degreesOfFreedom} degree${test.degreesOfFreedom === 1 ? '' : 's'} of freedom: p = ${fmtP(test.pValue)}. ${
                  test.pValue < 0.001
                    ? 'A deviation this large is very unlikely with the configured odds: look into it.'
                    : 'Consistent with the configured odds.'
                }`
              : 'Chi-square: not enough plays yet.'}
          </p>
          <LineChart
            id="plays"
            title="Plays per day (UTC)"
            labels={s.buckets.map((b) => bucketLabel(b.start, 'day'))}
            series={[
              { name: 'Plays', color: '#1d4ed8', values: s.buckets.map((b) => b.plays) },
              {
                name: 'Prizes',
                color: '#15803d',
                values: s.buckets.map((b) => Object.values(b.wins).reduce((a, x) => a + x, 0)),
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}

function Seeds(props: { cred: Team; gameId: string }) {
  const api = apiClient(props.cred);
  const seeds = useLoad(
    async () =>
      must(
        api.GET('/api/v1/instant-win-games/{gameId}/fairness/seeds', { params: { path: { gameId: props.gameId } } }),
      ),
    [props.gameId],
  );
  return (
    <section aria-labelledby="seeds-h">
      <h2 id="seeds-h">Provably fair seeds</h2>
      <p>
        Every play's number comes from a server seed committed by its hash before the play. Rotating reveals the current
        seed (so players can check their plays) and commits a new one.
      </p>
      <Action
        label="Rotate the seed"
        confirm="Reveal the current seed and commit a new one?"
        run={async () => {
          await must(
            api.POST('/api/v1/instant-win-games/{gameId}/fairness/rotate', {
              params: { path: { gameId: props.gameId } },
            }),
          );
          seeds.reload();
        }}
      />
      <ErrorLine error={seeds.error} />
      {seeds.data ? (
        <table id="seeds">
          <caption>{seeds.data.data.length} seeds, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Commitment (SHA-256)</th>
              <th scope="col">Seed</th>
              <th scope="col">Plays</th>
              <th scope="col">Revealed</th>
            </tr>
          </thead>
          <tbody>
            {seeds.data.data.map((x) => (
              <tr>
                <td>
                  <code class="hash">{x.seedHash}</code>
                </td>
                <td>{x.seed ? <code class="hash">{x.seed}</code> : 'current (secret)'}</td>
                <td>{x.plays}</td>
                <td>{when(x.revealedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function Embed(props: { gameId: string }) {
  const [key, setKey] = useState<string>(pagesKey.get());
  const snippet = `<script src="${location.origin}/widget.js" async></script>\n<instant-win-game game="${props.gameId}" api-key="${key || 'pk_…'}"></instant-win-game>`;
  return (
    <section aria-labelledby="embed-h">
      <h2 id="embed-h">Embed</h2>
      <p>
        Paste this into the shop's page. It takes a public key (pk_…): public keys are made to be seen in page source.
      </p>
      <pre class="embed">
        <code id="embed-snippet">{snippet}</code>
      </pre>
      <PublicKeyForm id="preview-key" label="Public key for the preview" button="Show the preview" onKey={setKey} />
      {key ? (
        <>
          <p class="help">A live preview: a spin here is a real play, counted in the figures above.</p>
          <iframe
            class="preview"
            title="Widget preview"
            src={`/demo/instant-win/${props.gameId}?key=${encodeURIComponent(key)}`}
          />
        </>
      ) : null}
    </section>
  );
}

export function GamePage(props: { cred: Team; gameId: string }) {
  const api = apiClient(props.cred);
  const game = useLoad(
    async () => must(api.GET('/api/v1/instant-win-games/{gameId}', { params: { path: { gameId: props.gameId } } })),
    [props.gameId],
  );
  const g = game.data?.data;
  return (
    <>
      <p>
        <Link href="/console/games">All games</Link>
      </p>
      <ErrorLine error={game.error} />
      {g ? (
        <>
          <h1>{g.title}</h1>
          <p>
            <span class={`badge ${g.status}`}>{g.status}</span> {g.mechanic}, {plural(g.stats.plays, 'play')},{' '}
            {plural(g.stats.wins, 'prize')}, {g.stats.claims} claimed
          </p>
          <table id="tiers">
            <caption>Prize tiers</caption>
            <thead>
              <tr>
                <th scope="col">Tier</th>
                <th scope="col">Odds</th>
                <th scope="col">Stock left</th>
                <th scope="col">Codes left</th>
              </tr>
            </thead>
            <tbody>
              {g.tiers.map((t) => (
                <tr>
                  <th scope="row">
                    {t.name}
                    {t.isMiss ? ' (no prize)' : ''}
                  </th>
                  <td>{t.oddsPercent}%</td>
                  <td>{t.quantity === null ? 'unlimited' : `${t.remaining} of ${t.quantity}`}</td>
                  <td>{t.deliveryType === 'unique_code' ? `${t.codesAvailable} of ${t.codesTotal}` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <EditTiers cred={props.cred} game={g} onSaved={game.reload} />
          <RealisedOdds cred={props.cred} game={g} />
          <Seeds cred={props.cred} gameId={g.id} />
          <Embed gameId={g.id} />
        </>
      ) : null}
    </>
  );
}
