/**
 * Game bodies: valibot schemas for the types (they also feed the OpenAPI document), then the
 * rules that need the whole body or the stored game, with messages that name the tier.
 */
import * as v from 'valibot';
import { Errors } from '../errors.js';
import { publicCacheSeconds } from '../http/fields.js';
import {
  DELIVERY_TYPES,
  type DeliveryType,
  ENTRY_LIMITS,
  GAME_STATUSES,
  LAYOUTS,
  MAX_CODE_LENGTH,
  MAX_CODES_PER_TIER,
  MAX_TIERS,
  MECHANICS,
  ODDS_TOLERANCE,
  PRESETS,
  PUBLISH_AS,
} from './presets.js';

const oneOf = <T extends readonly string[]>(field: string, values: T) =>
  v.pipe(v.string(), v.picklist(values, `${field} must be one of ${values.join(', ')}`));

const optionalText = v.optional(v.nullable(v.string()));

/** One tier as sent; ranges and combinations are checked by normalizeTiers(). */
export const tierSchema = v.object({
  id: v.optional(
    v.nullable(v.pipe(v.string(), v.description('existing tier id (update only): edits that tier in place'))),
  ),
  name: v.string(),
  oddsPercent: v.pipe(v.number(), v.description('chance in percent; all tiers add up to 100')),
  isMiss: v.optional(v.boolean()),
  color: optionalText,
  deliveryType: v.optional(v.nullable(v.picklist(DELIVERY_TYPES))),
  redeemCode: optionalText,
  redeemUrl: optionalText,
  quantity: v.optional(v.nullable(v.pipe(v.number(), v.description('prize inventory; null = unlimited')))),
  codes: v.optional(
    v.nullable(v.pipe(v.array(v.string()), v.description('single-use codes (deliveryType unique_code)'))),
  ),
});
export type TierInput = v.InferOutput<typeof tierSchema>;

const tiersSchema = v.array(tierSchema);

const baseFields = {
  title: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'title must not be empty'),
    v.maxLength(200, 'title must be at most 200 characters'),
  ),
  description: v.optional(
    v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(5000, 'description must be at most 5000 characters'))),
  ),
  publishAs: oneOf('publishAs', PUBLISH_AS),
  embedUrl: v.optional(v.nullable(v.string())),
  status: v.optional(oneOf('status', GAME_STATUSES)),
  publicCacheSeconds: v.optional(publicCacheSeconds),
};

export const createGameSchema = v.object({
  slug: v.pipe(v.string(), v.picklist(PRESETS, 'Unknown slug')),
  title: baseFields.title,
  description: baseFields.description,
  mechanic: oneOf('mechanic', MECHANICS),
  layout: oneOf('layout', LAYOUTS),
  entryLimit: oneOf('entryLimit', ENTRY_LIMITS),
  publishAs: baseFields.publishAs,
  embedUrl: baseFields.embedUrl,
  status: baseFields.status,
  publicCacheSeconds: baseFields.publicCacheSeconds,
  tiers: tiersSchema,
});
export type CreateGameInput = v.InferOutput<typeof createGameSchema>;

/** mechanic, layout, entryLimit (and slug) are not in here: sent on update, they are ignored. */
export const updateGameSchema = v.object({
  title: v.optional(baseFields.title),
  description: baseFields.description,
  publishAs: v.optional(baseFields.publishAs),
  embedUrl: baseFields.embedUrl,
  status: baseFields.status,
  publicCacheSeconds: baseFields.publicCacheSeconds,
  tiers: v.optional(tiersSchema),
});
export type UpdateGameInput = v.InferOutput<typeof updateGameSchema>;

/** A tier after every rule was checked: what gets stored. */
export interface TierSpec {
  /** the existing tier this edits (update), or null for a new tier */
  id: string | null;
  name: string;
  oddsPercent: number;
  isMiss: boolean;
  color: string | null;
  deliveryType: DeliveryType | null;
  redeemCode: string | null;
  redeemUrl: string | null;
  quantity: number | null;
  /** codes to add (unique_code tiers) */
  codes: string[];
}

/** What an update needs to know about a stored tier. */
export interface StoredTier {
  id: string;
  isMiss: boolean;
  deliveryType: DeliveryType | null;
  hasPlays: boolean;
  codesTotal: number;
}

export function isHttpUrl(s: string): boolean {
  if (s.length > 2000) return false;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const bad = (msg: string) => Errors.validation(msg);

function text(value: string | null | undefined, label: string, max: number): string | null {
  if (value === null || value === undefined) return null;
  const t = value.trim();
  if (t.length > max) throw bad(`${label} must be at most ${max} characters`);
  return t === '' ? null : t;
}

/**
 * Checks a whole tier list (create, or update with `stored` = the game's current tiers) and
 * returns it normalized. Throws the documented messages: at least two tiers, odds summing to 100,
 * fulfilment for each prize tier.
 */
export function normalizeTiers(input: readonly TierInput[], stored?: ReadonlyMap<string, StoredTier>): TierSpec[] {
  if (input.length < 2) throw Errors.atLeastTwoTiers();
  if (input.length > MAX_TIERS) throw bad(`At most ${MAX_TIERS} tiers are allowed`);
  const seenIds = new Set<string>();
  const out: TierSpec[] = [];
  input.forEach((t, i) => {
    const label = `tiers[${i}]`;
    let id: string | null = null;
    let existing: StoredTier | undefined;
    if (t.id !== undefined && t.id !== null) {
      existing = stored?.get(t.id);
      if (!existing) throw bad(`${label}.id is not a tier of this game`);
      if (seenIds.has(t.id)) throw bad(`${label}.id appears twice`);
      seenIds.add(t.id);
      id = t.id;
    }
    const name = text(t.name, `${label}.name`, 100);
    if (!name) throw bad(`${label}.name must not be empty`);
    const odds = t.oddsPercent;
    if (!Number.isFinite(odds) || odds < 0 || odds > 100)
      throw bad(`${label}.oddsPercent must be a number between 0 and 100`);
    const isMiss = t.isMiss ?? false;
    const color = text(t.color, `${label}.color`, 50);

    if (isMiss) {
      // a miss needs no fulfilment; whatever was sent for it is not stored
      if (existing?.hasPlays && !existing.isMiss)
        throw bad(`${label} has plays: a prize tier cannot become a miss (leave it out and add a new tier)`);
      out.push({
        id,
        name,
        oddsPercent: odds,
        isMiss,
        color,
        deliveryType: null,
        redeemCode: null,
        redeemUrl: null,
        quantity: null,
        codes: [],
      });
      return;
    }

    const redeemCode = text(t.redeemCode, `${label}.redeemCode`, 200);
    const redeemUrl = text(t.redeemUrl, `${label}.redeemUrl`, 2000);
    if (redeemUrl !== null && !isHttpUrl(redeemUrl)) throw bad(`${label}.redeemUrl must be an http(s) URL`);
    // omitted: an existing prize tier keeps its type; otherwise code when redeemCode is given, else url
    const deliveryType: DeliveryType =
      t.deliveryType ??
      (existing && !existing.isMiss && existing.deliveryType
        ? existing.deliveryType
        : redeemCode !== null
          ? 'code'
          : 'url');
    const codes = normalizeCodes(t.codes, label);

    if (deliveryType === 'code' && redeemCode === null) throw Errors.prizeTierNeedsDelivery();
    if (deliveryType === 'url' && redeemUrl === null) throw Errors.prizeTierNeedsDelivery();
    if (deliveryType !== 'unique_code' && codes.length > 0)
      throw bad(`${label}.codes are only used with deliveryType unique_code`);
    if (deliveryType === 'unique_code') {
      const hasCodes = codes.length > 0 || (existing?.deliveryType === 'unique_code' && existing.codesTotal > 0);
      if (!hasCodes) throw bad(`${label}.codes must list at least one code for deliveryType unique_code`);
    }

    let quantity: number | null = null;
    if (t.quantity !== undefined && t.quantity !== null) {
      if (deliveryType === 'unique_code')
        throw bad(`${label}.quantity is not used with deliveryType unique_code: each code is one prize`);
      if (!Number.isInteger(t.quantity) || t.quantity < 0 || t.quantity > 1_000_000_000) {
        throw bad(`${label}.quantity must be a whole number from 0 to 1000000000`);
      }
      quantity = t.quantity;
    }

    if (existing?.hasPlays) {
      if (existing.isMiss)
        throw bad(`${label} has plays: a miss tier cannot become a prize (leave it out and add a new tier)`);
      if ((existing.deliveryType === 'unique_code') !== (deliveryType === 'unique_code')) {
        throw bad(
          `${label} has plays: its deliveryType cannot change to or from unique_code (leave it out and add a new tier)`,
        );
      }
    }
    out.push({ id, name, oddsPercent: odds, isMiss, color, deliveryType, redeemCode, redeemUrl, quantity, codes });
  });
  const sum = out.reduce((s, t) => s + t.oddsPercent, 0);
  if (Math.abs(sum - 100) > ODDS_TOLERANCE) throw Errors.oddsMustSumTo100();
  return out;
}

function normalizeCodes(codes: readonly string[] | null | undefined, label: string): string[] {
  if (!codes) return [];
  if (codes.length > MAX_CODES_PER_TIER) throw bad(`${label}.codes may list at most ${MAX_CODES_PER_TIER} codes`);
  const seen = new Set<string>();
  return codes.map((raw, j) => {
    const code = raw.trim();
    if (code === '' || code.length > MAX_CODE_LENGTH || /[\u0000-\u001f\u007f]/.test(code)) {
      throw bad(`${label}.codes[${j}] must be 1 to ${MAX_CODE_LENGTH} printable characters`);
    }
    if (seen.has(code)) throw bad(`${label}.codes lists ${JSON.stringify(code)} twice`);
    seen.add(code);
    return code;
  });
}

/** embedUrl rules: required (http(s)) when publishing as an embed. */
export function normalizeEmbedUrl(publishAs: string, embedUrl: string | null | undefined): string | null {
  const url = embedUrl?.trim() || null;
  if (url !== null && !isHttpUrl(url)) throw bad('embedUrl must be an http(s) URL');
  if (publishAs === 'embed' && url === null) throw bad('embedUrl is required when publishAs is embed');
  return url;
}
