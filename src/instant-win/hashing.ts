/** Play cookies and IP addresses are never stored: only these hashes are. */
import type { RandomSource } from '../deps.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';

/** Cookies the server makes: 32 base62 characters (~190 random bits). */
export const newPlayCookie = (random: RandomSource) => randomBase62(random, 32);

/** What a client may send back as playCookie (server-made ones match it). */
export const PLAY_COOKIE_RE = /^[A-Za-z0-9_-]{16,128}$/;

export const hashCookie = (cookie: string) => sha256Hex(`iw-cookie:${cookie}`);
