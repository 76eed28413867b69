/** The kinds of value a setting takes (src/environment.ts declares the settings with them). */
import * as v from 'valibot';

export type Runtime = 'node' | 'worker' | 'dev' | 'migrate' | 'tests' | 'bench';

export interface Setting {
  name: string;
  runtimes: readonly Runtime[];
  /** a Worker secret (`wrangler secret put`), never a plain [vars] value */
  secret?: boolean;
  /** the default, in words, as the docs show it ('' = none) */
  default: string;
  meaning: string;
  /** what it accepts, in words (the refusal sentence ends with it) */
  accepts: string;
  schema: v.GenericSchema<string, unknown>;
}

export const text = v.pipe(v.string(), v.minLength(1));
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.integer(), v.minValue(min), v.maxValue(max));
export const oneOf = <T extends string>(...values: T[]) =>
  v.pipe(
    v.string(),
    v.transform((s) => s.trim().toLowerCase()),
    v.picklist(values),
  );
export const flag = v.pipe(
  v.string(),
  v.picklist(['0', '1']),
  v.transform((s) => s === '1'),
);
export const httpUrl = v.pipe(
  v.string(),
  v.url(),
  v.check((s) => /^https?:\/\//i.test(s)),
);
/** 32 bytes in standard base64 (44 characters with its padding) */
export const base64Key = v.pipe(
  v.string(),
  v.trim(),
  v.check((s) => /^[A-Za-z0-9+/]{43}=$/.test(s)),
);
export const postgresUrl = v.pipe(
  v.string(),
  v.check((s) => /^postgres(ql)?:\/\/\S+$/i.test(s)),
);
