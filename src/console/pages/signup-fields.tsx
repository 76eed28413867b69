/** @jsxImportSource hono/jsx/dom */
/**
 * The contest's own sign-up fields (its signupFields) in the console: the list, in the form's
 * order, each with Remove, and a form to add one. The API checks every part (and says what is
 * wrong in its own words, shown under the form); the widget and the hosted page show them at once.
 */
import { useState } from 'hono/jsx/dom';
import { SIGNUP_FIELD_TYPES, SIGNUP_FIELDS_MAX, type SignupField } from '../../lib/signup-fields.js';
import { apiClient, type Credential, must } from '../api.js';
import { Action, ErrorLine, submitWith } from '../ui.js';

type Team = Extract<Credential, { kind: 'team' }>;

const TYPE_WORDS: Record<SignupField['type'], string> = {
  text: 'text',
  email: 'email address',
  select: 'choice from a list',
  checkbox: 'tick box',
  date: 'date',
};

/** "Company name" → "companyName": a key for a label, when the operator gives none */
export function keyOf(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  const key = words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
  return /^[A-Za-z]/.test(key) ? key.slice(0, 40) : `field${key}`.slice(0, 40);
}

export function FieldsForm(props: { cred: Team; contestId: string; fields: SignupField[]; onSaved: () => void }) {
  const api = apiClient(props.cred);
  const [error, setError] = useState<string | null>(null);
  const [type, setType] = useState<SignupField['type']>('text');
  const save = async (fields: SignupField[]) => {
    await must(
      api.PATCH('/api/v1/contests/{contestId}', {
        params: { path: { contestId: props.contestId } },
        body: { signupFields: fields },
      }),
    );
    props.onSaved();
  };
  const full = props.fields.length >= SIGNUP_FIELDS_MAX;
  return (
    <form
      class="stack"
      aria-labelledby="fields-h"
      onSubmit={submitWith(setError, async (v, form) => {
        const label = (v.label ?? '').trim();
        const options = (v.options ?? '')
          .split('\n')
          .map((o) => o.trim())
          .filter(Boolean);
        const field: SignupField = {
          key: (v.key ?? '').trim() || keyOf(label),
          label,
          type: v.type as SignupField['type'],
          required: v.required === 'on',
          ...(v.type === 'select' ? { options } : {}),
        };
        await save([...props.fields, field]);
        form.reset();
        setType('text');
      })}
    >
      <h3 id="fields-h">Questions on the form</h3>
      <p class="help">
        Asked after the email and the name, in this order (up to {SIGNUP_FIELDS_MAX}). The answers are kept with each
        entry, shown on its page and in the CSV export.
      </p>
      {props.fields.length ? (
        <ol id="signup-fields">
          {props.fields.map((f) => (
            <li>
              <strong>{f.label}</strong> ({TYPE_WORDS[f.type]}
              {f.required ? ', required' : ''}
              {f.options ? `: ${f.options.join(', ')}` : ''}) <code>{f.key}</code>{' '}
              <Action label={`Remove ${f.label}`} run={() => save(props.fields.filter((x) => x.key !== f.key))} />
            </li>
          ))}
        </ol>
      ) : (
        <p class="help">No questions yet: the form asks the email and the name.</p>
      )}
      <label for="f-label">Question</label>
      <input id="f-label" name="label" maxlength={100} required disabled={full} />
      <label for="f-type">Answer</label>
      <select
        id="f-type"
        name="type"
        disabled={full}
        onChange={(e: Event) => setType((e.target as HTMLSelectElement).value as SignupField['type'])}
      >
        {SIGNUP_FIELD_TYPES.map((t) => (
          <option value={t} selected={t === type}>
            {TYPE_WORDS[t]}
          </option>
        ))}
      </select>
      {type === 'select' ? (
        <>
          <label for="f-options">Choices, one per line</label>
          <textarea id="f-options" name="options" rows={4} required />
        </>
      ) : null}
      <label>
        <input name="required" type="checkbox" disabled={full} /> Required
      </label>
      <label for="f-key">Key in the data (optional: made from the question)</label>
      <input id="f-key" name="key" maxlength={40} disabled={full} />
      <button type="submit" disabled={full}>
        Add this question
      </button>
      <ErrorLine error={error} />
    </form>
  );
}
