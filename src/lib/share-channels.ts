/**
 * Where a visitor shares their link, in the order the widget shows them when a contest does not
 * choose (docs/signups.md, "Sharing"): a share link carries `ref=<code>` and `via=<channel>`,
 * and every visit, share click and sign-up is counted by channel. Used by the contest settings,
 * the visits and shares, the funnel, and the widget (browser code: no import of its own).
 */
export const SHARE_CHANNELS = [
  'x',
  'facebook',
  'linkedin',
  'whatsapp',
  'telegram',
  'reddit',
  'email',
  'sms',
  'copy',
  'native',
] as const;
export type ShareChannel = (typeof SHARE_CHANNELS)[number];

/** A contest's share buttons when it sets none. */
export const DEFAULT_SHARE_CHANNELS: readonly ShareChannel[] = ['x', 'facebook', 'linkedin', 'whatsapp', 'email'];

/** A contest's share message when it sets none: `{{link}}` is the visitor's link. */
export const DEFAULT_SHARE_MESSAGE = 'Join me: {{link}}';
export const SHARE_MESSAGE_MAX = 280;

/** The fonts a theme may name: system stacks, nothing loaded from elsewhere. */
export const THEME_FONTS = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  serif: 'Georgia, "Times New Roman", serif',
  rounded: 'ui-rounded, "SF Pro Rounded", system-ui, sans-serif',
  mono: 'ui-monospace, "SF Mono", Menlo, Consolas, monospace',
} as const;
export type ThemeFont = keyof typeof THEME_FONTS;

/** A contest's look in the widget and on its hosted page; each part optional (the widget's own default). */
export interface Theme {
  accent?: string;
  background?: string;
  text?: string;
  radius?: number;
  font?: ThemeFont;
}
