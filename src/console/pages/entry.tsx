/** @jsxImportSource hono/jsx/dom */
/** One entry: details, risk, points ledger, bonus completions, and the operator's actions. */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, messageOf, must } from '../api.js';
import { navigate } from '../router.js';
import { Action, ErrorLine, formValues, Link, plural, submitWith, useLoad, when } from '../ui.js';
import { completionInWords, riskInWords, sourceInWords } from './words.js';

type Team = Extract<Credential, { kind: 'team' }>;
export function EntryPage(props: { cred: Team; entryId: string }) {
  const api = apiClient(props.cred);
  const path = { params: { path: { entryId: props.entryId } } };
  const person = useLoad(async () => must(api.GET('/api/v1/entries/{entryId}/export', path)), [props.entryId]);
  const [error, setError] = useState<string | null>(null);
  const [confirmEmail, setConfirmEmail] = useState('');
  const [editError, setEditError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [dqReason, setDqReason] = useState('');
  const p = person.data?.data;
  const e = p?.entry;
  const referrerId = e?.referredBy ?? null;
  const referrer = useLoad(
    async () =>
      referrerId ? must(api.GET('/api/v1/entries/{entryId}', { params: { path: { entryId: referrerId } } })) : null,
    [referrerId],
  );
  const reload = () => person.reload();
  if (person.error) {
    return (
      <>
        <h1>Entry</h1>
        <ErrorLine error={person.error} />
      </>
    );
  }
  if (!p || !e) return <p role="status">Loading…</p>;
  return (
    <>
      <p>
        <Link href={`/console/contests/${e.contestId}/entries`}>{e.contestTitle}</Link>
      </p>
      <h1>{e.email ?? e.phone ?? e.id}</h1>
      <dl class="facts">
        <div>
          <dt>Name</dt>
          <dd>{e.name ?? '—'}</dd>
        </div>
        <div>
          <dt>Points</dt>
          <dd id="entry-points">{e.points}</dd>
        </div>
        <div>
          <dt>Referrals</dt>
          <dd>{e.referralsCount}</dd>
        </div>
        <div>
          <dt>Email confirmed</dt>
          <dd>{e.emailConfirmed ? 'yes' : 'no'}</dd>
        </div>
        <div>
          <dt>Disqualified</dt>
          <dd id="entry-disqualified">{e.disqualified ? 'yes' : 'no'}</dd>
        </div>
        <div>
          <dt>Referral code</dt>
          <dd>
            <code>{e.referralCode}</code>
          </dd>
        </div>
        <div class="sentence">
          <dt>Risk</dt>
          <dd id="entry-risk">{riskInWords(e.risk)}</dd>
        </div>
        <div>
          <dt>Joined</dt>
          <dd>{when(e.createdAt)}</dd>
        </div>
        <div class="sentence">
          <dt>Came through</dt>
          <dd id="entry-source">{sourceInWords(e.source)}</dd>
        </div>
        <div class="sentence">
          <dt>Referred by</dt>
          <dd id="entry-referrer">
            {e.referredBy ? (
              <Link href={`/console/entries/${e.referredBy}`}>
                {referrer.data?.data.name ?? referrer.data?.data.email ?? 'the entry that referred it'}
              </Link>
            ) : (
              'nobody (joined without a referral code)'
            )}
          </dd>
        </div>
      </dl>
      <Answers data={e.customFieldData} />

      <details class="edit-entry">
        <summary>Edit name, email or phone</summary>
        <form
          onSubmit={submitWith(setEditError, async (v) => {
            setSaved(false);
            await must(
              api.PUT('/api/v1/entries/{entryId}', {
                ...path,
                body: { name: v.name || null, email: v.email || null, phone: v.phone || null },
              }),
            );
            setSaved(true);
            reload();
          })}
        >
          <label for="edit-name">Name</label>
          <input id="edit-name" name="name" value={e.name ?? ''} maxlength={200} />
          <label for="edit-email">Email</label>
          <input id="edit-email" name="email" type="email" value={e.email ?? ''} maxlength={254} />
          <label for="edit-phone">Phone</label>
          <input id="edit-phone" name="phone" type="tel" value={e.phone ?? ''} maxlength={32} />
          <button type="submit">Save entry</button>
          <ErrorLine error={editError} />
          {saved ? <p role="status">Saved.</p> : null}
        </form>
      </details>

      <section aria-labelledby="actions-h">
        <h2 id="actions-h">Actions</h2>
        <form
          class="inline"
          onSubmit={async (ev: Event) => {
            const v = formValues(ev);
            setError(null);
            try {
              await must(
                api.POST('/api/v1/entries/{entryId}/points', {
                  ...path,
                  body: { points: Number(v.points), reason: v.reason ?? '' },
                }),
              );
              (ev.target as HTMLFormElement).reset();
              reload();
            } catch (err) {
              setError(messageOf(err));
            }
          }}
        >
          <label for="adjust-points">Adjust points by</label>
          <input id="adjust-points" name="points" type="number" step={1} required />
          <label for="adjust-reason">Reason</label>
          <input id="adjust-reason" name="reason" required maxlength={500} />
          <button type="submit">Adjust points</button>
          <ErrorLine error={error} />
        </form>
        <p class="inline">
          <label for="dq-reason">
            {e.disqualified ? 'Why re-qualify (kept in the history)' : 'Why disqualify (kept in the history)'}
          </label>
          <input
            id="dq-reason"
            value={dqReason}
            maxlength={500}
            onInput={(ev: Event) => setDqReason((ev.target as HTMLInputElement).value)}
          />
        </p>
        <p class="buttons">
          <Action
            label={e.disqualified ? 'Requalify' : 'Disqualify'}
            danger={!e.disqualified}
            confirm={e.disqualified ? undefined : 'Disqualify this entry? It leaves the leaderboard and draws.'}
            run={async () => {
              await must(
                api.POST('/api/v1/entries/{entryId}/disqualify', {
                  ...path,
                  body: { disqualify: !e.disqualified, reason: dqReason.trim() || undefined },
                }),
              );
              setDqReason('');
              reload();
            }}
          />
          {e.risk.level !== 'none' && !e.risk.review ? (
            <>
              <Action
                label="Approve"
                run={async () => {
                  await must(api.POST('/api/v1/entries/{entryId}/review', { ...path, body: { decision: 'approve' } }));
                  reload();
                }}
              />
              <Action
                label="Reject"
                danger
                confirm="Reject this entry? It is disqualified and its referral points are taken back."
                run={async () => {
                  await must(api.POST('/api/v1/entries/{entryId}/review', { ...path, body: { decision: 'reject' } }));
                  reload();
                }}
              />
            </>
          ) : null}
          <Action
            label="Download this person's data"
            run={async () => {
              const blob = new Blob([JSON.stringify(p, null, 2)], { type: 'application/json' });
              const a = document.createElement('a');
              a.href = URL.createObjectURL(blob);
              a.download = `entry-${e.id}.json`;
              document.body.appendChild(a);
              a.click();
              a.remove();
            }}
          />
        </p>
        <form
          class="erase"
          onSubmit={async (ev: Event) => {
            ev.preventDefault();
            setError(null);
            try {
              await must(api.DELETE('/api/v1/entries/{entryId}', path));
              navigate(`/console/contests/${e.contestId}/entries?erased=1`);
            } catch (err) {
              setError(messageOf(err));
            }
          }}
        >
          <label for="erase-confirm">
            Erase this person: type <strong>{e.email ?? e.phone}</strong> to confirm. Their email, name, phone and
            custom fields are removed everywhere; totals stay.
          </label>
          <input
            id="erase-confirm"
            value={confirmEmail}
            autocomplete="off"
            onInput={(ev: Event) => setConfirmEmail((ev.target as HTMLInputElement).value)}
          />
          <button
            type="submit"
            class="danger"
            disabled={confirmEmail.trim().toLowerCase() !== String(e.email ?? e.phone ?? '').toLowerCase()}
          >
            Erase
          </button>
        </form>
      </section>

      <section aria-labelledby="ledger-h">
        <h2 id="ledger-h">Points ledger</h2>
        <table>
          <caption>Every change of points, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Change</th>
              <th scope="col">Source</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {p.ledger.map((l) => (
              <tr>
                <td>{when(l.createdAt)}</td>
                <td>{l.delta > 0 ? `+${l.delta}` : l.delta}</td>
                <td>{l.source}</td>
                <td>{l.reason ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="bonus-h">
        <h2 id="bonus-h">Bonus completions</h2>
        {p.bonusActions.length === 0 ? <p>None.</p> : null}
        <ul class="completions">
          {p.bonusActions.map((b) => (
            <li>{completionInWords(b, when)}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="referrals-h">
        <h2 id="referrals-h">Referrals</h2>
        <p>
          {plural(e.referralsCount, 'referral')} credited to this entry.{' '}
          <Link href={`/console/contests/${e.contestId}/entries?referredBy=${e.id}`}>See the entries it referred</Link>
        </p>
      </section>
    </>
  );
}

/** What the person answered to the contest's own sign-up fields (its customFieldData), by key. */
function Answers(props: { data: Record<string, unknown> | null }) {
  const answers = Object.entries(props.data ?? {});
  if (answers.length === 0) return null;
  return (
    <section aria-labelledby="answers-h">
      <h2 id="answers-h">Sign-up answers</h2>
      <dl class="facts" id="entry-answers">
        {answers.map(([key, value]) => (
          <div class="sentence">
            <dt>{key}</dt>
            <dd>
              {typeof value === 'string'
                ? value
                : typeof value === 'boolean'
                  ? value
                    ? 'yes'
                    : 'no'
                  : JSON.stringify(value)}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
