import type { RandomSource } from '../deps.js';
import { randomBase62 } from './crypto.js';

/** Referral codes: 10 base62 characters (~59 bits), unique across all entries (entries_referral_code_uq). */
export const newReferralCode = (random: RandomSource) => randomBase62(random, 10);

/** Single-purpose tokens sent by email (confirmation links): 32 base62 characters (~190 bits). */
export const newEmailToken = (random: RandomSource) => randomBase62(random, 32);
