/** @jsxImportSource hono/jsx/dom */
/**
 * A contest's sign-up widget in the console: the two lines to paste (no key: a contest that takes
 * sign-ups from a page answers its visitors without one), a copy button, and a live preview of the
 * contest's hosted page, which shows the widget with the contest's theme as saved in the settings.
 */
import { useState } from 'hono/jsx/dom';
import { apiClient, type Credential, must } from '../api.js';
import { useLoad } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

export function SignupEmbed(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const settings = useLoad(
    async () =>
      must(api.GET('/api/v1/contests/{contestId}/settings', { params: { path: { contestId: props.contestId } } })),
    [props.contestId],
  );
  const on = settings.data?.data.publicSignup === true;
  const [copied, setCopied] = useState(false);
  const [shown, setShown] = useState(0);
  const page = `/c/${props.contestId}`;
  const snippet = `<script src="${location.origin}/signup.js" defer></script>\n<contest-signup contest="${props.contestId}"></contest-signup>`;
  return (
    <section aria-labelledby="signup-embed-h">
      <h2 id="signup-embed-h">Sign-up widget</h2>
      <p>
        Paste these two lines into the page where people sign up. They need no key once sign-ups from a page are on (in
        the settings); the look, the share message and the share buttons are set there too.
      </p>
      <pre class="embed">
        <code id="signup-snippet">{snippet}</code>
      </pre>
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(snippet);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}
      >
        Copy the two lines
      </button>
      <p role="status">{copied ? 'Copied.' : ''}</p>
      <p>
        Without a page of your own, send people to the contest's hosted page:{' '}
        <a href={page}>
          {location.origin}
          {page}
        </a>
        .
      </p>
      {on ? (
        <>
          <p class="help">
            A live preview of that page (a sign-up here is a real entry). After changing the settings,{' '}
            <button type="button" class="link" onClick={() => setShown(shown + 1)}>
              show it again
            </button>
            .
          </p>
          <iframe class="preview" title="Sign-up widget preview" src={`${page}?preview=${shown}`} />
        </>
      ) : settings.data ? (
        <p class="help">Turn on sign-ups from a page in the settings to see the page and the widget here.</p>
      ) : null}
    </section>
  );
}
