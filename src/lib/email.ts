/**
 * The one email normaliser. Every place an email comes in (entry create/update, the signup
 * webhook, bonus-action lookup, purchases, instant-win claims, the referral webhooks' buyer
 * email) goes through normalizeEmail(), so that looking an entry up by the string it was
 * created with always finds it.
 *
 * Accepted: a dot-atom local part (RFC 5322 atext: ASCII letters, digits and
 * ``!#$%&'*+/=?^_`{|}~-``; dots neither first, last nor doubled; at most 64 characters) `@` a
 * domain of at least two dot-separated labels of letters, digits and hyphens (no hyphen first or
 * last, last label not all digits). Internationalised domains are accepted in Unicode
 * (`bücher.example`) or in punycode (`xn--bcher-kva.example`); the Unicode form must convert to
 * a valid ASCII (IDNA) name of at most 253 characters. Refused: no `@` or several, spaces,
 * control characters, quoted local parts, IP-address domains, over 254 characters in all.
 *
 * Normal form: trimmed, Unicode NFC, lower-cased. A Unicode domain is kept as it was given
 * (lower-cased, NFC), not converted to punycode: the stored address is the one the person typed.
 * `user@bücher.example` and `user@xn--bcher-kva.example` are therefore two different strings.
 */

export const EMAIL_MAX = 254;
const LOCAL_MAX = 64;

const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** one label as given: letters (any script), combining marks, digits, hyphens */
const LABEL_GIVEN = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
/** one label in its ASCII (IDNA) form */
const LABEL_ASCII = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The IDNA ASCII form of a domain (WHATWG URL host parsing, the same on Node and workerd), or
 * null when it has none (e.g. a punycode label that does not decode, like `xn--zz`).
 */
function toAscii(domain: string): string | null {
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
}

/** The normal form of an email address, or null when it is not one. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().normalize('NFC').toLowerCase().normalize('NFC');
  if (email.length === 0 || email.length > EMAIL_MAX) return null;
  const at = email.lastIndexOf('@');
  if (at <= 0) return null;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > LOCAL_MAX || !LOCAL.test(local)) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL_GIVEN.test(l))) return null;
  const ascii = toAscii(domain);
  if (ascii === null || ascii.length > 253) return null;
  const asciiLabels = ascii.split('.');
  if (asciiLabels.length !== labels.length || !asciiLabels.every((l) => LABEL_ASCII.test(l))) return null;
  if (/^[0-9]+$/.test(asciiLabels[asciiLabels.length - 1]!)) return null;
  return email;
}
