/**
 * Where a visitor shares their link, in the order the widget shows them when a contest does not
 * choose (docs/signups.md, "Sharing"): a share link carries `ref=<code>` and `via=<channel>`,
 * and every visit, share click and sign-up is counted by channel. Used by the contest settings,
 * the visits and shares, the funnel, the hosted page, the console and the widget (browser code:
 * nothing here may need Node).
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

/**
 * A contest's share buttons when it sets none (the column's default is made from it): the five
 * networks, then Copy and the device's share sheet. Every channel is a choice: a list without
 * `copy` shows no Copy button (the link itself is always shown), one without `native` no share sheet.
 */
export const DEFAULT_SHARE_CHANNELS: readonly ShareChannel[] = [
  'x',
  'facebook',
  'linkedin',
  'whatsapp',
  'email',
  'copy',
  'native',
];

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
export const THEME_FONT_NAMES = Object.keys(THEME_FONTS) as ThemeFont[];

/** A colour the widget takes (a theme's, a bonus action's icon): `#rrggbb`. */
export const COLOUR_RRGGBB = /^#[0-9a-fA-F]{6}$/;
/** A theme's largest corner radius, in px (from 0). */
export const THEME_RADIUS_MAX = 32;

/** A contest's look in the widget and on its hosted page; each part optional (the widget's own default). */
export interface Theme {
  accent?: string;
  background?: string;
  text?: string;
  radius?: number;
  font?: ThemeFont;
}

/** WCAG 2 relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/**
 * The text on a button of colour `accent`: white while it reads at 4.5:1 or better (WCAG AA),
 * else black (for every colour one of the two does: a pale accent gets black text).
 */
export function textOnAccent(accent: string): '#ffffff' | '#000000' {
  return contrastRatio(accent, '#ffffff') >= 4.5 ? '#ffffff' : '#000000';
}

/** `a` mixed with `b`, `share` of `a` (0 to 1), as `#rrggbb`. */
function mix(a: string, b: string, share: number): string {
  const ch = (hex: string, i: number) => Number.parseInt(hex.slice(i, i + 2), 16);
  return `#${[1, 3, 5]
    .map((i) =>
      Math.round(ch(a, i) * share + ch(b, i) * (1 - share))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** A background this dark takes light status colours (its luminance; white is 1). */
const DARK_BACKGROUND = 0.18;

/**
 * The quieter text of a theme with its own text colour: three quarters text, one quarter
 * background, while that still reads at 4.5:1 on the background; else the text colour itself.
 */
export function mutedText(text: string, background = '#ffffff'): string {
  const muted = mix(text, background, 0.75);
  return contrastRatio(muted, background) >= 4.5 ? muted : text;
}

/**
 * A theme as the widget's CSS custom properties: `--<prefix>accent`, `…accent-text` (white or
 * black, whichever reads on the accent: textOnAccent), `…bg`, `…fg`, `…muted` (the quieter
 * text: mutedText), `…err` and `…ok` (light red and green on a dark background), `…radius`,
 * `…font`, each with its value, or undefined where the theme leaves the part to the widget. The
 * hosted page writes the set ones as `--cs-…` (the page's own variables); the widget as its
 * defaults `--cs-t-…`, under whatever the page sets; the console's preview sets and clears them.
 */
export function themeSlots(theme: Theme, prefix: string): [string, string | undefined][] {
  const dark = theme.background !== undefined && luminance(theme.background) < DARK_BACKGROUND;
  return [
    [`${prefix}accent`, theme.accent],
    [`${prefix}accent-text`, theme.accent ? textOnAccent(theme.accent) : undefined],
    [`${prefix}bg`, theme.background],
    [`${prefix}fg`, theme.text],
    [`${prefix}muted`, theme.text ? mutedText(theme.text, theme.background) : undefined],
    [`${prefix}err`, dark ? '#fca5a5' : undefined],
    [`${prefix}ok`, dark ? '#86efac' : undefined],
    [`${prefix}radius`, theme.radius === undefined ? undefined : `${theme.radius}px`],
    [`${prefix}font`, theme.font ? THEME_FONTS[theme.font] : undefined],
  ];
}

/** The parts a theme sets, as CSS custom properties (see themeSlots). */
export function themeVariables(theme: Theme, prefix: string): [string, string][] {
  return themeSlots(theme, prefix).filter((v): v is [string, string] => v[1] !== undefined);
}
