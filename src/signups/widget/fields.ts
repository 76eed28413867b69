/**
 * The contest's own sign-up fields (its `signupFields`) in the form: one labelled control per
 * field, the browser's hints (required, type, maxlength) and the widget's own check before the
 * sign-up is sent; the server checks the answers again against the same definitions.
 */
import { SIGNUP_FIELD_TEXT_MAX } from '../../lib/signup-fields.js';
import type { Config } from './api.js';
import { el } from './dom.js';
import type { View } from './view.js';

type Field = Config['signupFields'][number];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Control {
  field: Field;
  input: HTMLInputElement | HTMLSelectElement;
}

export interface CustomFields {
  /** the labelled controls, in the contest's order */
  nodes: HTMLElement[];
  /** the answers to send as customFields (blank ones left out), or null when there is no field */
  values(): Record<string, string | boolean> | null;
  /** the first answer that cannot be sent: its control (to focus) and what to say */
  problem(): { input: HTMLInputElement | HTMLSelectElement; message: string } | null;
  /** the control of a field the server named (`customFields.<key> …`), with what to say */
  named(serverMessage: string): { input: HTMLInputElement | HTMLSelectElement; message: string } | null;
}

export function customFields(v: View, fields: readonly Field[]): CustomFields {
  const controls: Control[] = fields.map((field) => ({ field, input: control(v, field) }));
  const nodes = controls.map(({ field, input }) => {
    const id = input.id;
    if (field.type === 'checkbox') {
      return el('label', { class: 'consent', for: id }, input, el('span', {}, label(v, field)));
    }
    return el('div', { class: 'field' }, el('label', { for: id }, label(v, field)), input);
  });
  const answer = ({ field, input }: Control): string | boolean =>
    field.type === 'checkbox' ? (input as HTMLInputElement).checked : input.value.trim();
  const say = (c: Control, problem: 'missing' | 'invalid') => {
    c.input.setAttribute('aria-invalid', 'true');
    const key = problem === 'invalid' ? 'fieldInvalid' : c.field.type === 'checkbox' ? 'fieldTick' : 'fieldRequired';
    return { input: c.input, message: v.t(key, { label: c.field.label }) };
  };
  return {
    nodes,
    values() {
      if (controls.length === 0) return null;
      const out: Record<string, string | boolean> = {};
      for (const c of controls) {
        const a = answer(c);
        if (a !== '' && a !== false) out[c.field.key] = a;
      }
      return out;
    },
    problem() {
      for (const c of controls) {
        c.input.removeAttribute('aria-invalid');
        const a = answer(c);
        if (a === '' || a === false) {
          if (c.field.required) return say(c, 'missing');
          continue;
        }
        if (c.field.type === 'email' && !EMAIL.test(a as string)) return say(c, 'invalid');
        if (c.field.type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(a as string)) return say(c, 'invalid');
      }
      return null;
    },
    named(serverMessage) {
      const key = /^customFields\.(\w+) /.exec(serverMessage)?.[1];
      const c = controls.find((x) => x.field.key === key);
      if (!c) return null;
      return say(c, /is required$/.test(serverMessage) ? 'missing' : 'invalid');
    },
  };
}

/** "Company", or "Birthday (optional)" */
function label(v: View, field: Field): string {
  return field.required || field.type === 'checkbox' ? field.label : v.t('optionalField', { label: field.label });
}

function control(v: View, field: Field): HTMLInputElement | HTMLSelectElement {
  const id = `cs-f-${field.key}`;
  const common: Record<string, string> = {
    id,
    name: field.key,
    ...(field.required ? { 'aria-required': 'true' } : {}),
  };
  if (field.type === 'select') {
    const select = document.createElement('select');
    for (const [k, value] of Object.entries(common)) select.setAttribute(k, value);
    select.appendChild(el('option', { value: '' }, v.t('choose')));
    for (const o of field.options ?? []) select.appendChild(el('option', { value: o }, o));
    return select;
  }
  if (field.type === 'checkbox') return el('input', { ...common, type: 'checkbox' }) as HTMLInputElement;
  return el('input', {
    ...common,
    type: field.type,
    ...(field.type === 'email' ? { autocomplete: 'off' } : {}),
    ...(field.type === 'text' ? { maxlength: String(SIGNUP_FIELD_TEXT_MAX) } : {}),
  }) as HTMLInputElement;
}
