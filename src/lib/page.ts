/** The hosted page's bounds (the settings' schema and the contests table's check are made from them). */

/** The most leaderboard rows the hosted page shows. */
export const PAGE_LEADERBOARD_MAX = 50;
