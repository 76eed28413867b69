/** A contest's giveaway draws in the console: create, commit, reveal, replace a winner, verify. */
import { useState } from 'hono/jsx/dom';
import type { Credential } from '../api.js';
import { apiClient, must, pagesKey } from '../api.js';
import { Action, ErrorLine, Link, PublicKeyForm, plural, submitWith, useLoad, when } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

export function Draws(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const draws = useLoad(
    async () =>
      must(api.GET('/api/v1/contests/{contestId}/draws', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
  );
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="draws-h">
      <h2 id="draws-h">Draws</h2>
      <p>
        A draw first <strong>commits</strong>: it freezes the eligible entries (their hash is published) and a secret
        seed (its hash too). Revealing picks the winners from both; anyone can recompute them.
      </p>
      <form
        class="inline"
        onSubmit={submitWith(setError, async (v) => {
          await must(
            api.POST('/api/v1/contests/{contestId}/draws', {
              params: { path: { contestId: props.contestId } },
              body: {
                winners: Number(v.winners),
                label: v.label || undefined,
                weighting: v.weighting === 'points' ? 'points' : 'equal',
                confirmedOnly: v.confirmedOnly === 'on',
                notifyWinners: v.notifyWinners === 'on',
              },
            }),
          );
          draws.reload();
        })}
      >
        <label for="draw-label">Label</label>
        <input id="draw-label" name="label" maxlength={200} placeholder="Main prize" />
        <label for="draw-winners">Winners</label>
        <input id="draw-winners" name="winners" type="number" min={1} max={100} value="1" required />
        <label for="draw-weighting">Weighting</label>
        <select id="draw-weighting" name="weighting">
          <option value="equal">one chance per entry</option>
          <option value="points">by points</option>
        </select>
        <label>
          <input type="checkbox" name="confirmedOnly" checked /> confirmed entries only
        </label>
        <label>
          <input type="checkbox" name="notifyWinners" /> email the winners when revealed
        </label>
        <button type="submit">Commit a draw</button>
        <ErrorLine error={error} />
      </form>
      <ErrorLine error={draws.error} />
      {draws.data?.data.map((d) => (
        <article class="draw" aria-label={`Draw ${d.label ?? d.id}`}>
          <h3>
            {d.label ?? 'Draw'} <span class={`badge ${d.status}`}>{d.status}</span>
          </h3>
          <p>
            {plural(d.eligibleCount, 'eligible entry', 'eligible entries')}, total weight {d.totalWeight},{' '}
            {plural(d.winners, 'winner')}.
          </p>
          <p class="mono">
            snapshot SHA-256 <code class="hash">{d.snapshotHash}</code>
            <br />
            seed SHA-256 <code class="hash">{d.seedHash}</code>
            {d.seed ? (
              <>
                <br />
                seed <code class="hash">{d.seed}</code>
              </>
            ) : null}
          </p>
          {d.status === 'committed' ? (
            <form
              class="inline"
              onSubmit={submitWith(setError, async (v) => {
                await must(
                  api.POST('/api/v1/draws/{drawId}/reveal', {
                    params: { path: { drawId: d.id } },
                    body: v.publicRandomness ? { publicRandomness: v.publicRandomness } : {},
                  }),
                );
                draws.reload();
              })}
            >
              <label for={`pr-${d.id}`}>Public randomness (optional, e.g. a drand round)</label>
              <input id={`pr-${d.id}`} name="publicRandomness" maxlength={200} />
              <button type="submit">Reveal winners</button>
            </form>
          ) : (
            <>
              <p>
                Public randomness: {d.publicRandomness ?? 'none'}. Revealed {when(d.revealedAt)}.
              </p>
              <p class="inline">
                <label for={`replace-reason-${d.id}`}>
                  Why a winner is replaced (kept with the draw and sent in its event)
                </label>
                <input id={`replace-reason-${d.id}`} maxlength={500} placeholder="Did not answer within 7 days" />
              </p>
              <ol class="winners">
                {d.results.map((r) => (
                  <li>
                    {r.entryId ? <Link href={`/console/entries/${r.entryId}`}>{r.email ?? r.entryId}</Link> : '—'}{' '}
                    (weight {r.weight})
                    {r.replaced ? (
                      ` replaced: ${r.replacedReason ?? ''}`
                    ) : (
                      <Action
                        label="Replace"
                        danger
                        confirm="Replace this winner with the next pick?"
                        run={async () => {
                          await must(
                            api.POST('/api/v1/draws/{drawId}/results/{entryId}/replace', {
                              params: { path: { drawId: d.id, entryId: r.entryId } },
                              body: {
                                reason:
                                  (
                                    document.getElementById(`replace-reason-${d.id}`) as HTMLInputElement | null
                                  )?.value.trim() || 'Replaced in the console',
                              },
                            }),
                          );
                          draws.reload();
                        }}
                      />
                    )}
                  </li>
                ))}
              </ol>
              <VerifyDraw drawId={d.id} />
            </>
          )}
        </article>
      ))}
    </section>
  );
}

/**
 * The draw checked in this page: the public verification page (which recomputes everything in
 * the browser from public data) in a frame, with a link to open it on its own or to share.
 */
export function VerifyDraw(props: { drawId: string }) {
  const [key, setKey] = useState(pagesKey.get());
  const [shown, setShown] = useState(false);
  const href = `/draws/${props.drawId}/verify?key=${encodeURIComponent(key)}`;
  return (
    <div class="verify">
      <p>
        Anyone can check it with one of your public keys, on the public verification page, or with{' '}
        <code>npx tsx scripts/verify-draw.ts</code>.
      </p>
      <PublicKeyForm
        id={`verify-key-${props.drawId}`}
        label="Public key"
        button="Verify here"
        required
        onKey={(k) => {
          setKey(k);
          setShown(k !== '');
        }}
      />
      {shown ? (
        <>
          <p>
            <a href={href} target="_blank" rel="noopener">
              Open the verification page
            </a>{' '}
            (share this address: it holds only the public key).
          </p>
          <iframe class="verify-frame" title={`Verification of draw ${props.drawId}`} src={href} />
        </>
      ) : null}
    </div>
  );
}
