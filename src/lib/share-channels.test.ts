/** The button text a theme's accent gets: whichever of white and black reads on it at WCAG AA. */
import { describe, expect, it } from 'vitest';
import { contrastRatio, mutedText, textOnAccent, themeVariables } from './share-channels.js';

describe('text on an accent', () => {
  it('contrast ratios as WCAG computes them', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('white on a dark accent, black on a pale one (the accent that left white text at 2.1:1 included)', () => {
    expect(textOnAccent('#4338ca')).toBe('#ffffff');
    expect(textOnAccent('#9d174d')).toBe('#ffffff');
    expect(textOnAccent('#f59e0b')).toBe('#000000'); // white on it: 2.15:1
    expect(contrastRatio('#f59e0b', '#ffffff')).toBeLessThan(2.2);
    expect(textOnAccent('#fde047')).toBe('#000000');
    expect(textOnAccent('#777777')).toBe('#000000');
  });

  it('every accent of a 4,096-colour sweep gets text at 4.5:1 or better', () => {
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    let worst = 21;
    for (let r = 0; r < 256; r += 17)
      for (let g = 0; g < 256; g += 17)
        for (let b = 0; b < 256; b += 17) {
          const accent = `#${hex(r)}${hex(g)}${hex(b)}`;
          worst = Math.min(worst, contrastRatio(accent, textOnAccent(accent)));
        }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });

  it("a theme's variables carry the text colour with the accent, and nothing without one", () => {
    expect(themeVariables({ accent: '#f59e0b' }, '--cs-')).toEqual([
      ['--cs-accent', '#f59e0b'],
      ['--cs-accent-text', '#000000'],
    ]);
    expect(themeVariables({ radius: 4 }, '--cs-')).toEqual([['--cs-radius', '4px']]);
  });

  it('the quieter text of a theme reads at 4.5:1 or better on its background, whatever the pair', () => {
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    const greys = Array.from({ length: 18 }, (_, i) => `#${hex(i * 15).repeat(3)}`);
    let worst = 21;
    for (const text of greys)
      for (const background of greys)
        if (contrastRatio(text, background) >= 4.5)
          worst = Math.min(worst, contrastRatio(mutedText(text, background), background));
    expect(worst).toBeGreaterThanOrEqual(4.5);
    // a light text on a dark page: quieter, still light
    expect(mutedText('#f9fafb', '#111827')).toBe('#bfc2c6');
    // black text on the default white: a dark grey
    expect(mutedText('#000000')).toBe('#404040');
  });

  it('a dark background takes light status colours; a light one keeps the defaults', () => {
    const names = (t: Parameters<typeof themeVariables>[0]) => themeVariables(t, '--cs-').map(([n]) => n);
    expect(themeVariables({ background: '#111827', text: '#f9fafb' }, '--cs-')).toEqual([
      ['--cs-bg', '#111827'],
      ['--cs-fg', '#f9fafb'],
      ['--cs-muted', mutedText('#f9fafb', '#111827')],
      ['--cs-err', '#fca5a5'],
      ['--cs-ok', '#86efac'],
    ]);
    expect(names({ background: '#fef3c7' })).toEqual(['--cs-bg']);
  });
});
