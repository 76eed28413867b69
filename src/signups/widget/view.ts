/**
 * What the widget's parts (form, sharing, ladder, actions, leaderboard) are given by the element:
 * the contest, its settings, the strings, the API, and the generation that tells a part whether
 * what it fills in is still shown.
 */
import type { Config } from './api.js';
import type { Strings } from './strings.js';

export interface View {
  readonly contest: string;
  readonly config: Config;
  readonly strings: Strings;
  /** bumped by every new view: a part that answers late checks it before it fills in */
  readonly generation: number;
  /** a string of the widget's, with its placeholders filled (plural forms chosen by `count`) */
  t(key: keyof Strings, values?: Record<string, number | string>, count?: string): string;
  /** a number in the page's language (a string as it is) */
  num(v: string | number): string;
  api<T>(method: string, path: string, opts?: { body?: unknown; token?: string }): Promise<T>;
  /** the visitor's view read again (after an action completed), as a new generation */
  refresh(token: string): void;
  /** the contest's path in the API */
  readonly path: string;
  /** where the API is (absolute): its short links are there */
  readonly apiBase: string;
}
