import * as v from 'valibot';

export const nonNegInt = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be an integer`),
    v.minValue(0, `${field} must be at least 0`),
    v.maxValue(1_000_000_000, `${field} is too large`),
  );

/** The most seconds any public answer is kept (the setting's maximum; the contests table checks it too). */
export const PUBLIC_CACHE_MAX_SECONDS = 300;

const PUBLIC_CACHE_MESSAGE = `publicCacheSeconds must be a whole number of seconds from 0 to ${PUBLIC_CACHE_MAX_SECONDS}`;

/**
 * How long a public key's reads of a contest or game may come from a cache (0, the default: every
 * answer exact). Shared by contests and instant-win games.
 */
export const publicCacheSeconds = v.pipe(
  v.number(PUBLIC_CACHE_MESSAGE),
  v.integer(PUBLIC_CACHE_MESSAGE),
  v.minValue(0, PUBLIC_CACHE_MESSAGE),
  v.maxValue(PUBLIC_CACHE_MAX_SECONDS, PUBLIC_CACHE_MESSAGE),
  v.description(
    `seconds (0 to ${PUBLIC_CACHE_MAX_SECONDS}) for which what a public key reads about this contest or game may be answered from a cache; 0 (the default): always exact`,
  ),
);

/** An https address a page shows or links to (an image, a logo, the rules): null clears it. */
export const httpsUrl = (name: string, description: string) =>
  v.pipe(
    v.nullable(
      v.pipe(
        v.string(`${name} must be an https URL`),
        v.maxLength(2000, `${name} must be at most 2000 characters`),
        v.url(`${name} must be an https URL`),
        v.regex(/^https:\/\//i, `${name} must be an https URL`),
      ),
    ),
    v.description(description),
  );
