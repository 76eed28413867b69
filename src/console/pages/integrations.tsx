/** @jsxImportSource hono/jsx/dom */
/**
 * Integrations: connect Klaviyo, Mailchimp or HubSpot (the connection test runs at once), the
 * connections with their test, enable/disable and delete, and each one's deliveries log with retry.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { Action, ErrorLine, Link, Pager, submitWith, useLoad, when } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;
type Provider = 'klaviyo' | 'mailchimp' | 'hubspot';

const NAMES: Record<Provider, string> = { klaviyo: 'Klaviyo', mailchimp: 'Mailchimp', hubspot: 'HubSpot' };

/** What each provider asks for, as the form shows it. */
const FIELDS: Record<
  Provider,
  { secret: { label: string; help: string; placeholder: string }; target?: { label: string; help: string } }
> = {
  klaviyo: {
    secret: {
      label: 'Private API key',
      help: 'Klaviyo: Settings › API keys › Create private API key (scopes: profiles, lists, subscriptions, events: full access).',
      placeholder: 'pk_…',
    },
    target: { label: 'List ID', help: 'Lists & segments › your list › Settings: the List ID (six characters).' },
  },
  mailchimp: {
    secret: {
      label: 'API key',
      help: 'Mailchimp: Profile › Extras › API keys. The key ends with its data centre (…-us21).',
      placeholder: '…-us21',
    },
    target: { label: 'Audience ID', help: 'Audience › Settings › Audience name and defaults: the Audience ID.' },
  },
  hubspot: {
    secret: {
      label: 'Private app access token',
      help: 'HubSpot: Settings › Integrations › Private apps › Create (scopes: crm.objects.contacts.write, crm.schemas.contacts.write).',
      placeholder: 'pat-…',
    },
  },
};

const target = (t: Record<string, string>) => t.listId ?? t.audienceId ?? 'contacts';

function Off(props: { message: string }) {
  return (
    <div class="secret" role="status">
      <p>
        <strong>{props.message}</strong>
      </p>
      <p>
        On Node: <code>INTEGRATIONS_KEY=… npm start</code>. On Workers:{' '}
        <code>wrangler secret put INTEGRATIONS_KEY</code>. The key seals every tool's credentials; keep it with the
        deployment's other secrets.
      </p>
    </div>
  );
}

export function IntegrationsPage(props: { cred: Team }) {
  const api = apiClient(props.cred);
  const list = useLoad(async () => must(api.GET('/api/v1/integrations')), []);
  const contests = useLoad(async () => must(api.GET('/api/v1/contests', { params: { query: { limit: 100 } } })), []);
  const [provider, setProvider] = useState<Provider>('klaviyo');
  const [error, setError] = useState<string | null>(null);
  const [tested, setTested] = useState<{ id: string; passed: boolean; message: string } | null>(null);
  const off = list.error?.startsWith('Integrations are off') ? list.error : null;
  const f = FIELDS[provider];
  const title = (id: string) => contests.data?.data.find((c) => c.id === id)?.title ?? id;

  const runTest = async (id: string) => {
    const r = (await must(api.POST('/api/v1/integrations/{id}/test', { params: { path: { id } } }))).data;
    setTested({ id, passed: r.passed, message: r.message });
  };

  return (
    <>
      <h1>Integrations</h1>
      <p>
        Everyone who confirms their email goes to your own tool, with their referral link, position and points as
        properties your emails can use; what they do (joined, referred a friend, unlocked a reward, won) follows as
        events. They are subscribed to marketing only when they agreed to your contest's consent text.
      </p>
      {off ? <Off message={off} /> : <ErrorLine error={list.error} />}
      {off ? null : (
        <form
          class="connect"
          aria-labelledby="connect-title"
          onSubmit={submitWith(setError, async (v, form) => {
            const secret = (v.secret ?? '').trim();
            const credentials = provider === 'hubspot' ? { accessToken: secret } : { apiKey: secret };
            const tgt = (v.target ?? '').trim();
            const body = {
              provider,
              credentials,
              target: provider === 'klaviyo' ? { listId: tgt } : provider === 'mailchimp' ? { audienceId: tgt } : {},
              contests: v.contest ? [v.contest] : 'all',
            };
            const made = (await must(api.POST('/api/v1/integrations', { body: body as never }))).data;
            form.reset();
            list.reload();
            // the test proves the credential and makes the fields and properties the tool receives
            await runTest(made.id);
          })}
        >
          <h2 id="connect-title">Connect a tool</h2>
          <label for="int-provider">Tool</label>
          <select
            id="int-provider"
            name="provider"
            value={provider}
            onChange={(e: Event) => setProvider((e.target as HTMLSelectElement).value as Provider)}
          >
            <option value="klaviyo">Klaviyo</option>
            <option value="mailchimp">Mailchimp</option>
            <option value="hubspot">HubSpot</option>
          </select>
          <label for="int-secret">{f.secret.label}</label>
          <input
            id="int-secret"
            name="secret"
            type="password"
            autocomplete="off"
            required
            placeholder={f.secret.placeholder}
            aria-describedby="int-secret-help"
          />
          <p class="help" id="int-secret-help">
            {f.secret.help} Stored encrypted; only its last 4 characters are ever shown again.
          </p>
          {f.target ? (
            <>
              <label for="int-target">{f.target.label}</label>
              <input id="int-target" name="target" required aria-describedby="int-target-help" />
              <p class="help" id="int-target-help">
                {f.target.help}
              </p>
            </>
          ) : null}
          <label for="int-contest">Contests</label>
          <select id="int-contest" name="contest">
            <option value="">All contests (new ones too)</option>
            {(contests.data?.data ?? []).map((c) => (
              <option value={c.id}>{c.title}</option>
            ))}
          </select>
          <p>
            <button type="submit">Connect and test</button>
          </p>
          <ErrorLine error={error} />
        </form>
      )}
      {tested ? (
        <p role="status" class={tested.passed ? 'ok' : 'error'}>
          {tested.passed ? 'Connection test passed: ' : 'Connection test failed: '}
          {tested.message}
        </p>
      ) : null}
      {list.data ? (
        <table>
          <caption>{list.data.data.length === 1 ? '1 connection' : `${list.data.data.length} connections`}</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Sends to</th>
              <th scope="col">Contests</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((i) => (
              <tr>
                <td>
                  <Link href={`/console/integrations/${i.id}`}>{NAMES[i.provider]}</Link>
                  <div class="help">key {i.credentials.hint}</div>
                </td>
                <td>{target(i.target)}</td>
                <td>{i.contests === 'all' ? 'all' : i.contests.map(title).join(', ')}</td>
                <td>{i.enabled ? 'enabled' : 'disabled'}</td>
                <td class="buttons">
                  <Action label="Test" run={() => runTest(i.id)} />
                  <Link href={`/console/integrations/${i.id}`}>Deliveries</Link>
                  <Action
                    label={i.enabled ? 'Disable' : 'Enable'}
                    run={async () => {
                      await must(
                        api.PATCH('/api/v1/integrations/{id}', {
                          params: { path: { id: i.id } },
                          body: { enabled: !i.enabled },
                        }),
                      );
                      list.reload();
                    }}
                  />
                  <Action
                    label="Delete"
                    danger
                    confirm={`Disconnect ${NAMES[i.provider]}? Nothing more is sent; what it has stays there.`}
                    run={async () => {
                      await must(api.DELETE('/api/v1/integrations/{id}', { params: { path: { id: i.id } } }));
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

const KIND: Record<string, string> = { person: 'person', event: 'event', erase: 'erasure' };

export function IntegrationPage(props: { cred: Team; integrationId: string }) {
  const api = apiClient(props.cred);
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<'' | 'pending' | 'delivered' | 'failed'>('');
  const one = useLoad(
    async () => must(api.GET('/api/v1/integrations/{id}', { params: { path: { id: props.integrationId } } })),
    [props.integrationId],
  );
  const log = useLoad(
    async () =>
      must(
        api.GET('/api/v1/integrations/{id}/deliveries', {
          params: { path: { id: props.integrationId }, query: { page, limit: 25, status: status || undefined } },
        }),
      ),
    [props.integrationId, page, status],
    { live: true },
  );
  const backfill = useLoad(
    async () => must(api.GET('/api/v1/integrations/{id}/backfill', { params: { path: { id: props.integrationId } } })),
    [props.integrationId],
    { live: true },
  );
  const i = one.data?.data;
  const b = backfill.data?.data;
  return (
    <>
      <p>
        <Link href="/console/integrations">All integrations</Link>
      </p>
      <h1>Deliveries{i ? ` to ${NAMES[i.provider]} (${target(i.target)})` : ''}</h1>
      <p class="help">
        Sent by the every-minute job: a confirmed person, their events, an erasure. A provider's refusal shows in its
        own words; fix the cause, then retry.
      </p>
      <ErrorLine error={one.error} />
      <section aria-labelledby="backfill-h">
        <h2 id="backfill-h">Existing entries</h2>
        <p class="help">
          A new connection receives the people who confirm from now on. Send those confirmed before (of the contests it
          takes) once: in bulk, by the every-minute job.
        </p>
        {b ? (
          <p role="status" id="backfill-progress">
            {b.done ? 'Sent: ' : 'Sending: '}
            {b.delivered} of {b.total} delivered{b.pending ? `, ${b.pending} waiting` : ''}
            {b.failed ? `, ${b.failed} failed` : ''} (started {when(b.startedAt)})
          </p>
        ) : null}
        <Action
          label="Send the existing entries"
          disabled={!!b && !b.done}
          run={async () => {
            await must(
              api.POST('/api/v1/integrations/{id}/backfill', { params: { path: { id: props.integrationId } } }),
            );
            backfill.reload();
            log.reload();
          }}
        />
        <ErrorLine error={backfill.error} />
      </section>
      <h2>Deliveries</h2>
      <form class="inline" onSubmit={(e: Event) => e.preventDefault()}>
        <label for="del-status">Show</label>
        <select
          id="del-status"
          value={status}
          onChange={(e: Event) => {
            setPage(1);
            setStatus((e.target as HTMLSelectElement).value as typeof status);
          }}
        >
          <option value="">all</option>
          <option value="pending">pending</option>
          <option value="delivered">delivered</option>
          <option value="failed">failed</option>
        </select>
        <button type="button" onClick={() => log.reload()}>
          Refresh
        </button>
      </form>
      <ErrorLine error={log.error} />
      {log.data ? (
        <>
          <table>
            <caption>
              {log.data.pagination.total === 1 ? '1 delivery' : `${log.data.pagination.total} deliveries`}, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">Person</th>
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
                    {d.event ?? KIND[d.kind]}
                    <div class="help">{when(d.createdAt)}</div>
                  </td>
                  <td>
                    <Link href={`/console/entries/${d.entryId}`}>entry</Link>
                  </td>
                  <td>
                    <span class={`badge ${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.lastError ?? d.providerStatus ?? '—'}</td>
                  <td>{d.status === 'pending' ? when(d.nextAttemptAt) : '—'}</td>
                  <td>
                    {d.status === 'delivered' ? (
                      '—'
                    ) : (
                      <Action
                        label="Retry"
                        run={async () => {
                          try {
                            await must(
                              api.POST('/api/v1/integrations/{id}/deliveries/{deliveryId}/retry', {
                                params: { path: { id: props.integrationId, deliveryId: d.id } },
                              }),
                            );
                          } finally {
                            log.reload();
                          }
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
