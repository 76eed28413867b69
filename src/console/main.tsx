/** @jsxImportSource hono/jsx/dom */
/**
 * The operator console: a client of our own API, served at /console. Sign in with the team's
 * private key (everything about that team) or with the admin token (teams and keys).
 */
import { render, useEffect, useState } from 'hono/jsx/dom';
import {
  ApiFailure,
  apiClient,
  type Credential,
  forgetEverything,
  loadCredential,
  messageOf,
  must,
  saveCredential,
} from './api.js';
import { ContestPage, ContestsPage } from './pages/contests.js';
import { EntryPage } from './pages/entry.js';
import { EndpointPage, EventsPage } from './pages/events.js';
import { GamePage, GamesPage } from './pages/games.js';
import { IntegrationPage, IntegrationsPage } from './pages/integrations.js';
import { TeamPage, TeamsPage } from './pages/teams.js';
import { match, navigate, useLocation } from './router.js';
import { ErrorLine, Link } from './ui.js';

/** What a credential is, asked of the API itself; a sentence when it cannot sign in. */
async function signIn(secret: string): Promise<Credential> {
  const s = secret.trim();
  if (!s) throw new Error('Enter your private key (sk_…) or the admin token.');
  if (s.startsWith('pk_')) {
    throw new Error(
      "That is a public key, made for web pages. Sign in with your team's private key (sk_…) or the admin token.",
    );
  }
  if (s.startsWith('sk_')) {
    const api = apiClient({ kind: 'team', key: s, teamId: '', teamName: '' });
    try {
      const me = (await must(api.GET('/api/v1/key'))).data;
      return { kind: 'team', key: s, teamId: me.teamId, teamName: me.teamName };
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401)
        throw new Error('This private key is not valid: it is wrong, or it was revoked.');
      throw e;
    }
  }
  const api = apiClient({ kind: 'admin', token: s });
  try {
    await must(api.GET('/api/admin/teams', { params: { query: { limit: 1 } } }));
    return { kind: 'admin', token: s };
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401)
      throw new Error('That is neither a valid private key nor the admin token.');
    if (e instanceof ApiFailure && e.status === 404) {
      throw new Error(
        'The admin API is switched off on this server (ADMIN_TOKEN is not set). Sign in with a private key, or restart the server with ADMIN_TOKEN.',
      );
    }
    throw e;
  }
}

function SignIn(props: { onSignedIn: (c: Credential) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>Contest Engine console</h1>
      <form
        onSubmit={async (e: Event) => {
          e.preventDefault();
          const input = (e.target as HTMLFormElement).elements.namedItem('secret') as HTMLInputElement;
          setBusy(true);
          setError(null);
          try {
            props.onSignedIn(await signIn(input.value));
          } catch (err) {
            setError(messageOf(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="secret">Private key or admin token</label>
        <input id="secret" name="secret" type="password" autocomplete="off" required aria-describedby="secret-help" />
        <p id="secret-help" class="help">
          Your team's private key (<code>sk_…</code>) opens everything about the team; the admin token opens teams and
          keys. It stays in this tab only and is forgotten when you sign out or close the tab.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorLine error={error} />
      </form>
    </main>
  );
}

function Layout(props: { cred: Credential; onSignOut: () => void; children?: unknown }) {
  const team = props.cred.kind === 'team';
  return (
    <div class="app">
      <a href="#main" class="skip">
        Skip to content
      </a>
      <header>
        <span class="brand">Contest Engine</span>
        <nav aria-label="Console">
          {team ? (
            <>
              <Link href="/console/contests">Contests</Link>
              <Link href="/console/games">Games</Link>
              <Link href="/console/events">Events</Link>
              <Link href="/console/integrations">Integrations</Link>
            </>
          ) : (
            <Link href="/console/teams">Teams and keys</Link>
          )}
        </nav>
        <span class="who">{props.cred.kind === 'team' ? props.cred.teamName : 'Admin'}</span>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabindex={-1}>
        {props.children as never}
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        This address names no page of the console. <Link href="/console">Go to the start</Link>.
      </p>
    </>
  );
}

/**
 * Each page is its own subtree, keyed by its path: moving to another page replaces the whole
 * subtree (hono/jsx/dom otherwise reconciles two pages' fragments and can keep nodes of the old
 * one). A change of the query alone (search, filters, page number) keeps the page.
 */
function Pages(props: { cred: Credential }) {
  const { path } = useLocation();
  return (
    <div key={path} class="page">
      <Page cred={props.cred} path={path} />
    </div>
  );
}

function Page(props: { cred: Credential; path: string }) {
  const path = props.path;
  const cred = props.cred;
  useEffect(() => {
    if (path === '/console') navigate(cred.kind === 'admin' ? '/console/teams' : '/console/contests', true);
  }, [path, cred.kind]);
  useEffect(() => {
    (document.getElementById('main') as HTMLElement | null)?.focus();
  }, [path]);
  if (cred.kind === 'admin') {
    if (path === '/console/teams') return <TeamsPage cred={cred} />;
    const t = match('/console/teams/:teamId', path);
    if (t) return <TeamPage cred={cred} teamId={t.teamId!} />;
    if (path === '/console') return null;
    return (
      <>
        <NotFound />
        <p>Signed in with the admin token: teams and keys only. A team's pages need its private key.</p>
      </>
    );
  }
  if (path === '/console/contests') return <ContestsPage cred={cred} />;
  if (path === '/console/events') return <EventsPage cred={cred} />;
  if (path === '/console/integrations') return <IntegrationsPage cred={cred} />;
  if (path === '/console/games') return <GamesPage cred={cred} />;
  let m = match('/console/contests/:contestId', path);
  if (m) return <ContestPage cred={cred} contestId={m.contestId!} section="" />;
  m = match('/console/contests/:contestId/:section', path);
  if (m) return <ContestPage cred={cred} contestId={m.contestId!} section={m.section!} />;
  m = match('/console/games/:gameId', path);
  if (m) return <GamePage cred={cred} gameId={m.gameId!} />;
  m = match('/console/entries/:entryId', path);
  if (m) return <EntryPage cred={cred} entryId={m.entryId!} />;
  m = match('/console/integrations/:integrationId', path);
  if (m) return <IntegrationPage cred={cred} integrationId={m.integrationId!} />;
  m = match('/console/events/:endpointId', path);
  if (m) return <EndpointPage cred={cred} endpointId={m.endpointId!} />;
  if (path === '/console') return null;
  return <NotFound />;
}

function App() {
  const [cred, setCred] = useState<Credential | null>(loadCredential());
  if (!cred) {
    return (
      <SignIn
        onSignedIn={(c) => {
          saveCredential(c);
          setCred(c);
          navigate(c.kind === 'admin' ? '/console/teams' : '/console/contests', true);
        }}
      />
    );
  }
  return (
    <Layout
      cred={cred}
      onSignOut={() => {
        forgetEverything();
        setCred(null);
        navigate('/console', true);
      }}
    >
      <Pages cred={cred} />
    </Layout>
  );
}

render(<App />, document.getElementById('console')!);

/**
 * A table wider than the window scrolls on its own (styles.css): it is then a tab stop, so that
 * the keyboard can scroll it too (axe: scrollable-region-focusable). One that fits is not.
 */
function focusableWhenScrolling() {
  for (const t of document.querySelectorAll('table')) {
    const scrolls = t.scrollWidth > t.clientWidth + 1;
    if (scrolls && t.tabIndex !== 0) t.tabIndex = 0;
    else if (!scrolls && t.hasAttribute('tabindex')) t.removeAttribute('tabindex');
  }
}
let pending = 0;
const soon = () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(focusableWhenScrolling);
};
new MutationObserver(soon).observe(document.body, { childList: true, subtree: true, characterData: true });
window.addEventListener('resize', soon);
