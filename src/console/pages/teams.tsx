/** @jsxImportSource hono/jsx/dom */
/** Teams and keys (admin token). */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, messageOf, must } from '../api.js';
import { navigate } from '../router.js';
import { Action, CopyButton, ErrorLine, formValues, Link, Pager, plural, submitWith, useLoad, when } from '../ui.js';

type Admin = Extract<Credential, { kind: 'admin' }>;

export function TeamsPage(props: { cred: Admin }) {
  const api = apiClient(props.cred);
  const [page, setPage] = useState(1);
  const teams = useLoad(
    async () => must(api.GET('/api/admin/teams', { params: { query: { page, limit: 20 } } })),
    [page],
  );
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <h1>Teams</h1>
      <form
        class="inline"
        onSubmit={async (e: Event) => {
          const { name } = formValues(e);
          setError(null);
          try {
            const t = (await must(api.POST('/api/admin/teams', { body: { name: name ?? '' } }))).data;
            navigate(`/console/teams/${t.id}`);
          } catch (err) {
            setError(messageOf(err));
          }
        }}
      >
        <label for="team-name">New team</label>
        <input id="team-name" name="name" required maxlength={200} />
        <button type="submit">Create team</button>
        <ErrorLine error={error} />
      </form>
      <ErrorLine error={teams.error} />
      {teams.data ? (
        <>
          <table>
            <caption>{plural(teams.data.pagination.total, 'team')}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Team</th>
                <th scope="col">Live keys</th>
                <th scope="col">Contests</th>
                <th scope="col">Games</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {teams.data.data.map((t) => (
                <tr>
                  <td>
                    <Link href={`/console/teams/${t.id}`}>{t.name}</Link>
                  </td>
                  <td>{t.activeKeysCount}</td>
                  <td>{t.contestsCount}</td>
                  <td>{t.gamesCount}</td>
                  <td>{when(t.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={teams.data.pagination.totalPages} onPage={setPage} />
        </>
      ) : null}
    </>
  );
}

export function TeamPage(props: { cred: Admin; teamId: string }) {
  const api = apiClient(props.cred);
  const keys = useLoad(
    async () => must(api.GET('/api/admin/teams/{teamId}/api-keys', { params: { path: { teamId: props.teamId } } })),
    [props.teamId],
  );
  const team = useLoad(
    async () => must(api.GET('/api/admin/teams/{teamId}', { params: { path: { teamId: props.teamId } } })),
    [props.teamId],
  );
  const [created, setCreated] = useState<{ key: string; type: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const t = team.data?.data;
  return (
    <>
      <p>
        <Link href="/console/teams">All teams</Link>
      </p>
      <h1>API keys{t ? ` of ${t.name}` : ''}</h1>
      {t ? (
        <p>
          {plural(t.contestsCount, 'contest')}, {plural(t.gamesCount, 'game')}, {plural(t.activeKeysCount, 'live key')}
        </p>
      ) : null}
      <ErrorLine error={team.error} />
      <form
        class="stack"
        onSubmit={submitWith(setError, async (v) => {
          const type: 'public' | 'private' = v.type === 'private' ? 'private' : 'public';
          const body =
            type === 'public'
              ? {
                  type,
                  name: v.name || undefined,
                  personalData: (v.personalData === 'full' ? 'full' : 'masked') as 'full' | 'masked',
                }
              : { type, name: v.name || undefined };
          const k = (
            await must(
              api.POST('/api/admin/teams/{teamId}/api-keys', { params: { path: { teamId: props.teamId } }, body }),
            )
          ).data;
          setCreated({ key: k.key, type: k.type });
          keys.reload();
        })}
      >
        <fieldset>
          <legend>New key</legend>
          <label for="key-type">Type</label>
          <select id="key-type" name="type">
            <option value="public">Public (pk_…): for web pages and widgets</option>
            <option value="private">Private (sk_…): for your servers and this console</option>
          </select>
          <label for="key-pd">Personal data (public keys)</label>
          <select id="key-pd" name="personalData">
            <option value="masked">Masked: entries show as a***@example.com (for pages)</option>
            <option value="full">Full: every email, name and phone (never in a page)</option>
          </select>
          <label for="key-name">Name</label>
          <input id="key-name" name="name" maxlength={200} placeholder="shop page" />
          <button type="submit">Create key</button>
        </fieldset>
        <ErrorLine error={error} />
      </form>
      {created ? (
        <div class="secret" role="status">
          <p>
            <strong>The new {created.type} key is shown this once.</strong> Copy it now: only its hash is kept.
          </p>
          <code id="new-key">{created.key}</code> <CopyButton text={created.key} />
        </div>
      ) : null}
      <ErrorLine error={keys.error} />
      {keys.data ? (
        <table>
          <caption>Keys of this team, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Type</th>
              <th scope="col">Name</th>
              <th scope="col">Personal data</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((k) => (
              <tr>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.type}</td>
                <td>{k.name ?? '—'}</td>
                <td>{k.personalData ?? '—'}</td>
                <td>{when(k.createdAt)}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${when(k.revokedAt)}`
                  ) : (
                    <Action
                      label="Revoke"
                      danger
                      confirm={`Revoke ${k.prefix}…? It stops working at once.`}
                      run={async () => {
                        await must(api.DELETE('/api/admin/api-keys/{keyId}', { params: { path: { keyId: k.id } } }));
                        keys.reload();
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
