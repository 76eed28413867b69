/** A game's tiers in the console: change names, odds and stock, add a tier, archive one. */
import { useState } from 'hono/jsx/dom';
import type { Credential } from '../api.js';
import { apiClient, must } from '../api.js';
import { ErrorLine, submitWith } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

export type TierOut = {
  id: string;
  name: string;
  oddsPercent: number;
  isMiss: boolean;
  color: string | null;
  quantity: number | null;
  redeemCode?: string | null;
  redeemUrl?: string | null;
};

/**
 * The game's status and tiers, changed in place: each tier keeps its id (its plays and wins stay
 * with it), a filled last row adds a tier, a tier marked "remove" is archived (its wins can still
 * be claimed). Codes and links are sent back as they are.
 */
export function EditTiers(props: {
  cred: Team;
  game: { id: string; status: string; publicCacheSeconds: number; tiers: TierOut[] };
  onSaved: () => void;
}) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const g = props.game;
  return (
    <section aria-labelledby="edit-tiers-h">
      <h2 id="edit-tiers-h">Change the game</h2>
      <form
        onSubmit={submitWith(setError, async (v) => {
          setSaved(false);
          const kept = g.tiers
            .filter((t) => v[`remove-${t.id}`] !== 'on')
            .map((t) => ({
              id: t.id,
              name: (v[`name-${t.id}`] ?? t.name).trim(),
              oddsPercent: Number(v[`odds-${t.id}`]),
              isMiss: t.isMiss,
              color: t.color ?? undefined,
              ...(t.isMiss
                ? {}
                : {
                    quantity: v[`stock-${t.id}`] ? Number(v[`stock-${t.id}`]) : null,
                    redeemCode: t.redeemCode ?? undefined,
                    redeemUrl: t.redeemUrl ?? undefined,
                  }),
            }));
          const added = (v['new-name'] ?? '').trim()
            ? [
                {
                  name: v['new-name']!.trim(),
                  oddsPercent: Number(v['new-odds']),
                  isMiss: v['new-miss'] === 'on',
                  ...(v['new-miss'] === 'on' ? {} : { redeemCode: v['new-code'] || undefined }),
                },
              ]
            : [];
          await must(
            api.PUT('/api/v1/instant-win-games/{gameId}', {
              params: { path: { gameId: g.id } },
              body: {
                status: v.status as never,
                publicCacheSeconds: Number(v.publicCacheSeconds),
                tiers: [...kept, ...added],
              } as never,
            }),
          );
          setSaved(true);
          props.onSaved();
        })}
      >
        <label for="game-status">Status</label>
        <select id="game-status" name="status">
          {['draft', 'active', 'paused', 'ended'].map((x) => (
            <option value={x} selected={g.status === x}>
              {x}
            </option>
          ))}
        </select>
        <label for="game-cache">Seconds the widget's reads of the game may lag (0: always exact; up to 300)</label>
        <input
          id="game-cache"
          name="publicCacheSeconds"
          type="number"
          min={0}
          max={300}
          required
          value={String(g.publicCacheSeconds)}
        />
        <table id="edit-tiers">
          <caption>Tiers in draw order; odds add up to 100 at most (the rest is no prize)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Odds %</th>
              <th scope="col">Stock (empty: unlimited)</th>
              <th scope="col">Remove</th>
            </tr>
          </thead>
          <tbody>
            {g.tiers.map((t) => (
              <tr>
                <td>
                  <input
                    aria-label={`Name of ${t.name}`}
                    name={`name-${t.id}`}
                    value={t.name}
                    maxlength={100}
                    required
                  />
                </td>
                <td>
                  <input
                    aria-label={`Odds of ${t.name}`}
                    name={`odds-${t.id}`}
                    type="number"
                    step="any"
                    min={0}
                    max={100}
                    value={String(t.oddsPercent)}
                    required
                  />
                </td>
                <td>
                  {t.isMiss ? (
                    'no prize'
                  ) : (
                    <input
                      aria-label={`Stock of ${t.name}`}
                      name={`stock-${t.id}`}
                      type="number"
                      min={0}
                      value={t.quantity === null ? '' : String(t.quantity)}
                    />
                  )}
                </td>
                <td>
                  <input aria-label={`Remove ${t.name}`} name={`remove-${t.id}`} type="checkbox" />
                </td>
              </tr>
            ))}
            <tr>
              <td>
                <input aria-label="New tier name" name="new-name" maxlength={100} placeholder="add a tier" />
              </td>
              <td>
                <input aria-label="New tier odds" name="new-odds" type="number" step="any" min={0} max={100} />
              </td>
              <td>
                <input aria-label="New tier code" name="new-code" maxlength={100} placeholder="code" />
              </td>
              <td>
                <label>
                  <input name="new-miss" type="checkbox" /> no prize
                </label>
              </td>
            </tr>
          </tbody>
        </table>
        <button type="submit">Save the game</button>
        {saved ? <p role="status">Saved.</p> : null}
        <ErrorLine error={error} />
      </form>
    </section>
  );
}
