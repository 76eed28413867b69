/** @jsxImportSource hono/jsx/dom */
/** Shared pieces of the console's pages. */
import type { Child } from 'hono/jsx/dom';
import { useEffect, useRef, useState } from 'hono/jsx/dom';
import { counted } from '../lib/plural.js';
import { messageOf, pagesKey } from './api.js';
import { navigate } from './router.js';

/** An in-app link: the browser's own link, without a page load. */
export function Link(props: { href: string; children?: Child; class?: string; current?: boolean }) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e: MouseEvent) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/** The API's message, as a sentence next to what failed. */
export function ErrorLine(props: { error: string | null }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

/** How often live figures are read again while the page is visible. */
export const LIVE_MS = 5_000;

/**
 * Data loaded once per `deps`, with its error; `reload` fetches again. With `live`, it is read
 * again every LIVE_MS while the page is visible (what is shown stays until the new answer
 * replaces it; inputs elsewhere keep what is typed in them).
 *
 * Only the latest load's answer is shown: each load takes a number and an answer that arrives
 * after a newer load started is dropped. An effect's cleanup is not enough for that: hono/jsx/dom
 * runs effects after the render, and when the deps change again before the first effect ran (a
 * quick change of a select), the first load's cleanup is never called, so its answer could land
 * after the second's and show the email the person moved away from.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  opts: { live?: boolean } = {},
): { data: T | null; error: string | null; loading: boolean; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    let live = true;
    const current = () => live && latest.current === mine;
    setLoading(true);
    load()
      .then((d) => {
        if (!current()) return;
        setData(d);
        setError(null);
      })
      .catch((e) => current() && setError(messageOf(e)))
      .finally(() => current() && setLoading(false));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!opts.live) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setTick((n) => n + 1);
    }, LIVE_MS);
    return () => clearInterval(timer);
  }, [opts.live]);
  return { data, error, loading, reload: () => setTick((n) => n + 1) };
}

/**
 * A button that does something once clicked, showing progress and the API's message when it
 * fails. With `confirm`, it asks first (inline, keyboard reachable): destructive actions.
 */
export function Action(props: {
  label: string;
  run: () => Promise<unknown>;
  confirm?: string;
  danger?: boolean;
  disabled?: boolean;
  id?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async () => {
    setAsking(false);
    setBusy(true);
    setError(null);
    try {
      await props.run();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      {asking ? (
        // biome-ignore lint/a11y/useSemanticElements: an inline question beside its button, not a form's group of fields
        <span class="confirm" role="group" aria-label={props.confirm}>
          <span>{props.confirm}</span>
          <button type="button" class="danger" onClick={go}>
            Yes, {props.label.toLowerCase()}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          id={props.id}
          class={props.danger ? 'danger' : undefined}
          disabled={busy || props.disabled}
          onClick={() => (props.confirm ? setAsking(true) : go())}
        >
          {busy ? `${props.label}…` : props.label}
        </button>
      )}
      <ErrorLine error={error} />
    </span>
  );
}

/**
 * Copies `text` (a secret shown once, a snippet). It says so by its own label ("Copied"), or, with
 * `said`, in a status line after it, the label kept.
 */
export function CopyButton(props: { text: string; label?: string; said?: string }) {
  const [done, setDone] = useState(false);
  const label = props.label ?? 'Copy';
  const button = (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.text);
          setDone(true);
        } catch {
          setDone(false);
        }
      }}
    >
      {done && props.said === undefined ? 'Copied' : label}
    </button>
  );
  if (props.said === undefined) return button;
  return (
    <>
      {button}
      <p role="status">{done ? props.said : ''}</p>
    </>
  );
}

export function Pager(props: { page: number; totalPages: number; onPage: (p: number) => void }) {
  if (props.totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>
        Page {props.page} of {props.totalPages}
      </span>
      <button type="button" disabled={props.page >= props.totalPages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** `1 contest`, `2 contests`, `0 contests` */
/** The rows of a list ticked for an action on many, by id. */
export function useSelection() {
  const [ids, setIds] = useState<string[]>([]);
  return {
    ids,
    has: (id: string) => ids.includes(id),
    set: (id: string, on: boolean) => setIds((s) => (on ? [...s, id] : s.filter((x) => x !== id))),
    setAll: (all: string[]) => setIds(all),
    clear: () => setIds([]),
  };
}

/**
 * An action on many rows (approve or reject the selected ones): `act` on each in turn; one that
 * fails does not stop the others. Says how many went through and why the first failure failed.
 */
export async function eachInTurn<T>(
  items: T[],
  act: (item: T, index: number) => Promise<unknown>,
): Promise<{ done: number; failed: string[] }> {
  let done = 0;
  const failed: string[] = [];
  for (const [i, item] of items.entries()) {
    try {
      await act(item, i);
      done++;
    } catch (e) {
      failed.push(messageOf(e));
    }
  }
  return { done, failed };
}

/** `plural(3, 'game')`: "3 games", by the language's plural rules (src/lib/plural.ts) */
export const plural = (n: number, noun: string, many = `${noun}s`) => counted(n, noun, many, navigator.language);

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A form's values as an object of strings. */
export function valuesOf(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => {
    out[k] = String(v);
  });
  return out;
}

/** A submitted form's values (the page is not reloaded). */
export function formValues(e: Event): Record<string, string> {
  e.preventDefault();
  return valuesOf(e.target as HTMLFormElement);
}

/**
 * A form's submit handler: its values (and the form) to `run`; when that fails, the API's
 * sentence goes to `setError`, shown next to the form.
 */
export function submitWith(
  setError: (e: string | null) => void,
  run: (v: Record<string, string>, form: HTMLFormElement) => Promise<unknown>,
) {
  return async (e: Event) => {
    const v = formValues(e);
    setError(null);
    try {
      await run(v, e.target as HTMLFormElement);
    } catch (err) {
      setError(messageOf(err));
    }
  };
}

/**
 * The form where the operator pastes one of the team's public keys for a page that needs one (the
 * widget's preview, a draw's verification page); the key is kept in this tab for the next such page.
 */
export function PublicKeyForm(props: {
  id: string;
  label: string;
  button: string;
  required?: boolean;
  onKey: (key: string) => void;
}) {
  return (
    <form
      class="inline"
      onSubmit={(e: Event) => {
        const k = (formValues(e).publicKey ?? '').trim();
        pagesKey.set(k);
        props.onKey(k);
      }}
    >
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name="publicKey"
        value={pagesKey.get()}
        pattern="pk_[A-Za-z0-9]+"
        autocomplete="off"
        required={props.required}
      />
      <button type="submit">{props.button}</button>
    </form>
  );
}
