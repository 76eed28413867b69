/** @jsxImportSource hono/jsx/dom */
/** A contest's sign-up widget in the console: the two lines to paste, and a live preview. */
import { useState } from 'hono/jsx/dom';
import { pagesKey } from '../api.js';
import { PublicKeyForm } from '../ui.js';

export function SignupEmbed(props: { contestId: string }) {
  const [key, setKey] = useState<string>(pagesKey.get());
  const snippet = `<script src="${location.origin}/signup.js" defer></script>\n<contest-signup contest="${props.contestId}" api-key="${key || 'pk_…'}"></contest-signup>`;
  return (
    <section aria-labelledby="signup-embed-h">
      <h2 id="signup-embed-h">Sign-up widget</h2>
      <p>
        Paste this into the page where people sign up (turn on sign-ups from a page in the settings below). Use a masked
        public key: public keys are made to be seen in page source.
      </p>
      <pre class="embed">
        <code id="signup-snippet">{snippet}</code>
      </pre>
      <PublicKeyForm id="signup-preview-key" label="Public key to try the widget" button="Try it" onKey={setKey} />
      {key ? (
        <>
          <p class="help">A live preview: a sign-up here is a real entry.</p>
          <iframe
            class="preview"
            title="Sign-up widget preview"
            src={`/demo/contests/${props.contestId}?key=${encodeURIComponent(key)}`}
          />
        </>
      ) : null}
    </section>
  );
}
