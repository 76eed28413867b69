/**
 * Instant-win vocabulary (docs/instant-win.md) and the limits this
 * service sets where the reference is silent.
 */
export const PRESETS = [
  'spin-to-win',
  'scratch-and-win',
  'mystery-box',
  'advent-calendar',
  'plinko',
  'slot-machine',
  'golden-egg',
  'claw-machine',
] as const;

/** Accepted as list filters only; creating a game with one answers `400 Unknown slug`. */
export const RETIRED_PRESETS = [
  'trade-show-prize-wheel',
  'daily-login-game',
  'coupon-roulette',
  'in-store-kiosk',
] as const;

export const MECHANICS = ['wheel', 'scratch', 'box', 'advent', 'plinko', 'slots', 'egg', 'claw'] as const;
export const LAYOUTS = ['default', 'fullscreen'] as const;
export const ENTRY_LIMITS = ['none', 'daily', 'device'] as const;
export const PUBLISH_AS = ['landing', 'embed'] as const;
export const GAME_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;
export const DELIVERY_TYPES = ['code', 'url', 'unique_code'] as const;
export const PLAY_STATUSES = ['pending', 'claimed', 'miss', 'expired'] as const;

export type EntryLimit = (typeof ENTRY_LIMITS)[number];
export type DeliveryType = (typeof DELIVERY_TYPES)[number];
export type PlayStatus = (typeof PLAY_STATUSES)[number];

/** How long a win stays reserved for its player to claim it. */
export const RESERVATION_MS = 24 * 60 * 60 * 1000;

export const MAX_TIERS = 50;
export const MAX_CODES_PER_TIER = 10_000;
export const MAX_CODE_LENGTH = 100;
/** Odds must add up to 100 within this tolerance (docs/instant-win.md). */
export const ODDS_TOLERANCE = 1e-6;

/** The result shown when a prize ran out and the game has no miss tier. */
export const NO_PRIZE = { id: null, name: 'No prize', isMiss: true, color: null } as const;
