/**
 * Words that follow a number, chosen by the language's plural rules (Intl.PluralRules): "1 game",
 * "2 games"; in a language with more forms (few, many…), the form given for it, else `other`.
 * One helper for the API's messages, the console, both widgets and the emails.
 */
export type PluralForms = { one: string; other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

const rulesByLang = new Map<string, Intl.PluralRules>();
function rulesOf(lang: string | undefined): Intl.PluralRules {
  const key = lang ?? '';
  let rules = rulesByLang.get(key);
  if (!rules) {
    try {
      rules = new Intl.PluralRules(lang || undefined);
    } catch {
      rules = new Intl.PluralRules('en');
    }
    rulesByLang.set(key, rules);
  }
  return rules;
}

/** The form of `forms` for the number `n` in `lang` (English without one). */
export function pluralForm(n: number, forms: PluralForms, lang?: string): string {
  return forms[rulesOf(lang ?? 'en').select(n)] ?? forms.other;
}

/** `n` and its noun: `counted(1, 'game', 'games')` is "1 game"; numbers as `lang` writes them. */
export function counted(n: number, one: string, other: string, lang?: string): string {
  let number: string;
  try {
    number = n.toLocaleString(lang ?? 'en');
  } catch {
    number = n.toLocaleString('en');
  }
  return `${number} ${pluralForm(n, { one, other }, lang)}`;
}
