/** @jsxImportSource hono/jsx/dom */
/**
 * A contest's rewards in the console: each with its threshold, codes left and unlocks, codes
 * added in place, who unlocked what; a new reward. And the emails the contest sends, in the
 * team's words, with a preview before saving.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { Action, ErrorLine, Link, plural, submitWith, useLoad, when } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

/** Codes pasted one per line (or separated by commas), blanks dropped. */
const codesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

export function Rewards(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const path = { params: { path: { contestId: props.contestId } } };
  const list = useLoad(async () => must(api.GET('/api/v1/contests/{contestId}/rewards', path)), [props.contestId]);
  const [error, setError] = useState<string | null>(null);
  const [gives, setGives] = useState<'codes' | 'code' | 'nothing'>('codes');
  const [open, setOpen] = useState<string | null>(null);
  // a private key sees the whole reward (the public view has no `gives`)
  type Row = NonNullable<typeof list.data>['data'][number];
  const all: Row[] = list.data?.data ?? [];
  const rewards = all.filter((r): r is Extract<Row, { gives: string }> => 'gives' in r);
  return (
    <section aria-labelledby="rewards-h">
      <h2 id="rewards-h">Rewards</h2>
      <p>
        A reward unlocks the moment an entry reaches its threshold (confirmed referrals or points), once per entry, and
        the person gets its code by email.
      </p>
      <ErrorLine error={list.error} />
      {rewards.length === 0 ? (
        <p>No rewards yet.</p>
      ) : (
        <table tabindex={0} aria-labelledby="rewards-h">
          <thead>
            <tr>
              <th scope="col">Reward</th>
              <th scope="col">Unlocks at</th>
              <th scope="col">Gives</th>
              <th scope="col">Codes left</th>
              <th scope="col">Unlocked</th>
              <th scope="col">Waiting for a code</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rewards.map((r) => (
              <tr>
                <td>
                  {r.name}
                  {r.description ? <div class="muted">{r.description}</div> : null}
                </td>
                <td>
                  {r.referralsRequired !== null
                    ? plural(r.referralsRequired, 'referral')
                    : plural(r.pointsRequired ?? 0, 'point')}
                </td>
                <td>
                  {r.gives === 'codes'
                    ? 'a code from the pool'
                    : r.gives === 'code'
                      ? `the code ${r.code}`
                      : 'a status'}
                </td>
                <td>{r.gives === 'codes' ? `${r.codesLeft} of ${r.codesTotal}` : '—'}</td>
                <td>{r.unlocked}</td>
                <td>{r.gives === 'codes' ? r.waitingForCode : '—'}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => setOpen(open === r.id ? null : r.id)}
                    aria-expanded={open === r.id}
                  >
                    {open === r.id ? 'Close' : 'Open'}
                  </button>{' '}
                  <Action
                    label="Delete"
                    danger
                    confirm={`Delete ${r.name}? Nobody unlocks it any more; what was unlocked stays.`}
                    run={async () => {
                      await must(
                        api.DELETE('/api/v1/contests/{contestId}/rewards/{rewardId}', {
                          params: { path: { contestId: props.contestId, rewardId: r.id } },
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
      )}
      {open ? (
        <RewardDetail
          cred={props.cred}
          contestId={props.contestId}
          rewardId={open}
          pool={rewards.find((r) => r.id === open)?.gives === 'codes'}
          onChanged={list.reload}
        />
      ) : null}
      <h3 id="new-reward-h">New reward</h3>
      <form
        class="stack"
        aria-labelledby="new-reward-h"
        onSubmit={submitWith(setError, async (v, form) => {
          const n = Number(v.threshold);
          await must(
            api.POST('/api/v1/contests/{contestId}/rewards', {
              ...path,
              body: {
                name: v.name ?? '',
                ...(v.description ? { description: v.description } : {}),
                ...(v.kind === 'points' ? { pointsRequired: n } : { referralsRequired: n }),
                ...(gives === 'codes' ? { codes: codesOf(v.codes ?? '') } : {}),
                ...(gives === 'code' ? { code: v.code ?? '' } : {}),
              },
            }),
          );
          form.reset();
          list.reload();
        })}
      >
        <label for="reward-name">Name</label>
        <input id="reward-name" name="name" required maxLength={100} />
        <label for="reward-description">Description (optional)</label>
        <input id="reward-description" name="description" maxLength={500} />
        <label for="reward-threshold">Unlocks at</label>
        <span class="inline">
          <input id="reward-threshold" name="threshold" type="number" min={1} required />
          <select id="reward-kind" name="kind" aria-label="Counted in">
            <option value="referrals">confirmed referrals</option>
            <option value="points">points</option>
          </select>
        </span>
        <label for="reward-gives">Gives</label>
        <select
          id="reward-gives"
          name="gives"
          onChange={(e: Event) => setGives((e.target as HTMLSelectElement).value as typeof gives)}
        >
          <option value="codes">a code from a pool (each given once)</option>
          <option value="code">one code for everyone</option>
          <option value="nothing">nothing: a status such as early access</option>
        </select>
        {gives === 'codes' ? (
          <>
            <label for="reward-codes">Codes, one per line (more can be added later)</label>
            <textarea id="reward-codes" name="codes" rows={4} />
          </>
        ) : null}
        {gives === 'code' ? (
          <>
            <label for="reward-code">Code</label>
            <input id="reward-code" name="code" required maxLength={100} />
          </>
        ) : null}
        <button type="submit">Create reward</button>
        <ErrorLine error={error} />
      </form>
    </section>
  );
}

function RewardDetail(props: {
  cred: Team;
  contestId: string;
  rewardId: string;
  pool: boolean;
  onChanged: () => void;
}) {
  const api = apiClient(props.cred);
  const ids = { contestId: props.contestId, rewardId: props.rewardId };
  const unlocks = useLoad(
    async () =>
      must(
        api.GET('/api/v1/contests/{contestId}/rewards/{rewardId}/unlocks', {
          params: { path: ids, query: { limit: 50 } },
        }),
      ),
    [props.rewardId],
  );
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const rows = unlocks.data?.data ?? [];
  return (
    <div class="panel" id="reward-detail">
      {props.pool ? (
        <form
          class="stack"
          onSubmit={submitWith(setError, async (v, form) => {
            const r = await must(
              api.POST('/api/v1/contests/{contestId}/rewards/{rewardId}/codes', {
                params: { path: ids },
                body: { codes: codesOf(v.codes ?? '') },
              }),
            );
            setAdded(
              `Added ${r.data.added}` +
                (r.data.duplicates ? ` (${r.data.duplicates} already there)` : '') +
                (r.data.given ? `; ${r.data.given} given at once to people waiting` : '') +
                `. ${r.data.codesLeft} left.`,
            );
            form.reset();
            props.onChanged();
            unlocks.reload();
          })}
        >
          <label for="add-codes">Add codes, one per line</label>
          <textarea id="add-codes" name="codes" rows={4} required />
          <button type="submit">Add codes</button>
          <ErrorLine error={error} />
          {added ? (
            <p role="status" id="codes-result">
              {added}
            </p>
          ) : null}
        </form>
      ) : null}
      <h3 id="unlocks-h">Who unlocked it {unlocks.data ? `(${unlocks.data.pagination.total})` : ''}</h3>
      <ErrorLine error={unlocks.error} />
      {rows.length === 0 ? (
        <p>Nobody yet.</p>
      ) : (
        <ul aria-labelledby="unlocks-h" class="unlocks">
          {rows.map((u) => (
            <li>
              {u.entryId ? (
                <Link href={`/console/entries/${u.entryId}`}>{u.email ?? u.name ?? u.entryId}</Link>
              ) : (
                'erased'
              )}{' '}
              {u.code ? <code>{u.code}</code> : u.waitingForCode ? 'waiting for a code' : ''} ({when(u.unlockedAt)})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const KIND_LABEL: Record<string, string> = {
  confirmation: 'Confirm your email',
  'status-link': 'Your link (signing up again)',
  reward: 'Reward unlocked',
  admitted: "You're in (waitlist)",
  winner: 'Draw winner',
};

export function EmailTexts(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const [kind, setKind] = useState<'confirmation' | 'status-link' | 'reward' | 'admitted' | 'winner'>('confirmation');
  const params = { params: { path: { contestId: props.contestId, kind } } };
  const current = useLoad(
    async () => must(api.GET('/api/v1/contests/{contestId}/emails/{kind}', params)),
    [props.contestId, kind],
  );
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [preview, setPreview] = useState<{ subject: string; text: string } | null>(null);
  const t = current.data?.data;
  const read = () => {
    const form = document.getElementById('email-form') as HTMLFormElement;
    const v = new FormData(form);
    return { subject: String(v.get('subject') ?? ''), text: String(v.get('text') ?? '') };
  };
  return (
    <section aria-labelledby="emails-h">
      <h2 id="emails-h">Emails</h2>
      <p>What the contest's emails say. Placeholders in double braces are filled for each person.</p>
      <label for="email-kind">Which email</label>
      <select
        id="email-kind"
        onChange={(e: Event) => {
          setKind((e.target as HTMLSelectElement).value as typeof kind);
          setPreview(null);
          setSaved(null);
        }}
      >
        {Object.entries(KIND_LABEL).map(([k, label]) => (
          <option value={k} selected={k === kind}>
            {label}
          </option>
        ))}
      </select>
      <ErrorLine error={current.error} />
      {t ? (
        <form
          id="email-form"
          class="stack"
          onSubmit={submitWith(setError, async () => {
            await must(api.PUT('/api/v1/contests/{contestId}/emails/{kind}', { ...params, body: read() }));
            setSaved('Saved: the next email uses it.');
            current.reload();
          })}
        >
          <p class="muted">
            {t.custom ? `Your own text (changed ${when(t.updatedAt)}).` : 'The default text.'} Placeholders:{' '}
            {t.placeholders.map((p, i) => (
              <>
                {i ? '; ' : ''}
                <code>{`{{${p.name}}}`}</code> {p.meaning}
                {p.required ? ' (required)' : ''}
              </>
            ))}
          </p>
          <label for="email-subject">Subject</label>
          <input id="email-subject" name="subject" value={t.subject} maxLength={200} required />
          <label for="email-text">Text</label>
          <textarea id="email-text" name="text" rows={9} value={t.text} required />
          <span class="inline">
            <button type="submit">Save email</button>
            <Action
              label="Preview"
              run={async () => {
                setError(null);
                const r = await must(
                  api.POST('/api/v1/contests/{contestId}/emails/{kind}/preview', { ...params, body: read() }),
                );
                setPreview({ subject: r.data.subject, text: r.data.text });
              }}
            />
            {t.custom ? (
              <Action
                label="Back to the default"
                confirm="Replace your text with the default?"
                run={async () => {
                  await must(api.DELETE('/api/v1/contests/{contestId}/emails/{kind}', params));
                  setSaved('Back to the default text.');
                  current.reload();
                }}
              />
            ) : null}
          </span>
          <ErrorLine error={error} />
          {saved ? <p role="status">{saved}</p> : null}
        </form>
      ) : null}
      {preview ? (
        <section class="panel" id="email-preview" aria-label="Preview of the email">
          <p>
            <strong>Subject:</strong> {preview.subject}
          </p>
          <pre class="email-text">{preview.text}</pre>
        </section>
      ) : null}
    </section>
  );
}
