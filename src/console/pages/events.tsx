/** @jsxImportSource hono/jsx/dom */
/** Outbound events: endpoints (secret shown once, test, enable/disable) and each one's deliveries log with retry. */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { Action, CopyButton, ErrorLine, Link, Pager, submitWith, useLoad, when } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

export function EventsPage(props: { cred: Team }) {
  const api = apiClient(props.cred);
  const list = useLoad(async () => must(api.GET('/api/v1/webhook-endpoints')), []);
  const [secret, setSecret] = useState<string | null>(null);
  const [tested, setTested] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <h1>Events</h1>
      <p>Every change (entries, referrals, purchases, prizes, draws…) is sent, signed, to the endpoints below.</p>
      <form
        class="inline"
        onSubmit={submitWith(setError, async (v, form) => {
          const ep = (
            await must(
              api.POST('/api/v1/webhook-endpoints', {
                body: { url: v.url ?? '', description: v.description || undefined },
              }),
            )
          ).data;
          setSecret(ep.secret);
          form.reset();
          list.reload();
        })}
      >
        <label for="ep-url">Endpoint URL</label>
        <input id="ep-url" name="url" type="url" required placeholder="https://crm.example.com/hooks" />
        <label for="ep-desc">Description</label>
        <input id="ep-desc" name="description" maxlength={500} />
        <button type="submit">Add endpoint</button>
        <ErrorLine error={error} />
      </form>
      {secret ? (
        <div class="secret" role="status">
          <p>
            <strong>The signing secret is shown this once.</strong> Verify every delivery with it (Standard Webhooks).
          </p>
          <code id="new-secret">{secret}</code> <CopyButton text={secret} />
        </div>
      ) : null}
      <ErrorLine error={list.error} />
      {list.data ? (
        <table>
          <caption>{list.data.data.length} endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((ep) => (
              <tr>
                <td>
                  <Link href={`/console/events/${ep.id}`}>{ep.url}</Link>
                  {ep.description ? <div class="help">{ep.description}</div> : null}
                </td>
                <td>{ep.events.length > 5 ? 'all' : ep.events.join(', ')}</td>
                <td>{ep.enabled ? 'enabled' : 'disabled'}</td>
                <td class="buttons">
                  <Action
                    label="Send a test event"
                    run={async () => {
                      await must(api.POST('/api/v1/webhook-endpoints/{id}/test', { params: { path: { id: ep.id } } }));
                      setTested(ep.id);
                    }}
                  />
                  {tested === ep.id ? (
                    <span role="status" class="ok">
                      Sent: <Link href={`/console/events/${ep.id}`}>see its delivery</Link>
                    </span>
                  ) : null}
                  <Action
                    label="Rotate secret"
                    confirm="Make a new signing secret? The old one keeps signing for 24 hours, so receivers can switch."
                    run={async () => {
                      const r = (
                        await must(
                          api.POST('/api/v1/webhook-endpoints/{id}/rotate-secret', {
                            params: { path: { id: ep.id } },
                            body: {},
                          }),
                        )
                      ).data;
                      setSecret(r.secret);
                    }}
                  />
                  <Action
                    label={ep.enabled ? 'Disable' : 'Enable'}
                    run={async () => {
                      await must(
                        api.PATCH('/api/v1/webhook-endpoints/{id}', {
                          params: { path: { id: ep.id } },
                          body: { enabled: !ep.enabled },
                        }),
                      );
                      list.reload();
                    }}
                  />
                  <Action
                    label="Delete"
                    danger
                    confirm="Delete this endpoint and its deliveries log?"
                    run={async () => {
                      await must(api.DELETE('/api/v1/webhook-endpoints/{id}', { params: { path: { id: ep.id } } }));
                      list.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

export function EndpointPage(props: { cred: Team; endpointId: string }) {
  const api = apiClient(props.cred);
  const [page, setPage] = useState(1);
  const endpoints = useLoad(async () => must(api.GET('/api/v1/webhook-endpoints')), [props.endpointId]);
  const endpoint = endpoints.data?.data.find((e) => e.id === props.endpointId);
  const log = useLoad(
    async () =>
      must(
        api.GET('/api/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: props.endpointId }, query: { page, limit: 25 } },
        }),
      ),
    [props.endpointId, page],
  );
  return (
    <>
      <p>
        <Link href="/console/events">All endpoints</Link>
      </p>
      <h1>Deliveries{endpoint ? ` to ${endpoint.url}` : ''}</h1>
      {endpoint?.description ? <p class="help">{endpoint.description}</p> : null}
      <p>
        <button type="button" onClick={() => log.reload()}>
          Refresh
        </button>
      </p>
      <ErrorLine error={log.error} />
      {log.data ? (
        <>
          <table>
            <caption>{log.data.pagination.total} deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Retry</th>
              </tr>
            </thead>
            <tbody>
              {log.data.data.map((d) => (
                <tr>
                  <td>
                    {d.type}
                    <div class="help">{when(d.createdAt)}</div>
                  </td>
                  <td>
                    <span class={`badge ${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
                  <td>{d.status === 'pending' ? when(d.nextAttemptAt) : '—'}</td>
                  <td>
                    {d.status === 'delivered' ? (
                      '—'
                    ) : (
                      <Action
                        label="Retry now"
                        run={async () => {
                          await must(
                            api.POST('/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', {
                              params: { path: { id: props.endpointId, deliveryId: d.id } },
                            }),
                          );
                          log.reload();
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={log.data.pagination.totalPages} onPage={setPage} />
        </>
      ) : null}
    </>
  );
}
