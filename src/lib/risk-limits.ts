/**
 * The risk rules' bounds (docs/fraud-and-privacy.md), for the TypeScript and the database alike:
 * the contests table's check and the settings' schema are made from these, and the SQL that
 * cannot import them (src/db/functions/risk.sql: the window's `interval '1 hour'` and its
 * `LIMIT 1001`) is held to them by src/lib/risk-limits.test.ts.
 */

/** The velocity window: an hour, in milliseconds. */
export const RISK_WINDOW_MS = 3_600_000;

/** The most a contest may set for maxEntriesPerIpPerHour and maxReferralsPerHour; a window keeps one time more. */
export const RISK_PER_HOUR_MAX = 1000;
