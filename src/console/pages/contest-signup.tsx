/** @jsxImportSource hono/jsx/dom */
/**
 * A contest's sign-up widget in the console: the two lines to paste (no key: a contest that takes
 * sign-ups from a page answers its visitors without one), a copy button, the widget's look (the
 * contest's theme) and a live preview of the contest's hosted page: what the operator types shows
 * in the preview at once, Save keeps it for every page that embeds the widget.
 */
import { useRef, useState } from 'hono/jsx/dom';
import {
  COLOUR_RRGGBB,
  THEME_FONT_NAMES,
  THEME_RADIUS_MAX,
  type Theme,
  type ThemeFont,
  themeSlots,
} from '../../lib/share-channels.js';
import { apiClient, type Credential, must } from '../api.js';
import { Action, CopyButton, ErrorLine, submitWith, useLoad, valuesOf } from '../ui.js';
import { FieldsForm } from './signup-fields.js';

type Team = Extract<Credential, { kind: 'team' }>;

/** each colour's label, and the widget's own as the example */
const COLOURS = {
  accent: ['Accent', '#4338ca'],
  background: ['Background', '#ffffff'],
  text: ['Text', '#1f2937'],
} as const;

/** The theme of the look form's values: empty or unfinished fields are left to the widget. */
function themeOf(v: Record<string, string | undefined>): Theme {
  const theme: Theme = {};
  for (const k of ['accent', 'background', 'text'] as const) {
    const c = v[`theme-${k}`]?.trim();
    if (c && COLOUR_RRGGBB.test(c)) theme[k] = c;
  }
  const radius = v['theme-radius']?.trim();
  if (radius && Number.isInteger(Number(radius)) && Number(radius) >= 0 && Number(radius) <= THEME_RADIUS_MAX)
    theme.radius = Number(radius);
  if (v['theme-font']) theme.font = v['theme-font'] as ThemeFont;
  return theme;
}

/**
 * The theme on the preview's widget, before it is saved: each part the theme sets as the page's
 * variable; a part it leaves out cleared down to the widget's own default (`initial` empties a
 * custom property, so the widget's fallback applies). The preview is a page of this origin.
 */
function showInPreview(frame: HTMLIFrameElement | null, theme: Theme) {
  let widget: HTMLElement | null = null;
  try {
    widget = frame?.contentDocument?.querySelector('contest-signup') ?? null;
  } catch {
    return;
  }
  if (!widget) return;
  const own = themeSlots(theme, '--cs-');
  const defaults = themeSlots({}, '--cs-t-');
  own.forEach(([name, value], i) => {
    widget.style.setProperty(name, value ?? 'initial');
    if (value === undefined) widget.style.setProperty(defaults[i]![0], 'initial');
    else widget.style.removeProperty(defaults[i]![0]);
  });
}

/**
 * The sites the widget is embedded on (the contest's allowedOrigins): a visitor who signs up on
 * one of them is brought back to that page by the confirmation and the "your link" email.
 */
function SitesForm(props: { cred: Team; contestId: string; sites: string[]; onSaved: () => void }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const save = async (sites: string[]) => {
    await must(
      api.PATCH('/api/v1/contests/{contestId}', {
        params: { path: { contestId: props.contestId } },
        body: { allowedOrigins: sites },
      }),
    );
    props.onSaved();
  };
  return (
    <form
      class="stack"
      aria-labelledby="sites-h"
      onSubmit={submitWith(setError, async (v, form) => {
        const typed = (v.site ?? '').trim();
        let origin = typed;
        try {
          origin = new URL(typed).origin;
        } catch {
          /* the API says what is wrong with it */
        }
        await save([...props.sites, origin]);
        form.reset();
      })}
    >
      <h3 id="sites-h">Your site</h3>
      <p class="help">
        The address of the site where you paste the two lines: people who sign up there come back to the same page from
        the confirmation and from the "your link" email. Elsewhere they go to the landing page, or the hosted page.
      </p>
      {props.sites.length ? (
        <ul id="allowed-sites">
          {props.sites.map((site) => (
            <li>
              <code>{site}</code>{' '}
              <Action label={`Remove ${site}`} run={() => save(props.sites.filter((x) => x !== site))} />
            </li>
          ))}
        </ul>
      ) : null}
      <label for="s-site">Site address (https://…)</label>
      <input id="s-site" name="site" type="url" placeholder="https://shop.example.com" required />
      <button type="submit">Add this site</button>
      <ErrorLine error={error} />
    </form>
  );
}

export function SignupEmbed(props: { cred: Team; contestId: string }) {
  const api = apiClient(props.cred);
  const path = { params: { path: { contestId: props.contestId } } };
  const settings = useLoad(async () => must(api.GET('/api/v1/contests/{contestId}/settings', path)), [props.contestId]);
  const on = settings.data?.data.publicSignup === true;
  const theme = settings.data?.data.theme;
  const [shown, setShown] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const frame = useRef<HTMLIFrameElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const draft = () => (form.current ? themeOf(valuesOf(form.current)) : (theme ?? {}));
  const page = `/c/${props.contestId}`;
  const snippet = `<script src="${location.origin}/signup.js" defer></script>\n<contest-signup contest="${props.contestId}"></contest-signup>`;
  return (
    <section aria-labelledby="signup-embed-h">
      <h2 id="signup-embed-h">Sign-up widget</h2>
      <p>
        Paste these two lines into the page where people sign up. They need no key once sign-ups from a page are on (in
        the settings, with the share message and the share buttons); the look is set below.
      </p>
      <pre class="embed">
        <code id="signup-snippet">{snippet}</code>
      </pre>
      <CopyButton text={snippet} label="Copy the two lines" said="Copied." />
      {settings.data ? (
        <SitesForm
          cred={props.cred}
          contestId={props.contestId}
          sites={settings.data.data.allowedOrigins}
          onSaved={settings.reload}
        />
      ) : null}
      {settings.data ? (
        <FieldsForm
          cred={props.cred}
          contestId={props.contestId}
          fields={settings.data.data.signupFields}
          onSaved={() => {
            settings.reload();
            setShown((n) => n + 1);
          }}
        />
      ) : null}
      <p>
        Without a page of your own, send people to the contest's hosted page:{' '}
        <a href={page}>
          {location.origin}
          {page}
        </a>
        .
      </p>
      <div class="look">
        {theme ? (
          <form
            ref={form}
            class="settings"
            aria-labelledby="look-h"
            onInput={() => {
              setSaved(false);
              showInPreview(frame.current, draft());
            }}
            onSubmit={submitWith(setError, async (v) => {
              setSaved(false);
              await must(api.PATCH('/api/v1/contests/{contestId}', { ...path, body: { theme: themeOf(v) } }));
              setSaved(true);
              setShown((n) => n + 1);
            })}
          >
            <h3 id="look-h">The look</h3>
            <p class="help">
              The widget's colours, corners and font, wherever it is embedded; a page's own CSS variables (--cs-accent…)
              still win. Empty: the widget's own.
            </p>
            {(['accent', 'background', 'text'] as const).map((k) => (
              <>
                <label for={`s-theme-${k}`}>{COLOURS[k][0]} colour (#rrggbb)</label>
                <input
                  id={`s-theme-${k}`}
                  name={`theme-${k}`}
                  pattern={COLOUR_RRGGBB.source.slice(1, -1)}
                  placeholder={COLOURS[k][1]}
                  value={theme[k] ?? ''}
                />
              </>
            ))}
            <label for="s-theme-radius">Corner radius in px (0-{THEME_RADIUS_MAX})</label>
            <input
              id="s-theme-radius"
              name="theme-radius"
              type="number"
              min={0}
              max={THEME_RADIUS_MAX}
              value={theme.radius === undefined ? '' : String(theme.radius)}
            />
            <label for="s-theme-font">Font</label>
            <select id="s-theme-font" name="theme-font">
              <option value="" selected={!theme.font}>
                the widget's own
              </option>
              {THEME_FONT_NAMES.map((f) => (
                <option value={f} selected={theme.font === f}>
                  {f}
                </option>
              ))}
            </select>
            <button type="submit">Save the look</button>
            {saved ? (
              <p role="status" class="ok">
                Saved: every page with the widget shows it.
              </p>
            ) : null}
            <ErrorLine error={error} />
          </form>
        ) : null}
        {on ? (
          <div class="preview-box">
            <p class="help">
              A live preview of the hosted page (a sign-up here is a real entry).{' '}
              <button type="button" class="link" onClick={() => setShown(shown + 1)}>
                Load it again
              </button>
            </p>
            <iframe
              ref={frame}
              class="preview"
              title="Sign-up widget preview"
              src={`${page}?preview=${shown}`}
              onLoad={() => showInPreview(frame.current, draft())}
            />
          </div>
        ) : settings.data ? (
          <p class="help">Turn on sign-ups from a page in the settings to see the page and the widget here.</p>
        ) : null}
      </div>
    </section>
  );
}
