/**
 * A contest's own sign-up fields (`signupFields`): what the form asks beside the email and the
 * name. The settings' schema, the contests table's check, the widget's form and the statement
 * that checks a sign-up's answers (ce_signup_fields_error, src/db/functions/signup-fields.sql,
 * which takes these bounds as arguments) are made from this file.
 */

/** The most fields a contest may ask. */
export const SIGNUP_FIELDS_MAX = 10;
/** The kinds of field, as the form shows them. */
export const SIGNUP_FIELD_TYPES = ['text', 'email', 'select', 'checkbox', 'date'] as const;
export type SignupFieldType = (typeof SIGNUP_FIELD_TYPES)[number];
/** A field's key: what the entry's customFieldData names it by (and the CSV's column, after `field.`). */
export const SIGNUP_FIELD_KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,39}$/;
export const SIGNUP_FIELD_LABEL_MAX = 100;
/** A select's choices: at least one, at most this many, each at most SIGNUP_FIELD_LABEL_MAX characters. */
export const SIGNUP_FIELD_OPTIONS_MAX = 20;
/** The longest answer a text field takes (characters); an email field takes EMAIL_MAX. */
export const SIGNUP_FIELD_TEXT_MAX = 500;

export interface SignupField {
  key: string;
  label: string;
  type: SignupFieldType;
  required: boolean;
  /** a select's choices (only a select has them) */
  options?: string[];
}
